"""A rule's Decision -> what the user reads: the display verdict (seed 001), a confidence, and a rationale
that names the values the rule read.

Display verdicts: VERIFIED is Supported; LOW_CONFIDENCE is Low Confidence; UNVERIFIED is Unverified; REJECTED
is Contradictory when the evidence says otherwise (high contradiction, a different number) and Unsupported
otherwise. Confidence is the support the evidence gives, discounted for contradiction and for missing
independent sources: overall = max_entailment x (1 - max_contradiction) x min(1, sources / required),
0 for a claim the rules rejected on a citation, a number or the LLM judge's contradiction, None when NLI could
not run. A rationale names the LLM judge, and quotes its reason, whenever one of its rules decided.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from veriground.config import VerificationConfig
from veriground.schema import (
    ConfidenceBand,
    DecisionConfidence,
    DecisionInputs,
    DisplayVerdict,
    RuleName,
    SupportJudgement,
)
from veriground.schema.vocabulary import HARD_REJECTIONS, display_verdict_of
from veriground.text.display import versus
from veriground.text.substitution import swapped_words
from veriground.verdicts.rules import Decision, contradiction_above_max, entailment_below_weak

HIGH_BAND, MEDIUM_BAND = 0.70, 0.40
STRICT_DEPENDENCY_CAP = 0.65  # seed 000 §2.5.3
_DECIMALS = 3


def display_verdict(decision: Decision) -> DisplayVerdict:
    return display_verdict_of(decision.status, decision.reason)


def decision_confidence(decision: Decision, config: VerificationConfig) -> DecisionConfidence:
    inputs = decision.inputs
    if decision.rule in HARD_REJECTIONS:
        overall = (config.hard_rejection_support or {}).get(decision.rule, 0.0)
    elif inputs.max_entailment is None:
        return DecisionConfidence(band=None)
    else:
        contradiction = inputs.max_contradiction or 0.0
        sources = min(1.0, inputs.entailing_sources / config.min_supporting_sources)
        overall = inputs.max_entailment * (1.0 - contradiction) * sources
    if decision.rule == RuleName.DEPENDENCY_WARNING:
        overall = min(overall, STRICT_DEPENDENCY_CAP)
    overall = round(overall, _DECIMALS)
    band = (
        ConfidenceBand.HIGH
        if overall >= HIGH_BAND
        else ConfidenceBand.MEDIUM
        if overall >= MEDIUM_BAND
        else ConfidenceBand.LOW
    )
    return DecisionConfidence(
        support_prob=inputs.max_entailment,
        contradict_prob=inputs.max_contradiction,
        overall_confidence=overall,
        band=band,
    )


def rationale(
    decision: Decision,
    config: VerificationConfig,
    mismatches: Sequence[str] = (),
    llm_judgements: Sequence[SupportJudgement] = (),
) -> str:
    """One sentence naming the rule's reading of the evidence, with the thresholds it compared against."""
    reading = _Reading(decision.inputs, config, tuple(mismatches), _judge_reason(decision.inputs, llm_judgements))
    return _RATIONALES[decision.rule](reading)


@dataclass(frozen=True)
class _Reading:
    """What a rationale quotes: the values the rule read, formatted, and the thresholds it compared them with."""

    inputs: DecisionInputs
    config: VerificationConfig
    mismatches: tuple[str, ...]
    why: str  # the LLM judge's own reason, quoted, or ""

    @property
    def entail(self) -> str:
        return _shown(self.inputs.max_entailment, self.config.min_entailment_prob, self.config.weak_entailment_prob)

    @property
    def contra(self) -> str:
        return _shown(self.inputs.max_contradiction, self.config.max_contradiction_prob)

    @property
    def need_entail(self) -> str:
        return _fmt(self.config.min_entailment_prob)

    @property
    def weak(self) -> str:
        return _fmt(self.config.weak_entailment_prob)

    @property
    def max_contra(self) -> str:
        return _fmt(self.config.max_contradiction_prob)

    @property
    def sources(self) -> str:
        return f"{self.inputs.entailing_sources} independent source(s)"

    @property
    def quoting(self) -> str:
        return ", ".join(self.inputs.quoting_passages[:2])


def _superseded(r: _Reading) -> str:
    return (
        f"supported, but it cites {', '.join(r.inputs.superseded_citations)}, which the latest version of its "
        "document no longer holds"
    )


def _judge_contradicted(r: _Reading) -> str:
    return (
        f"the LLM judge reads {r.inputs.llm_judge_passage} as contradicting the claim{r.why}; tier-1 NLI gave max "
        f"entailment {r.entail}, max contradiction {r.contra}"
    )


