"""The evidence-sufficiency decision (seed 000) as one ordered rule table: DecisionInputs -> Decision.

The first rule whose condition holds decides. Two departures from the seed's pseudocode, both deliberate:
- `nli-unavailable` sits after `no-evidence`: a claim whose NLI could not run is UNVERIFIED, never judged
  on defaults (house rule: an uncomputed signal never turns into "supported").
- `conflicting-verdicts` sits before `high-contradiction`. In the seed's order it can never fire (every
  claim it would catch was already caught as high contradiction), yet the seed's own table names
  "entailment + contradiction" as a distinct case. Here it fires when one passage entails strongly and a
  *different* passage contradicts strongly; `high-contradiction` covers contradiction without that split.
Four rules the seed's tree lacks, each for a finding its NLI-only tree cannot express; none changes a row of
the seed's conflict table (whose inputs carry no citation, numeric or conflict finding):
- `dangling-citation` (first): the claim cites a passage that does not exist: REJECTED, whatever else is true.
- `numeric-mismatch` (after `no-evidence`): the evidence states a different value for the claim's quantity.
- `contradicted` (before `low-entailment`): nothing entails the claim and a passage contradicts it. The seed
  would say LOW_ENTAILMENT; the reason code HIGH_CONTRADICTION tells the user the source says otherwise.
- `evidence-conflict` (before `sufficient-evidence`): only under contradiction_policy "abstain_on_high", a
  claim whose evidence contradicts itself with high severity is not verified.
Two tier-2 rules (seed 004 §3.6) read the LLM judge, when one ran; tier 2 refines tier 1 and can only lower a
verdict, never raise it:
- `llm-judge-contradicted` (after `numeric-mismatch`): the judge reads a judged passage as contradicting the
  claim: REJECTED with HIGH_CONTRADICTION (shown as Contradictory), whatever the NLI said.
- `llm-judge-disagrees` (just before `sufficient-evidence`, so only a claim tier 1 would verify reaches it):
  the judge reads the strongest-entailment passage as not supporting the claim: LOW_CONFIDENCE with
  CONFLICTING_VERDICTS (NLI and judge disagree).
A judge that says "supported" changes nothing: a claim tier 1 did not verify stays as it is, because one LLM
reply is not independent evidence. An `unavailable` judgement matches no rule, so the tier-1 verdict stands
(the engine records the fallback reason as a manifest warning).
Independent sources are counted over passages that entail (seed 000 T2: ">= 2 independent sources with
entailment probability >= 0.60"), by (source_id, source_type), with byte-identical documents counted once
(evidence_summary.py, which reduces the judgements to DecisionInputs); the default requires one (config.py says why).
The probabilities the rules read are calibrated (verdicts/aggregator.py): "entailment" is P(supported) of the best
evidence unit and "contradiction" P(contradicted) of the most refuting unit about the claim. One more rule than the
seed: `weak-support` (after `low-entailment`) keeps a claim whose support lies between
verification.weak_entailment_prob and min_entailment_prob as LOW_CONFIDENCE (shown as Low Confidence: weakly
supported) instead of calling it either supported or unsupported. And `quoted` (after `nli-unavailable`): the
sentence the claim comes from stands word for word in passages of enough independent sources, so the claim is
Supported whatever a model makes of it (an atom split from a quoted sentence is asserted by that sentence; a
number or citation problem is still caught by the rules before it), unless a source independent of the quoting ones
contradicts it: then `quote-disputed` makes it Low Confidence (the sources disagree). `formal-match` (after
`quote-disputed`): every equation the claim states is the one enough sources give for the same left side
(signals/formal.py: "KE = 1/2 m v^2" against a table's "KE=1/2mv^2"), or every complexity bound the one they give for
the same algorithm, case and resource in a passage holding the claim's other words ("Merge sort runs in O(n log n)
time" against "the total amount of time taken by merge-sort is $O(n\\log n)$"), and no source independent of them
contradicts the claim: Supported, as a quotation is; the NLI reads an equation or a bound as a string of letters.
Two rules check the claim's quotations as words (text/quotations.py), after `formal-mismatch`: a quotation of four
words or more that no evidence passage holds word for word is `misquoted` (Contradictory) when a passage holds words
close to it ("a specific battery issue" where the recall notice says "a specific electrical connection issue"), and
`quotation-not-found` (Unsupported) when none does. A quotation claims the source's words, which the NLI models do not
read: they take such near copies for restatements.
`swapped-term` (after them): the claim puts a day, month, colour, ordinal, season, compass point or capitalised name
that no evidence passage uses where the evidence sentence about it has another of the same kind ("killed on Friday"
against "killed on Thursday", "Trump said" against "Biden said", text/term_swaps.py): Contradictory. The NLI models
read the sentence, which holds nearly all of the claim, as support (0.47-0.60 on SummEdits' dev rows).
Two rules read the domain profile (domains/): `formal-mismatch` (after `numeric-mismatch`): units, dimensions, an
equation or a complexity bound disagree with the evidence or the constants table, so the claim is Contradictory.
`reversed-relation` (after `formal-mismatch`): an evidence sentence states the claim's comparison or dependence the
other way round ("The maximum static friction is usually greater than the kinetic friction" against "Kinetic friction
is usually greater than static friction", "mass does not depend on gravity" against "Mass depends on gravity",
text/relations.py), or is the claim with a negation ("... is not affected" against "... is affected"), and no source
states the claim word for word: Contradictory. The NLI models read such a claim,
which holds every word of its source, as a restatement.
Seven downgrades sit just before
`quoted` and fire only for a claim that would otherwise be Supported (quoted, or supported by enough sources), making
it Low Confidence: `out-of-scope` (beyond the profile's scope), `superseded-citation` (it cites a passage its document
has since changed or removed: the text it rests on is history), only with verification.strict_dependencies
(seed 000 §2.5.3; on in the discrete_math profile), `dependency-warning` (it uses a term before or without its
definition), `substituted-words` (it is a near copy of its best-supporting unit with a word swapped for another,
text/substitution.py: the NLI models read such copies as restatements, so the words decide) and `scrambled-words` (it is
its best-supporting unit's words in another order, text/word_order.py: the shipped model reads word salad made of a
sentence's words as that sentence) and `dropped-restriction` (every unit that supports it enough is a sentence the
claim copies less a word that bounds where it holds, text/restrictions.py: "Every prime number is odd." out of "For
every prime number p, either p = 2, or p is odd."). These three never lower a claim that enough sources state word for
word. `unstated-formula` (after them) lowers a claim none of whose supporting units states its formula ("n!", "2^n",
"\\binom{n}{k}", text/formulas.py: "There are n! subsets of a set with n elements" was Supported, 0.91, by a sentence
giving \\binom{n}{k} for k-element subsets), unless a source states it word for word or gives its equation.
`pieced-support` (after `contradicted`) lowers a claim that every unit supporting it enough holds only across
statements, windows whose sentences each state something of their own (evidence/units.py states_apart: "Opposite
charges repel each other" against "Charges with the same sign repel each other. Charges with opposite signs attract
each other."), to Low Confidence; such support is no support to `contradicted`, so a sentence that contradicts the
claim more strongly makes it Contradictory.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from veriground.config import VerificationConfig
from veriground.schema import (
    DecisionInputs,
    RejectionReason,
    RuleName,
    SignalStatus,
    VerificationStatus,
)

Condition = Callable[[DecisionInputs, VerificationConfig], bool]


@dataclass(frozen=True)
class Rule:
    name: RuleName
    when: Condition
    status: VerificationStatus
    reason: RejectionReason


@dataclass(frozen=True)
class Decision:
    rule: RuleName
    status: VerificationStatus
    reason: RejectionReason
    inputs: DecisionInputs


def has_dangling_citation(inputs: DecisionInputs, _: VerificationConfig) -> bool:
    return bool(inputs.dangling_citations)


def numbers_mismatch(inputs: DecisionInputs, _: VerificationConfig) -> bool:
    return inputs.numeric_outcome == "mismatch"


def quoted_by_enough_sources(inputs: DecisionInputs, config: VerificationConfig) -> bool:
    return inputs.quoting_sources >= config.min_supporting_sources and not quote_disputed(inputs, config)


def quote_disputed(inputs: DecisionInputs, config: VerificationConfig) -> bool:
    """The claim's sentence is quoted, and a source independent of every quoting one contradicts it."""
    return (
        inputs.quoting_sources >= config.min_supporting_sources
        and contradiction_above_max(inputs, config)
        and inputs.contradiction_outside_quotes
    )


