"""One claim's signals and decision: its evidence and aligned sentences -> the signals the rule table reads
(support per passage, coverage, numbers, citations, formal checks, the domain profile's hooks) -> the rule table's
decision with its display verdict, rationale, plain explanation, confidence and the passage a reader sees first.

The engine (engine.py) gathers evidence for all claims and runs the batched stages (NLI, evidence conflicts, the LLM
judge); everything here is about one claim at a time.
"""

from __future__ import annotations

from collections.abc import Sequence

from veriground.config import VerificationConfig
from veriground.domains import DomainProfileSpec, check_quality, match_evidence, pre_verify
from veriground.evidence.gather import EvidenceSource
from veriground.schema import (
    AlignedSpan,
    CitationSignal,
    Claim,
    ClaimDecision,
    ClaimSignals,
    DecisionInputs,
    DisplayVerdict,
    EvidenceChunk,
    EvidenceConflict,
    EvidenceJudgement,
    FormalSignal,
    NLISignal,
    NumericSignal,
    ProfileSignal,
    RuleName,
    SignalStatus,
    SummaryStats,
)
from veriground.signals import check_citations, compute_coverage, compute_numeric
from veriground.signals.formal import bound_evidence, compute_formal, equation_evidence
from veriground.signals.numeric import NO_EVIDENCE_REASON as NUMERIC_NO_EVIDENCE
from veriground.signals.support_features import is_quoted
from veriground.verdicts.evidence_summary import summarize_evidence
from veriground.verdicts.explain import decision_confidence, display_verdict, rationale
from veriground.verdicts.plain import explain_plainly
from veriground.verdicts.rules import Decision, decide
from veriground.verdicts.source_readings import source_readings

# Numbers are compared only in evidence sentences that carry at least half of the claim's content, so a value about
# something else in the same passage is not read as a mismatch.
NUMERIC_MIN_ALIGNMENT = 0.5
NUMBERED_CITATIONS_REASON = "numbered citations like [1] point into an evidence pack; pass --evidence to check them"
NO_ALIGNED_SENTENCE_REASON = "no evidence sentence carries half of the claim's content"
# Rules that decide on the most contradicting passage: it is the one a reader sees first.
_CONTRADICTION_PRIMARY = frozenset({RuleName.CONTRADICTED, RuleName.HIGH_CONTRADICTION, RuleName.CONFLICTING_VERDICTS})


def claim_signals(
    claim: Claim,
    chunks: Sequence[EvidenceChunk],
    aligned: Sequence[AlignedSpan],
    nli: Sequence[NLISignal],
    source: EvidenceSource,
    profile: DomainProfileSpec,
) -> ClaimSignals:
    """Every tier-1 signal of one claim against its evidence (the NLI's were computed for all claims at once)."""
    texts = [chunk.text for chunk in chunks]
    return ClaimSignals(
        nli=tuple(nli),
        coverage=compute_coverage(claim.text, texts),
        numeric=_numeric(claim, chunks, aligned),
        citation=_citation(claim, chunks, source),
        formal=compute_formal(claim.text, texts, profile),
        profile=_profile_hooks(claim.text, texts, profile),
    )


def decide_claim(
    claim: Claim,
    chunks: Sequence[EvidenceChunk],
    aligned: Sequence[AlignedSpan],
    signals: ClaimSignals,
    conflicts: Sequence[EvidenceConflict],
    verification: VerificationConfig,
    *,
    sentence: str,
    dependency_warning: str | None,
) -> tuple[ClaimDecision, Decision]:
    """The rule table's decision on one claim, and what a reader sees of it."""
    inputs = decision_inputs(
        chunks,
        signals,
        conflicts,
        verification,
        sentence=sentence,
        dependency_warning=dependency_warning,
        claim_text=claim.text,
    )
    decision = decide(inputs, verification)
    claim_decision = ClaimDecision(
        claim_id=claim.claim_id,
        status=display_verdict(decision),
        rationale=rationale(decision, verification, signals.numeric.mismatches, signals.llm_judgements),
        explanation=explain_plainly(decision, signals.numeric, signals.nli, chunks, signals.formal),
        primary_evidence=primary_evidence(decision, chunks, aligned, claim),
        signals_ref=tuple(signal.passage_id for signal in signals.nli if signal.passage_id),
        confidence=decision_confidence(decision, verification),
        verification_status=decision.status,
        reason=decision.reason,
        rule=decision.rule,
    )
    return claim_decision, decision