def _contradicted(r: _Reading) -> str:
    # Which of the rule's two readings held: support below the weak threshold, or weak support the contradiction
    # outweighs (the rule table's own comparison, not a second one).
    below_weak = r.inputs.max_entailment is not None and entailment_below_weak(r.inputs, r.config)
    return (
        f"{r.inputs.strongest_contradiction_passage} contradicts the claim (contradiction {r.contra} > "
        f"{r.max_contra}) and no passage supports it "
        + (
            f"(best support {r.entail} < {r.weak})"
            if below_weak
            else f"as strongly (best support {r.entail}, below the {r.need_entail} a Supported claim needs)"
        )
    )


def _weak_support(r: _Reading) -> str:
    contradicted = contradiction_above_max(r.inputs, r.config)
    return (
        f"weakly supported: best support {r.entail} is below the {r.need_entail} a Supported claim needs "
        f"(and at least {r.weak})"
        + (
            f"; {r.inputs.strongest_contradiction_passage} contradicts it ({r.contra} > {r.max_contra})"
            if contradicted
            else ""
        )
        + (
            f"; a near copy of {r.inputs.substituted_passage} with {swapped_words(r.inputs.substituted_words)}"
            if r.inputs.substituted_words
            else ""
        )
    )


def _conflicting(r: _Reading) -> str:
    return (
        f"{r.inputs.strongest_entailment_passage} entails ({r.entail}) but "
        f"{r.inputs.strongest_contradiction_passage} contradicts ({r.contra} > {r.max_contra}); the sources disagree"
    )


def _high_contradiction(r: _Reading) -> str:
    return (
        f"{r.inputs.strongest_entailment_passage} both supports ({r.entail}) and contradicts ({r.contra} > "
        f"{r.max_contra}) the claim; read it yourself"
    )


def _evidence_conflict(r: _Reading) -> str:
    return (
        f"entailed by {r.sources}, but {r.inputs.high_evidence_conflicts} high-severity conflict(s) between "
        "evidence passages (contradiction_policy abstain_on_high)"
    )


def _judge_disagrees(r: _Reading) -> str:
    return (
        f"entailed by {r.sources} (max entailment {r.entail} >= {r.need_entail}), but the LLM judge reads "
        f"{r.inputs.llm_judge_passage} as not supporting the claim{r.why}; lowered to Low Confidence (a judge may "
        "lower a verdict, not raise it)"
    )


def _quote_disputed(r: _Reading) -> str:
    return (
        f"{r.quoting} state(s) this sentence word for word, but {r.inputs.strongest_contradiction_passage}, an "
        f"independent source, contradicts it ({r.contra} > {r.max_contra})"
    )


def _sufficient(r: _Reading) -> str:
    entailed = f"entailed by {r.sources} (max entailment {r.entail} >= {r.need_entail})"
    contradiction = r.inputs.max_contradiction
    if (
        contradiction is None
        or r.config.max_contradiction_prob is None
        or contradiction <= r.config.max_contradiction_prob
    ):
        return f"{entailed}, contradiction {r.contra} <= {r.max_contra}"
    # Above the threshold yet not counted: the passage belongs to a source that also supports the claim (rules.py,
    # entailment_and_contradiction_split), and a source contradicting itself is far more often a misreading.
    return (
        f"{entailed}; {r.inputs.strongest_contradiction_passage} reads as contradicting it ({r.contra} > "
        f"{r.max_contra}), but it is a passage of a source that supports the claim: listed with the evidence, not "
        "counted against it"
    )