def formal_matched_by_enough_sources(inputs: DecisionInputs, config: VerificationConfig) -> bool:
    """Every equation the claim states is the one enough independent sources give for the same left side (or every
    complexity bound the one they give for the same algorithm, case and resource, the claim saying nothing else they
    lack), and no source independent of them contradicts the claim (a passage of the source that gives the equation
    is read as a misreading, as for a quotation)."""
    disputed = contradiction_above_max(inputs, config) and inputs.contradiction_outside_formal_match
    return inputs.formal_match_sources >= config.min_supporting_sources and not disputed


def formal_check_fails(inputs: DecisionInputs, _: VerificationConfig) -> bool:
    return bool(inputs.formal_mismatches)


def misquotes_its_source(inputs: DecisionInputs, _: VerificationConfig) -> bool:
    return inputs.unfound_quotation is not None and inputs.misquoted_passage is not None


def quotes_words_not_found(inputs: DecisionInputs, _: VerificationConfig) -> bool:
    return inputs.unfound_quotation is not None and inputs.misquoted_passage is None


def swaps_a_term(inputs: DecisionInputs, _: VerificationConfig) -> bool:
    return inputs.swapped_term is not None


def states_the_reverse(inputs: DecisionInputs, _: VerificationConfig) -> bool:
    return inputs.reversed_relation_passage is not None and inputs.quoting_sources == 0