def decision_inputs(
    chunks: Sequence[EvidenceChunk],
    signals: ClaimSignals,
    conflicts: Sequence[EvidenceConflict],
    verification: VerificationConfig,
    sentence: str | None = None,
    dependency_warning: str | None = None,
    claim_text: str | None = None,
) -> DecisionInputs:
    """What the rule table reads of one claim. With `claim_text`, what the claim's words do against its evidence units
    and sentences is read too (verdicts/source_readings.py: a swap, a scramble, a reversed relation, support only across
    statements, a restriction left out)."""
    unavailable = [signal for signal in signals.nli if signal.status == SignalStatus.UNAVAILABLE]
    judgements = [
        EvidenceJudgement(
            passage_id=chunk.passage_id,
            source_id=chunk.source,
            source_type=chunk.source_type,
            entailment_prob=signal.support_prob,
            contradiction_prob=signal.refute_prob,
            content_sha256=chunk.doc_sha256,
        )
        for chunk, signal in zip(chunks, signals.nli, strict=False)
        if signal.status == SignalStatus.COMPUTED and signal.support_prob is not None
    ]
    quoting: list[EvidenceJudgement] = []
    if sentence:
        by_id = {chunk.passage_id: chunk for chunk in chunks}
        quoting = [item for item in judgements if is_quoted(sentence, by_id[item.passage_id].text)]
    giving = {chunks[index].passage_id for index in _formal_evidence(claim_text, signals.formal, chunks)}
    high_conflicts = sum(1 for conflict in conflicts if conflict.severity == "high")
    threshold = verification.min_entailment_prob  # None before resolve_thresholds
    return summarize_evidence(
        judgements,
        verification,
        evidence_count=len(chunks),
        nli_status=SignalStatus.UNAVAILABLE if unavailable else SignalStatus.COMPUTED,
        nli_reason=unavailable[0].reason if unavailable else None,
        numeric_outcome=signals.numeric.outcome if signals.numeric.status == SignalStatus.COMPUTED else None,
        dangling_citations=signals.citation.dangling_ids,
        high_evidence_conflicts=high_conflicts if verification.contradiction_policy == "abstain_on_high" else 0,
        llm_judgements=signals.llm_judgements,
        quoting=quoting,
        formal_matches=[item for item in judgements if item.passage_id in giving],
        dependency_warning=dependency_warning,
        formal_mismatches=tuple(check.reason for check in (signals.formal.mismatches if signals.formal else ())),
        out_of_scope=next((hook.reason for hook in signals.profile if hook.outcome == "out_of_scope"), None),
        superseded_citations=signals.citation.superseded_ids,
        **(source_readings(claim_text, chunks, signals.nli, threshold) if claim_text else {}),
    )


def _formal_evidence(claim_text: str | None, formal: FormalSignal | None, chunks: Sequence[EvidenceChunk]) -> set[int]:
    """The chunks that give every equation, or every complexity bound, the claim states."""
    if not claim_text:
        return set()
    texts = [chunk.text for chunk in chunks]
    return set(equation_evidence(claim_text, formal)) | set(bound_evidence(claim_text, formal, texts))


def _profile_hooks(
    claim_text: str, evidence_texts: Sequence[str], profile: DomainProfileSpec
) -> tuple[ProfileSignal, ...]:
    """The domain profile's hooks on one claim (a general profile finds nothing to say)."""
    signals = (
        pre_verify(claim_text, profile),
        match_evidence(claim_text, evidence_texts, profile),
        check_quality(claim_text, profile),
    )
    return tuple(signal for signal in signals if signal.status == "computed" and signal.outcome != "ok")


def _numeric(claim: Claim, chunks: Sequence[EvidenceChunk], aligned: Sequence[AlignedSpan]) -> NumericSignal:
    """The claim's quantities against its aligned sentences; a value any of its evidence passages states counts as
    matched (signals/numeric.py: a claim joining two facts of one passage; "Purchases over $10,000 require an intake
    form" against the $75 of a receipts rule that shares two of its words, when another passage says "buying
    something over $10,000")."""
    relevant = [item.span.text for item in aligned if item.alignment >= NUMERIC_MIN_ALIGNMENT]
    signal = compute_numeric(claim.text, relevant, [chunk.text for chunk in chunks])
    if chunks and not relevant and signal.reason == NUMERIC_NO_EVIDENCE:
        return NumericSignal(status=SignalStatus.NOT_APPLICABLE, reason=NO_ALIGNED_SENTENCE_REASON)
    return signal