_RATIONALES: dict[RuleName, Callable[[_Reading], str]] = {
    RuleName.DANGLING_CITATION: lambda r: (
        f"cites {', '.join(r.inputs.dangling_citations)}, which no available passage has"
    ),
    RuleName.NO_EVIDENCE: lambda r: "no passage shares the claim's content; nothing to check it against",
    RuleName.NUMERIC_MISMATCH: lambda r: (
        "the evidence gives a different value: " + ("; ".join(r.mismatches) or "see numeric signal")
    ),
    RuleName.FORMAL_MISMATCH: lambda r: "; ".join(r.inputs.formal_mismatches),
    RuleName.MISQUOTED: lambda r: (
        f"the claim quotes {r.inputs.unfound_quotation!r}, which no evidence passage holds word for word; "
        f"{r.inputs.misquoted_passage} has {r.inputs.misquoted_words!r} (characters {r.inputs.misquoted_span}, "
        f"word similarity {r.inputs.misquoted_similarity})"
    ),
    RuleName.QUOTATION_NOT_FOUND: lambda r: (
        f"the claim quotes {r.inputs.unfound_quotation!r}, and no evidence passage holds these words or words close "
        "to them"
    ),
    RuleName.SWAPPED_TERM: lambda r: (
        f"the claim says {r.inputs.swapped_term[0]!r} ({r.inputs.swapped_term_kind}), which no evidence passage uses, "
        f"where {r.inputs.swapped_term_passage} says {r.inputs.swapped_term[1]!r} in the sentence about it "
        f"(characters {r.inputs.swapped_term_span})"
        if r.inputs.swapped_term
        else "see swapped_term"
    ),
    RuleName.REVERSED_RELATION: lambda r: (
        f"{r.inputs.reversed_relation_passage} states the claim's comparison or dependence the other way round, or the "
        f"claim negated (characters {r.inputs.reversed_relation_span}): {r.inputs.reversed_relation!r}"
    ),
    RuleName.OUT_OF_SCOPE: lambda r: f"supported, but {r.inputs.out_of_scope}",
    RuleName.DEPENDENCY_WARNING: lambda r: (
        f"supported, but {r.inputs.dependency_warning} (verification.strict_dependencies)"
    ),
    RuleName.SUPERSEDED_CITATION: _superseded,
    RuleName.SUBSTITUTED_WORDS: lambda r: (
        f"entailed (max {r.entail}), but the claim is a near copy of {r.inputs.strongest_entailment_passage} with "
        f"{swapped_words(r.inputs.substituted_words)}"
    ),
    RuleName.UNSTATED_FORMULA: lambda r: (
        f"entailed (max {r.entail}), but no unit that supports it states its formula {r.inputs.unstated_formula!r} "
        f"(strongest: {r.inputs.unstated_formula_passage})"
    ),
    RuleName.SCRAMBLED_WORDS: lambda r: (
        f"entailed (max {r.entail}), but the claim is the words of {r.inputs.strongest_entailment_passage} in another "
        "order (text/word_order.py)"
    ),
    RuleName.DROPPED_RESTRICTION: lambda r: (
        f"entailed (max {r.entail}), but every supporting unit is a sentence the claim copies less a restriction "
        f"(text/restrictions.py): {r.inputs.dropped_restriction!r}, characters {r.inputs.dropped_restriction_span} of "
        f"{r.inputs.dropped_restriction_passage}"
    ),
    RuleName.PIECED_SUPPORT: lambda r: (
        f"entailed (max {r.entail}), but only by windows of sentences that each state something of their own "
        f"(evidence/units.py states_apart); the strongest is characters {r.inputs.pieced_support_span} of "
        f"{r.inputs.pieced_support_passage}"
    ),
    RuleName.LLM_JUDGE_CONTRADICTED: _judge_contradicted,
    RuleName.NLI_UNAVAILABLE: lambda r: (
        f"entailment could not be computed ({r.inputs.nli_reason or 'no reason given'}); not judged"
    ),
    RuleName.CONTRADICTED: _contradicted,
    RuleName.LOW_ENTAILMENT: lambda r: f"no passage supports the claim: best support {r.entail} < {r.weak}",
    RuleName.WEAK_SUPPORT: _weak_support,
    RuleName.INSUFFICIENT_SOURCES: lambda r: (
        f"entailed (max {r.entail}) by {r.sources}; {r.config.min_supporting_sources} required"
    ),
    RuleName.CONFLICTING_VERDICTS: _conflicting,
    RuleName.HIGH_CONTRADICTION: _high_contradiction,
    RuleName.EVIDENCE_CONFLICT: _evidence_conflict,
    RuleName.LLM_JUDGE_DISAGREES: _judge_disagrees,
    RuleName.QUOTED: lambda r: (
        f"{r.quoting} state(s) this sentence word for word ({r.inputs.quoting_sources} independent source(s); "
        f"model support {r.entail})"
    ),
    RuleName.QUOTE_DISPUTED: _quote_disputed,
    RuleName.FORMAL_MATCH: lambda r: (
        f"{', '.join(r.inputs.formal_match_passages[:2])} give(s) every equation (the same for the same left side) or "
        f"complexity bound (the same for the same algorithm and case) of the claim ({r.inputs.formal_match_sources} "
        f"independent source(s); model support {r.entail})"
    ),
    RuleName.SUFFICIENT_EVIDENCE: _sufficient,
}


def _judge_reason(inputs: DecisionInputs, llm_judgements: Sequence[SupportJudgement]) -> str:
    """': "<the judge's own rationale>"' for the passage its decisive label is about, or nothing."""
    for judgement in llm_judgements:
        if judgement.passage_id == inputs.llm_judge_passage and judgement.label == inputs.llm_judge_label:
            return f': "{judgement.rationale}"' if judgement.rationale else ""
    return ""


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _shown(value: float | None, *thresholds: float | None) -> str:
    """The value with as many decimals as it takes to differ, as printed, from every threshold a rationale compares it
    with ("0.498 < 0.50", never "0.50 < 0.50"; text/display.versus)."""
    if value is None:
        return _fmt(value)
    return max((versus(value, limit)[0] for limit in thresholds if limit is not None), key=len, default=_fmt(value))
