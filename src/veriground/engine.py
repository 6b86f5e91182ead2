"""The verification pipeline, the one place that knows the order of the stages:
answer text -> claims -> evidence -> signals -> rules -> verdicts -> mitigation -> VerificationReport.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from typing import Literal

from veriground import __version__
from veriground.backends.protocols import NLIModel
from veriground.claims import extract_claims
from veriground.config import Config
from veriground.errors import InputTextError
from veriground.evidence.gather import EvidenceSource
from veriground.evidence.spans import AlignedSpan, align_sentences
from veriground.mitigation.rewrite import ClaimOutcome, rewrite_answer
from veriground.schema import (
    AnnotatedAnswer,
    BackendInfo,
    CitationSignal,
    CiteEvalSystemExample,
    Claim,
    ClaimDecision,
    ClaimEvidencePair,
    ClaimReport,
    ClaimSignals,
    EvidenceChunk,
    EvidenceConflict,
    EvidenceJudgement,
    NumericSignal,
    ReportManifest,
    SignalStatus,
    SummaryStats,
    VerificationReport,
)
from veriground.signals import check_citations, compute_coverage, compute_nli, compute_numeric
from veriground.signals.conflicts import find_evidence_conflicts
from veriground.signals.numeric import NO_EVIDENCE_REASON as NUMERIC_NO_EVIDENCE
from veriground.verdicts.explain import decision_confidence, display_verdict, rationale
from veriground.verdicts.rules import Decision, decide, summarize_evidence

PIPELINE_VERSION = f"veriground-{__version__}/verify.v1"
# Numbers are compared only in evidence sentences that carry at least half of the claim's content, so a
# value about something else in the same passage is not read as a mismatch.
NUMERIC_MIN_ALIGNMENT = 0.5
NUMBERED_CITATIONS_REASON = "numbered citations like [1] point into an evidence pack; pass --evidence to check them"
NO_ALIGNED_SENTENCE_REASON = "no evidence sentence carries half of the claim's content"


def verify_text(
    text: str,
    *,
    config: Config,
    source: EvidenceSource,
    nli: NLIModel,
    query: str | None = None,
    stage_seconds: dict[str, float] | None = None,
) -> VerificationReport:
    """Verify every atomic claim of `text` against `source`; same inputs and config give the same report.

    `stage_seconds`, when given, receives the wall time of each stage (for benchmarks; never in the report).
    """
    clock = _StageClock(stage_seconds)
    limit = config.verification.max_input_chars
    if len(text) > limit:
        raise InputTextError(
            f"the text has {len(text):,} characters, over verification.max_input_chars={limit:,}; "
            "split it or raise the limit with --max-input-chars"
        )
    answer_id = "ans_" + _sha256(text)[:12]
    claims = extract_claims(text, answer_id=answer_id, max_claims=config.verification.max_claims)
    clock.lap("claims")
    evidence = dict(
        zip(
            (claim.claim_id for claim in claims),
            source.gather([(claim.text, claim.cited_ids) for claim in claims]),
            strict=True,
        )
    )
    aligned = {
        claim.claim_id: [span for chunk in evidence[claim.claim_id] for span in align_sentences(claim.text, chunk)]
        for claim in claims
    }
    clock.lap("evidence")
    nli_signals = compute_nli(claims, evidence, nli)
    clock.lap("nli")
    conflicts, conflict_problem = find_evidence_conflicts(aligned, nli, config.verification)
    clock.lap("conflicts")

    reports, outcomes = [], []
    for claim in claims:
        chunks = evidence[claim.claim_id]
        signals = ClaimSignals(
            nli=tuple(nli_signals[claim.claim_id]),
            coverage=compute_coverage(claim.text, [chunk.text for chunk in chunks]),
            numeric=_numeric(claim, chunks, aligned[claim.claim_id]),
            citation=_citation(claim, chunks, source),
        )
        claim_conflicts = tuple(conflicts.get(claim.claim_id, ()))
        decision = _decide(claim, chunks, signals, claim_conflicts, config)
        claim_decision = ClaimDecision(
            claim_id=claim.claim_id,
            status=display_verdict(decision),
            rationale=rationale(decision, config.verification, signals.numeric.mismatches),
            primary_evidence=_primary_evidence(decision, chunks, aligned[claim.claim_id], claim),
            signals_ref=tuple(signal.passage_id for signal in signals.nli if signal.passage_id),
            confidence=decision_confidence(decision, config.verification),
            verification_status=decision.status,
            reason=decision.reason,
            rule=decision.rule,
        )
        supporting = tuple(
            chunk
            for chunk, signal in zip(chunks, signals.nli, strict=False)
            if signal.entailment_prob is not None and signal.entailment_prob >= config.verification.min_entailment_prob
        )
        outcomes.append(ClaimOutcome(claim, claim_decision, supporting))
        pair = ClaimEvidencePair(
            claim_id=claim.claim_id,
            evidence_candidates=tuple(chunk.passage_id for chunk in chunks),
            top_evidence=claim_decision.primary_evidence,
            evidence_spans=tuple(item.span for item in aligned[claim.claim_id]),
        )
        reports.append((claim, claim_decision, decision, chunks, pair, signals, claim_conflicts))
    clock.lap("signals_and_rules")

    rewritten = rewrite_answer(text, outcomes)
    claim_reports = tuple(
        ClaimReport(
            claim=claim,
            decision=claim_decision,
            inputs=decision.inputs,
            evidence=tuple(chunks),
            pair=pair,
            signals=signals,
            conflicts=claim_conflicts,
            mitigation=rewritten.mitigation[claim.claim_id],
        )
        for claim, claim_decision, decision, chunks, pair, signals, claim_conflicts in reports
    )
    actions = list(rewritten.actions)
    if any(report.conflicts for report in claim_reports):
        actions.append(f"surfaced_evidence_conflicts:{config.verification.contradiction_policy}")
    if conflict_problem:
        actions.append(f"evidence_conflict_check_unavailable: {conflict_problem}")
    decisions = tuple(report.decision for report in claim_reports)
    annotated = AnnotatedAnswer(
        answer_id=answer_id,
        query_id=None if query is None else "q_" + _sha256(query)[:12],
        raw_answer=text,
        claims=decisions,
        summary_stats=_summary(decisions),
        mitigation_actions=tuple(actions),
        version=PIPELINE_VERSION,
    )
    result = VerificationReport(
        manifest=_manifest(text, config, source, nli, claim_reports),
        annotated_answer=annotated,
        claims=claim_reports,
        final_response=rewritten.final_response,
        citations=rewritten.citations,
        citeeval=CiteEvalSystemExample(
            id=answer_id,
            query=query or "",
            passages=rewritten.citations.passages,
            pred=rewritten.citations.formatted_text,
        ),
    )
    clock.lap("mitigation_and_report")
    return result


class _StageClock:
    """Adds the time since the last lap to `into[stage]`; does nothing without a dict."""

    def __init__(self, into: dict[str, float] | None) -> None:
        self._into = into
        self._last = time.perf_counter()

    def lap(self, stage: str) -> None:
        if self._into is None:
            return
        now = time.perf_counter()
        self._into[stage] = self._into.get(stage, 0.0) + now - self._last
        self._last = now


def _decide(
    claim: Claim,
    chunks: Sequence[EvidenceChunk],
    signals: ClaimSignals,
    conflicts: Sequence[EvidenceConflict],
    config: Config,
) -> Decision:
    unavailable = [signal for signal in signals.nli if signal.status == SignalStatus.UNAVAILABLE]
    judgements = [
        EvidenceJudgement(
            passage_id=chunk.passage_id,
            source_id=chunk.source,
            source_type=chunk.source_type,
            entailment_prob=signal.entailment_prob,
            contradiction_prob=signal.contradiction_prob,
        )
        for chunk, signal in zip(chunks, signals.nli, strict=False)
        if signal.status == SignalStatus.COMPUTED
    ]
    verification = config.verification
    high_conflicts = sum(1 for conflict in conflicts if conflict.severity == "high")
    inputs = summarize_evidence(
        judgements,
        verification,
        evidence_count=len(chunks),
        nli_status=SignalStatus.UNAVAILABLE if unavailable else SignalStatus.COMPUTED,
        nli_reason=unavailable[0].reason if unavailable else None,
        numeric_outcome=signals.numeric.outcome if signals.numeric.status == SignalStatus.COMPUTED else None,
        dangling_citations=signals.citation.dangling_ids,
        high_evidence_conflicts=high_conflicts if verification.contradiction_policy == "abstain_on_high" else 0,
    )
    return decide(inputs, verification)


def _numeric(claim: Claim, chunks: Sequence[EvidenceChunk], aligned: Sequence[AlignedSpan]) -> NumericSignal:
    relevant = [item.span.text for item in aligned if item.alignment >= NUMERIC_MIN_ALIGNMENT]
    signal = compute_numeric(claim.text, relevant)
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
    pack_ids = set(source.pack_order) if source.mode == "pack" else {chunk.passage_id for chunk in chunks}
    return check_citations(claim, pack_ids, source.resolve, source.pack_order)


def _primary_evidence(
    decision: Decision, chunks: Sequence[EvidenceChunk], aligned: Sequence[AlignedSpan], claim: Claim
) -> str | None:
    """The passage a reader should look at first: the one that decided the verdict."""
    inputs = decision.inputs
    if decision.rule == "numeric-mismatch":
        for item in aligned:
            if item.alignment >= NUMERIC_MIN_ALIGNMENT and compute_numeric(claim.text, [item.span.text]).mismatches:
                return item.span.passage_id
    if decision.rule in {"contradicted", "high-contradiction", "conflicting-verdicts"}:
        return inputs.strongest_contradiction_passage
    if inputs.strongest_entailment_passage:
        return inputs.strongest_entailment_passage
    return chunks[0].passage_id if chunks else None


def _summary(decisions: Sequence[ClaimDecision]) -> SummaryStats:
    def count(status: str) -> int:
        return sum(1 for decision in decisions if decision.status == status)

    confidences = [
        decision.confidence.overall_confidence
        for decision in decisions
        if decision.confidence.overall_confidence is not None
    ]
    return SummaryStats(
        claims_total=len(decisions),
        supported_high=count("Supported"),
        supported_low=count("Low Confidence"),
        contradicted=count("Contradictory"),
        insufficient=count("Unsupported"),
        unverified=count("Unverified"),
        mean_overall_confidence=round(sum(confidences) / len(confidences), 3) if confidences else None,
    )


def _manifest(
    text: str, config: Config, source: EvidenceSource, nli: NLIModel, claims: Sequence[ClaimReport]
) -> ReportManifest:
    backends = [BackendInfo(role="nli", name=nli.name, model_id=nli.model_id, checksum=nli.checksum)]
    return build_manifest(
        input_text=text,
        config=config,
        backends=[*backends, *source.backends()],
        evidence_mode=source.mode,
        evidence=[chunk for report in claims for chunk in report.evidence],
        warnings=source.notes(),
    )


def build_manifest(
    *,
    input_text: str,
    config: Config,
    backends: Sequence[BackendInfo],
    evidence_mode: Literal["corpus", "pack"],
    evidence: Sequence[EvidenceChunk],
    warnings: Sequence[str],
) -> ReportManifest:
    """What produced a report: version, config, backends with checksums, and hashes of the input and evidence."""
    return ReportManifest(
        warnings=tuple(warnings),
        package_version=__version__,
        config=config.model_dump(mode="json"),
        backends=tuple(backends),
        evidence_mode=evidence_mode,
        input_sha256=_sha256(input_text),
        evidence_sha256=dict(sorted({chunk.passage_id: _sha256(chunk.text) for chunk in evidence}.items())),
    )


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