def would_be_supported(inputs: DecisionInputs, config: VerificationConfig) -> bool:
    """Quoted, or supported by enough sources: what the downgrade rules below may lower to Low Confidence."""
    quoted = max(inputs.quoting_sources, inputs.formal_match_sources) >= config.min_supporting_sources
    supported = inputs.max_entailment is not None and not entailment_below_min(inputs, config)
    return quoted or (supported and not too_few_sources(inputs, config))


def cites_superseded_passage(inputs: DecisionInputs, config: VerificationConfig) -> bool:
    return bool(inputs.superseded_citations) and would_be_supported(inputs, config)


def strict_dependency_warning(inputs: DecisionInputs, config: VerificationConfig) -> bool:
    return config.strict_dependencies and inputs.dependency_warning is not None and would_be_supported(inputs, config)


def swaps_source_words(inputs: DecisionInputs, config: VerificationConfig) -> bool:
    return bool(inputs.substituted_words) and _supported_unquoted(inputs, config)


def scrambles_source_words(inputs: DecisionInputs, config: VerificationConfig) -> bool:
    return inputs.scrambled_words and _supported_unquoted(inputs, config)


def drops_a_restriction(inputs: DecisionInputs, config: VerificationConfig) -> bool:
    return inputs.dropped_restriction is not None and _supported_unquoted(inputs, config)


def pieces_sentences_together(inputs: DecisionInputs, config: VerificationConfig) -> bool:
    return inputs.pieced_support_passage is not None and would_be_supported(inputs, config)


def leaves_its_formula_unstated(inputs: DecisionInputs, config: VerificationConfig) -> bool:
    unstated = inputs.unstated_formula is not None and not inputs.formal_match_passages
    return unstated and _supported_unquoted(inputs, config)


def _supported_unquoted(inputs: DecisionInputs, config: VerificationConfig) -> bool:
    """Supported by the NLI, and not standing word for word in enough sources: a sentence a source states as written
    is no swap or scramble of it, whatever unit supports it best."""
    return inputs.quoting_sources < config.min_supporting_sources and would_be_supported(inputs, config)


def beyond_profile_scope(inputs: DecisionInputs, config: VerificationConfig) -> bool:
    return inputs.out_of_scope is not None and would_be_supported(inputs, config)


def contradicted_without_support(inputs: DecisionInputs, config: VerificationConfig) -> bool:
    """A sentence about the claim contradicts it, nothing supports it as a Supported claim needs (support read only
    across statements, `pieced-support`, is none), and the contradiction outweighs whatever weak support there is
    (weak support that outweighs a contradiction is Low Confidence: the evidence disagrees)."""
    return (
        contradiction_above_max(inputs, config)
        and (entailment_below_min(inputs, config) or inputs.pieced_support_passage is not None)
        and (
            entailment_below_weak(inputs, config)
            or known_probability(inputs.max_contradiction, "max_contradiction")
            > known_probability(inputs.max_entailment, "max_entailment")
        )
    )