def _citation(claim: Claim, chunks: Sequence[EvidenceChunk], source: EvidenceSource) -> CitationSignal:
    if source.mode == "corpus" and claim.cited_ids:
        named = tuple(label for label in claim.cited_ids if not label.strip().isdigit())
        if not named:
            return CitationSignal(
                status=SignalStatus.NOT_APPLICABLE, reason=NUMBERED_CITATIONS_REASON, cited_ids=claim.cited_ids
            )
        claim = claim.model_copy(update={"cited_ids": named})
    if source.mode == "pack" and not source.numbers_past_pack_dangle and claim.cited_ids:
        kept = tuple(label for label in claim.cited_ids if not _past_pack(label, len(source.pack_order)))
        if not kept:
            reason = f"its numbered citations point past the {len(source.pack_order)} given passage(s)"
            return CitationSignal(status=SignalStatus.NOT_APPLICABLE, reason=reason, cited_ids=claim.cited_ids)
        claim = claim.model_copy(update={"cited_ids": kept})
    pack_ids = set(source.pack_order) if source.mode == "pack" else {chunk.passage_id for chunk in chunks}
    signal = check_citations(claim, pack_ids, source.resolve, source.pack_order)
    live = [label for label in claim.cited_ids if not label.strip().isdigit() and label not in signal.dangling_ids]
    superseded = source.superseded(live) if live else ()
    return signal.model_copy(update={"superseded_ids": superseded}) if superseded else signal


def _past_pack(label: str, pack_size: int) -> bool:
    number = label.strip().strip("[]").strip()
    return number.isdigit() and int(number) > pack_size


def primary_evidence(
    decision: Decision, chunks: Sequence[EvidenceChunk], aligned: Sequence[AlignedSpan], claim: Claim
) -> str | None:
    """The passage a reader should look at first: the one that decided the verdict."""
    inputs = decision.inputs
    if decision.rule == RuleName.NUMERIC_MISMATCH:
        for item in aligned:
            if item.alignment >= NUMERIC_MIN_ALIGNMENT and compute_numeric(claim.text, [item.span.text]).mismatches:
                return item.span.passage_id
    if decision.rule in _CONTRADICTION_PRIMARY:
        return inputs.strongest_contradiction_passage
    if decision.rule == RuleName.LLM_JUDGE_CONTRADICTED:
        return inputs.llm_judge_passage
    if decision.rule == RuleName.FORMAL_MATCH and inputs.formal_match_passages:
        return inputs.formal_match_passages[0]
    if decision.rule == RuleName.REVERSED_RELATION and inputs.reversed_relation_passage:
        return inputs.reversed_relation_passage
    if decision.rule == RuleName.MISQUOTED and inputs.misquoted_passage:
        return inputs.misquoted_passage
    if decision.rule == RuleName.SWAPPED_TERM and inputs.swapped_term_passage:
        return inputs.swapped_term_passage
    if decision.rule == RuleName.UNSTATED_FORMULA and inputs.unstated_formula_passage:
        return inputs.unstated_formula_passage
    if decision.rule == RuleName.SUBSTITUTED_WORDS and inputs.substituted_passage:
        return inputs.substituted_passage
    if inputs.strongest_entailment_passage:
        return inputs.strongest_entailment_passage
    return chunks[0].passage_id if chunks else None


def summary_stats(decisions: Sequence[ClaimDecision]) -> SummaryStats:
    """The report's verdict counts and mean overall confidence."""

    def count(status: DisplayVerdict) -> int:
        return sum(1 for decision in decisions if decision.status == status)

    confidences = [
        decision.confidence.overall_confidence
        for decision in decisions
        if decision.confidence.overall_confidence is not None
    ]
    return SummaryStats(
        claims_total=len(decisions),
        supported_high=count(DisplayVerdict.SUPPORTED),
        supported_low=count(DisplayVerdict.LOW_CONFIDENCE),
        contradicted=count(DisplayVerdict.CONTRADICTORY),
        insufficient=count(DisplayVerdict.UNSUPPORTED),
        unverified=count(DisplayVerdict.UNVERIFIED),
        mean_overall_confidence=round(sum(confidences) / len(confidences), 3) if confidences else None,
    )
