"""A verdict in plain words: the rule that fired and the values it read -> one sentence a student or an analyst
reads first ("The source gives 9.8 m/s2; your text says 98 m/s^2."). Codes, probabilities and thresholds stay in
the rationale, one click away; nothing here names a rule, a reason code or a raw probability.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from veriground.schema import (
    DecisionInputs,
    EvidenceChunk,
    FormalCheck,
    FormalSignal,
    NLISignal,
    NumericSignal,
    RuleName,
)
from veriground.text.sentences import sentence_spans
from veriground.text.substitution import swapped_words
from veriground.verdicts.rules import Decision

_MAX_QUOTE = 160


@dataclass(frozen=True)
class _Facts:
    inputs: DecisionInputs
    numeric: NumericSignal | None
    supporting: dict[str, str]  # passage id -> its most supportive sentence
    refuting: dict[str, str]  # passage id -> its most refuting sentence
    matched: frozenset[str] = frozenset()  # the formal checks that passed: "equation", "complexity"
    formal_sentence: str = ""  # the evidence sentence holding the first passed check's equation or bound
    counts_put_in: bool = False  # that check put the claim's numbers into the evidence's equation

    def quote(self, passage_id: str | None, refuting: bool = False) -> str:
        return _quoted_text((self.refuting if refuting else self.supporting).get(passage_id or "") or "")


def _quoted_text(text: str) -> str:
    """': "text"' on one line, without its full stop and cut at _MAX_QUOTE characters; "" for no text."""
    text = " ".join(text.split()).rstrip(".")
    if not text:
        return ""
    return f': "{text[:_MAX_QUOTE]}{"…" if len(text) > _MAX_QUOTE else ""}"'


def explain_plainly(
    decision: Decision,
    numeric: NumericSignal | None = None,
    signals: Sequence[NLISignal] = (),
    chunks: Sequence[EvidenceChunk] = (),
    formal: FormalSignal | None = None,
) -> str:
    """One sentence for the reader, quoting the sentence of the passage that decided when there is one."""
    supporting, refuting = _unit_texts(signals, chunks)
    passed = [check for check in (formal.checks if formal else ()) if check.outcome == "ok"]
    matched = frozenset(check.check for check in passed)
    # an equation check whose claim side holds no "=" put the claim's counts into the evidence's equation
    counts = bool(passed) and passed[0].check == "equation" and "=" not in (passed[0].claim_value or "=")
    facts = _Facts(decision.inputs, numeric, supporting, refuting, matched, _checked_sentence(passed, chunks), counts)
    writer = _SENTENCES.get(decision.rule)
    return writer(facts) if writer else "See the details for why."


def _checked_sentence(passed: Sequence[FormalCheck], chunks: Sequence[EvidenceChunk]) -> str:
    """The sentence of the evidence that holds the first passed check's equation or bound ("Then $e = v-1$.")."""
    for check in passed:
        if check.evidence_index is None or check.evidence_span is None or check.evidence_index >= len(chunks):
            continue
        text = chunks[check.evidence_index].text
        at = check.evidence_span[0]
        for start, end in sentence_spans(text):
            if start <= at < end:
                return text[start:end]
    return ""


def _unit_texts(signals: Sequence[NLISignal], chunks: Sequence[EvidenceChunk]) -> tuple[dict[str, str], dict[str, str]]:
    texts = {chunk.passage_id: chunk.text for chunk in chunks}
    supporting, refuting = {}, {}
    for signal in signals:
        if not signal.units or signal.passage_id not in texts:
            continue
        text = texts[signal.passage_id]
        best = signal.units[0]
        worst = max(signal.units, key=lambda unit: unit.refute_prob)
        supporting[signal.passage_id] = text[best.char_start : best.char_end]
        refuting[signal.passage_id] = text[worst.char_start : worst.char_end]
    return supporting, refuting


def _numbers(facts: _Facts) -> str:
    if facts.numeric is None or not facts.numeric.mismatches:
        return "The source gives a different number."
    claim, _, evidence = facts.numeric.mismatches[0].removeprefix("claim ").partition(" vs evidence ")
    return f"The source gives {evidence}; your text says {claim}."


def _sources(count: int) -> str:
    return "one source" if count == 1 else f"{count} independent sources"


def _formal(facts: _Facts) -> str:
    reason = facts.inputs.formal_mismatches[0]
    first = reason.split(" ", 1)[0]
    # a sentence opens with a capital; a symbol keeps its case ("p = m/v is dimensionally inconsistent")
    return (reason[:1].upper() + reason[1:] if len(first) > 2 and first.isalpha() else reason) + "."


def _quoted(facts: _Facts) -> str:
    first = facts.inputs.quoting_passages[0] if facts.inputs.quoting_passages else None
    return f"The source says this word for word{facts.quote(first)}."


def _same_formula(facts: _Facts) -> str:
    first = facts.inputs.formal_match_passages[0] if facts.inputs.formal_match_passages else None
    kinds = [
        name for check, name in (("equation", "equation"), ("complexity", "complexity bound")) if check in facts.matched
    ]
    quote = _quoted_text(facts.formal_sentence) if facts.formal_sentence else facts.quote(first)
    if facts.counts_put_in:
        return f"Your numbers satisfy the source's equation{quote}."
    return f"The source gives the same {' and '.join(kinds) or 'equation or complexity bound'}{quote}."