def llm_judge_contradicts(inputs: DecisionInputs, _: VerificationConfig) -> bool:
    return inputs.llm_judge_label == "contradicted"


def llm_judge_finds_no_support(inputs: DecisionInputs, _: VerificationConfig) -> bool:
    return (
        inputs.llm_judge_label == "unsupported"
        and inputs.llm_judge_passage is not None
        and inputs.llm_judge_passage == inputs.strongest_entailment_passage
    )


def has_high_evidence_conflict(inputs: DecisionInputs, _: VerificationConfig) -> bool:
    return inputs.high_evidence_conflicts > 0


def has_no_evidence(inputs: DecisionInputs, _: VerificationConfig) -> bool:
    return inputs.evidence_count == 0


def nli_unavailable(inputs: DecisionInputs, _: VerificationConfig) -> bool:
    return inputs.nli_status != SignalStatus.COMPUTED or inputs.max_entailment is None


def entailment_below_weak(inputs: DecisionInputs, config: VerificationConfig) -> bool:
    weak = min(known_probability(config.weak_entailment_prob, "weak_entailment_prob"), min_entailment(config))
    return known_probability(inputs.max_entailment, "max_entailment") < weak


def entailment_below_min(inputs: DecisionInputs, config: VerificationConfig) -> bool:
    return known_probability(inputs.max_entailment, "max_entailment") < min_entailment(config)


def too_few_sources(inputs: DecisionInputs, config: VerificationConfig) -> bool:
    return inputs.entailing_sources < config.min_supporting_sources


def entailment_and_contradiction_split(inputs: DecisionInputs, config: VerificationConfig) -> bool:
    """One source supports the claim and an independent one contradicts it. A passage of a supporting source that
    seems to contradict it is a misreading far more often than a source contradicting itself: it is listed with
    the evidence, not counted against the claim."""
    return (
        contradiction_above_max(inputs, config)
        and known_probability(inputs.max_entailment, "max_entailment") >= min_entailment(config)
        and inputs.strongest_contradiction_passage != inputs.strongest_entailment_passage
        and inputs.contradiction_from_other_source
    )


def same_passage_entails_and_contradicts(inputs: DecisionInputs, config: VerificationConfig) -> bool:
    return (
        contradiction_above_max(inputs, config)
        and inputs.strongest_contradiction_passage == inputs.strongest_entailment_passage
    )


def contradiction_above_max(inputs: DecisionInputs, config: VerificationConfig) -> bool:
    return inputs.max_contradiction is not None and inputs.max_contradiction > known_probability(
        config.max_contradiction_prob, "max_contradiction_prob"
    )


def always(_: DecisionInputs, __: VerificationConfig) -> bool:
    return True


def min_entailment(config: VerificationConfig) -> float:
    return known_probability(config.min_entailment_prob, "min_entailment_prob")


def known_probability(value: float | None, name: str) -> float:
    """A probability a rule compares. A threshold is None only before `resolve_thresholds` fills it, and the
    claim's max_entailment only for a claim `nli-unavailable` has already decided: None here is a caller's bug."""
    if value is None:
        raise TypeError(f"{name} is None where a rule compares it (thresholds: verdicts.aggregator.resolve_thresholds)")
    return value


# Short names for the table below only, so each rule is one row: name, condition, status, reason.
N, S, R = RuleName, VerificationStatus, RejectionReason
RULES: tuple[Rule, ...] = (
    Rule(N.DANGLING_CITATION, has_dangling_citation, S.REJECTED, R.DANGLING_CITATION),
    Rule(N.NO_EVIDENCE, has_no_evidence, S.REJECTED, R.NO_EVIDENCE),
    Rule(N.NUMERIC_MISMATCH, numbers_mismatch, S.REJECTED, R.NUMERIC_MISMATCH),
    Rule(N.FORMAL_MISMATCH, formal_check_fails, S.REJECTED, R.FORMAL_MISMATCH),
    Rule(N.MISQUOTED, misquotes_its_source, S.REJECTED, R.MISQUOTED),
    Rule(N.QUOTATION_NOT_FOUND, quotes_words_not_found, S.REJECTED, R.QUOTATION_NOT_FOUND),
    Rule(N.SWAPPED_TERM, swaps_a_term, S.REJECTED, R.SWAPPED_TERM),
    Rule(N.REVERSED_RELATION, states_the_reverse, S.REJECTED, R.HIGH_CONTRADICTION),
    Rule(N.LLM_JUDGE_CONTRADICTED, llm_judge_contradicts, S.REJECTED, R.HIGH_CONTRADICTION),
    Rule(N.NLI_UNAVAILABLE, nli_unavailable, S.UNVERIFIED, R.SIGNAL_UNAVAILABLE),
    Rule(N.OUT_OF_SCOPE, beyond_profile_scope, S.LOW_CONFIDENCE, R.OUT_OF_SCOPE),
    Rule(N.SUPERSEDED_CITATION, cites_superseded_passage, S.LOW_CONFIDENCE, R.SUPERSEDED_CITATION),
    Rule(N.DEPENDENCY_WARNING, strict_dependency_warning, S.LOW_CONFIDENCE, R.DEPENDENCY_WARNING),
    Rule(N.SUBSTITUTED_WORDS, swaps_source_words, S.LOW_CONFIDENCE, R.SUBSTITUTED_WORDS),
    Rule(N.SCRAMBLED_WORDS, scrambles_source_words, S.LOW_CONFIDENCE, R.SCRAMBLED_WORDS),
    Rule(N.DROPPED_RESTRICTION, drops_a_restriction, S.LOW_CONFIDENCE, R.DROPPED_RESTRICTION),
    Rule(N.UNSTATED_FORMULA, leaves_its_formula_unstated, S.LOW_CONFIDENCE, R.UNSTATED_FORMULA),
    Rule(N.QUOTED, quoted_by_enough_sources, S.VERIFIED, R.SUFFICIENT_EVIDENCE),
    Rule(N.QUOTE_DISPUTED, quote_disputed, S.LOW_CONFIDENCE, R.CONFLICTING_VERDICTS),
    Rule(N.FORMAL_MATCH, formal_matched_by_enough_sources, S.VERIFIED, R.SUFFICIENT_EVIDENCE),
    Rule(N.CONTRADICTED, contradicted_without_support, S.REJECTED, R.HIGH_CONTRADICTION),
    Rule(N.PIECED_SUPPORT, pieces_sentences_together, S.LOW_CONFIDENCE, R.PIECED_SUPPORT),
    Rule(N.LOW_ENTAILMENT, entailment_below_weak, S.REJECTED, R.LOW_ENTAILMENT),
    Rule(N.WEAK_SUPPORT, entailment_below_min, S.LOW_CONFIDENCE, R.LOW_ENTAILMENT),
    Rule(N.INSUFFICIENT_SOURCES, too_few_sources, S.LOW_CONFIDENCE, R.INSUFFICIENT_SOURCES),
    Rule(N.CONFLICTING_VERDICTS, entailment_and_contradiction_split, S.LOW_CONFIDENCE, R.CONFLICTING_VERDICTS),
    Rule(N.HIGH_CONTRADICTION, same_passage_entails_and_contradicts, S.LOW_CONFIDENCE, R.HIGH_CONTRADICTION),
    Rule(N.EVIDENCE_CONFLICT, has_high_evidence_conflict, S.LOW_CONFIDENCE, R.EVIDENCE_CONFLICT),
    Rule(N.LLM_JUDGE_DISAGREES, llm_judge_finds_no_support, S.LOW_CONFIDENCE, R.CONFLICTING_VERDICTS),
    Rule(N.SUFFICIENT_EVIDENCE, always, S.VERIFIED, R.SUFFICIENT_EVIDENCE),
)


def decide(inputs: DecisionInputs, config: VerificationConfig, rules: Sequence[Rule] = RULES) -> Decision:
    """Apply the ordered rule table; the last rule always matches."""
    for rule in rules:
        if rule.when(inputs, config):
            return Decision(rule.name, rule.status, rule.reason, inputs)
    raise AssertionError("the rule table must end with a rule that always matches")