def _swaps_named(facts: _Facts) -> str:
    """The words a partly supported claim swaps into a near copy of its evidence, which a reader should check first
    ("It says "murder" where the source says "manslaughter"."); nothing when it is no such copy."""
    swaps = facts.inputs.substituted_words
    return f" It says {swapped_words(swaps)}." if swaps else ""


def _against(facts: _Facts) -> str:
    return facts.quote(facts.inputs.strongest_contradiction_passage, refuting=True)


_SENTENCES: dict[RuleName, Callable[[_Facts], str]] = {
    RuleName.DANGLING_CITATION: lambda f: f"It cites {', '.join(f.inputs.dangling_citations)}, which does not exist.",
    RuleName.NO_EVIDENCE: lambda f: "Nothing in the corpus is about this.",
    RuleName.NUMERIC_MISMATCH: _numbers,
    RuleName.FORMAL_MISMATCH: _formal,
    RuleName.MISQUOTED: lambda f: (
        f'It quotes "{f.inputs.unfound_quotation}", but the source\'s words are "{f.inputs.misquoted_words}".'
    ),
    RuleName.QUOTATION_NOT_FOUND: lambda f: (
        f'No passage in the corpus has the words it quotes, "{f.inputs.unfound_quotation}".'
    ),
    RuleName.SWAPPED_TERM: lambda f: (
        f'It says "{f.inputs.swapped_term[0]}" where the source says "{f.inputs.swapped_term[1]}".'
        if f.inputs.swapped_term
        else "It swaps a name or term its source gives."
    ),
    RuleName.UNSTATED_FORMULA: lambda f: (
        f'The sentences that support it do not give its formula, "{f.inputs.unstated_formula}"; check it.'
    ),
    RuleName.REVERSED_RELATION: lambda f: (
        f"The source states the opposite{_quoted_text(f.inputs.reversed_relation or '')}."
    ),
    RuleName.LLM_JUDGE_CONTRADICTED: lambda f: "The reviewing model reads the source as saying otherwise.",
    RuleName.NLI_UNAVAILABLE: lambda f: "This could not be checked, so it is not counted as supported.",
    RuleName.QUOTED: _quoted,
    RuleName.FORMAL_MATCH: _same_formula,
    RuleName.QUOTE_DISPUTED: lambda f: f"One source says this word for word, but another says otherwise{_against(f)}.",
    RuleName.CONTRADICTED: lambda f: f"The source says otherwise{_against(f)}.",
    RuleName.LOW_ENTAILMENT: lambda f: "No passage in the corpus says this.",
    RuleName.WEAK_SUPPORT: lambda f: (
        f"The corpus only partly supports this; the closest passage{f.quote(f.inputs.strongest_entailment_passage)}."
        + _swaps_named(f)
    ),
    RuleName.INSUFFICIENT_SOURCES: lambda f: (
        f"Only {_sources(f.inputs.entailing_sources)} supports this; more are required."
    ),
    RuleName.CONFLICTING_VERDICTS: lambda f: (
        f"Sources disagree: one supports this, another says otherwise{_against(f)}."
    ),
    RuleName.HIGH_CONTRADICTION: lambda f: "The same passage seems to both support and contradict this; read it.",
    RuleName.EVIDENCE_CONFLICT: lambda f: (
        "The sources that support this contradict each other; see the evidence conflicts."
    ),
    RuleName.OUT_OF_SCOPE: lambda f: (
        f"The corpus supports this, but it is beyond the chosen scope ({f.inputs.out_of_scope})."
    ),
    RuleName.LLM_JUDGE_DISAGREES: lambda f: "The corpus seems to support this, but the reviewing model disagrees.",
    RuleName.SUBSTITUTED_WORDS: lambda f: (
        f"Nearly word for word from the corpus, but with {swapped_words(f.inputs.substituted_words)}; check it."
    ),
    RuleName.SCRAMBLED_WORDS: lambda f: (
        "Its words are all in the corpus, but not in an order that says this; check it."
    ),
    RuleName.DROPPED_RESTRICTION: lambda f: (
        f'The corpus says this only with "{f.inputs.dropped_restriction}", which the claim leaves out; check it.'
    ),
    RuleName.PIECED_SUPPORT: lambda f: (
        "Its words are in the corpus, but only across sentences that each say something else; check it."
    ),
    RuleName.SUPERSEDED_CITATION: lambda f: (
        f"It cites {', '.join(f.inputs.superseded_citations)}, which has since changed or been removed; check it."
    ),
    RuleName.DEPENDENCY_WARNING: lambda f: f"The corpus supports this, but {f.inputs.dependency_warning}.",
    RuleName.SUFFICIENT_EVIDENCE: lambda f: (
        f"Supported by {_sources(f.inputs.entailing_sources)}{f.quote(f.inputs.strongest_entailment_passage)}."
    ),
}
