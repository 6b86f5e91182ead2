"""The verification pipeline, the one place that knows the order of the stages:
answer text -> claims -> evidence -> signals (tier 1, then the optional LLM judge, tier 2) -> rules -> verdicts
-> mitigation -> VerificationReport.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence

from veriground import __version__
from veriground.backends.protocols import LLM, NLIModel
from veriground.claims import extract_claims
from veriground.claims.context import contextual_hypotheses, source_sentences
from veriground.claims.dependencies import defines_term, find_dependency_warnings
from veriground.claims.whole_sentences import join_atoms
from veriground.config import Config
from veriground.domains import (
    DomainProfileSpec,
    apply_threshold_overrides,
    check_quality,
    get_profile,
    match_evidence,
    pre_verify,
)
from veriground.errors import InputTooLargeError
from veriground.evidence.gather import EvidenceSource
from veriground.evidence.spans import align_sentences
from veriground.manifest import build_manifest, sha256_text
from veriground.mitigation.rewrite import ClaimOutcome, rewrite_answer
from veriground.schema import (
    AlignedSpan,
    AnnotatedAnswer,
    BackendInfo,
    CitationSignal,
    CiteEvalSystemExample,
    Claim,
    ClaimDecision,
    ClaimEvidencePair,
    ClaimReport,
    ClaimSignals,
    DecisionInputs,
    DependencyWarning,
    EvidenceChunk,
    EvidenceConflict,
    EvidenceJudgement,
    NLISignal,
    NumericSignal,
    ReportManifest,
    SignalStatus,
    SummaryStats,
    VerificationReport,
)
from veriground.signals import (
    check_citations,
    compute_coverage,
    compute_numeric,
)
from veriground.signals.conflicts import find_evidence_conflicts
from veriground.signals.formal import compute_formal
from veriground.signals.llm_judge import JUDGE_NAME, judge_claims
from veriground.signals.numeric import NO_EVIDENCE_REASON as NUMERIC_NO_EVIDENCE
from veriground.signals.support_features import is_quoted
from veriground.text_input import check_encodable
from veriground.verdicts.aggregator import SupportAggregator, load_aggregator, resolve_thresholds
from veriground.verdicts.explain import decision_confidence, display_verdict, rationale
from veriground.verdicts.plain import explain_plainly
from veriground.verdicts.rules import Decision, decide, summarize_evidence
from veriground.verdicts.support import judge_evidence

PIPELINE_VERSION = f"veriground-{__version__}/verify.v1"
# Numbers are compared only in evidence sentences that carry at least half of the claim's content, so a
# value about something else in the same passage is not read as a mismatch.
NUMERIC_MIN_ALIGNMENT = 0.5
NUMBERED_CITATIONS_REASON = "numbered citations like [1] point into an evidence pack; pass --evidence to check them"
NO_ALIGNED_SENTENCE_REASON = "no evidence sentence carries half of the claim's content"
CONFLICT_CHECK_OFF = "evidence_conflict_check_off: verification.contradictions is false"
CONFLICT_CHECK_UNAVAILABLE = "evidence_conflict_check_unavailable"


def nli_warnings(signals_per_claim: Iterable[Sequence[NLISignal]]) -> list[str]:
    """One manifest warning per distinct reason the NLI could not score a claim's evidence, with a fix."""
    reasons = dict.fromkeys(
        signal.reason
        for signals in signals_per_claim
        for signal in signals
        if signal.status == SignalStatus.UNAVAILABLE and signal.reason
    )
    return [
        f"the NLI could not score some evidence ({reason}); those claims are Unverified. "
        "Fix: shorten the claims it names, or choose another NLI (--nli)"
        for reason in reasons
    ]


def conflict_check_warning(problem: str) -> str:
    """The manifest warning for an evidence-conflict check that could not run: the NLI's error and a fix."""
    return (
        f"the evidence-conflict check could not run ({problem}); disagreeing sources were not looked for. "
        "Fix: shorten the sentences it names, choose another NLI (--nli), or turn the check off "
        "(verification.contradictions = false)"
    )


def verify_text(
    text: str,
    *,
    config: Config,
    source: EvidenceSource,
    nli: NLIModel,
    query: str | None = None,
    stage_seconds: dict[str, float] | None = None,
    judge: LLM | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> VerificationReport:
    """Verify every atomic claim of `text` against `source`; same inputs and config give the same report.

    `judge`, when given, is the tier-2 LLM judge (seed 004 §3.6): it reads each claim's strongest-entailment and
    strongest-contradiction passages, and the passage pairs of its evidence conflicts; the rules let it lower a
    verdict, never raise one. `stage_seconds`, when given, receives the wall time of each stage (for
    benchmarks; never in the report). `on_progress(done, total)` counts the stages as they finish.
    """
    clock = _StageClock(stage_seconds, on_progress)
    check_encodable(text, "the text to verify")
    if query is not None:
        check_encodable(query, "the query")
    limit = config.verification.max_input_chars
    if len(text) > limit:
        raise InputTooLargeError(
            f"the text has {len(text):,} characters, over verification.max_input_chars={limit:,}; "
            "split it or raise the limit with --max-input-chars"
        )
    claims = extract_claims(text, answer_id=answer_id_of(text), max_claims=config.verification.max_claims)
    if not config.verification.atomic:
        claims = join_atoms(text, claims)
    clock.lap("claims")
    return verify_claims(
        text, claims, config=config, source=source, nli=nli, query=query, judge=judge, clock=clock
    )


def with_thresholds(config: Config, aggregator: SupportAggregator) -> Config:
    """The config the stages read and the manifest records: unset thresholds filled from the aggregator."""
    return config.model_copy(update={"verification": resolve_thresholds(config.verification, aggregator)})


def answer_id_of(text: str) -> str:
    return "ans_" + sha256_text(text)[:12]


def verify_claims(
    text: str,
    claims: Sequence[Claim],
    *,
    config: Config,
    source: EvidenceSource,
    nli: NLIModel,
    query: str | None = None,
    judge: LLM | None = None,
    clock: _StageClock | None = None,
) -> VerificationReport:
    """Verify claims already extracted from `text` (their spans index into it; grounded QA builds them from its
    drafted sentences with their citations, so nothing is joined into text and parsed back)."""
    clock = clock or _StageClock(None)
    clock.expect(VERIFY_STAGES + (judge is not None))
    answer_id = answer_id_of(text)
    aggregator = load_aggregator(nli.name, config.verification.aggregator, config.verification.aggregator_path)
    profile = get_profile(config.verification.domain)
    verification = apply_threshold_overrides(config.verification, profile)
    if profile.strict_dependencies:  # seed 000 §2.5.3: on in the discrete_math profile
        verification = verification.model_copy(update={"strict_dependencies": True})
    config = with_thresholds(config.model_copy(update={"verification": verification}), aggregator)
    sentences = source_sentences(text, claims)
    # An atom split from a longer sentence is looked up by that sentence: "Not only was this shift observed" alone
    # finds passages about any shift; its sentence finds the passage it came from.
    queries = [
        (sentences[claim.claim_id] if claim.parent_claim_id else claim.text, claim.cited_ids) for claim in claims
    ]
    evidence = dict(zip((claim.claim_id for claim in claims), source.gather(queries), strict=True))
    aligned = {
        claim.claim_id: [span for chunk in evidence[claim.claim_id] for span in align_sentences(claim.text, chunk)]
        for claim in claims
    }
    dependencies = _dependency_warnings(claims, source, config)
    clock.lap("evidence")
    hypotheses = {} if query is None else contextual_hypotheses(claims, query)
    nli_signals = judge_evidence(claims, evidence, nli, aggregator, hypotheses)
    clock.lap("nli")
    conflicts: dict[str, list[EvidenceConflict]] = {}
    conflict_problem = None
    if config.verification.contradictions:
        conflicts, conflict_problem = find_evidence_conflicts(aligned, nli, config.verification)
    clock.lap("conflicts")

    all_signals = {
        claim.claim_id: ClaimSignals(
            nli=tuple(nli_signals[claim.claim_id]),
            coverage=compute_coverage(claim.text, [chunk.text for chunk in evidence[claim.claim_id]]),
            numeric=_numeric(claim, evidence[claim.claim_id], aligned[claim.claim_id]),
            citation=_citation(claim, evidence[claim.claim_id], source),
            formal=compute_formal(claim.text, [chunk.text for chunk in evidence[claim.claim_id]], profile),
            profile=_profile_hooks(claim.text, [chunk.text for chunk in evidence[claim.claim_id]], profile),
        )
        for claim in claims
    }
    all_conflicts = {claim.claim_id: tuple(conflicts.get(claim.claim_id, ())) for claim in claims}
    clock.lap("signals_and_rules")
    judge_warnings: list[str] = []
    if judge is not None:
        all_signals, judge_warnings = _judge_claims(judge, claims, evidence, all_signals, all_conflicts, config)
        clock.lap("llm_judge")

    reports, outcomes = [], []
    for claim in claims:
        chunks, signals = evidence[claim.claim_id], all_signals[claim.claim_id]
        claim_conflicts = all_conflicts[claim.claim_id]
        warnings = dependencies.get(claim.claim_id, ())
        inputs = _decision_inputs(
            chunks,
            signals,
            claim_conflicts,
            config,
            sentence=sentences[claim.claim_id],
            dependency_warning=warnings[0].reason if warnings else None,
        )
        decision = decide(inputs, config.verification)
        claim_decision = ClaimDecision(
            claim_id=claim.claim_id,
            status=display_verdict(decision),
            rationale=rationale(decision, config.verification, signals.numeric.mismatches, signals.llm_judgements),
            explanation=explain_plainly(decision, signals.numeric, signals.nli, chunks),
            primary_evidence=_primary_evidence(decision, chunks, aligned[claim.claim_id], claim),
            signals_ref=tuple(signal.passage_id for signal in signals.nli if signal.passage_id),
            confidence=decision_confidence(decision, config.verification),
            verification_status=decision.status,
            reason=decision.reason,
            rule=decision.rule,
        )
        supporting_ids = set(decision.inputs.supporting_passages)
        supporting = tuple(chunk for chunk in chunks if chunk.passage_id in supporting_ids)
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
            dependency_warnings=tuple(dependencies.get(claim.claim_id, ())),
        )
        for claim, claim_decision, decision, chunks, pair, signals, claim_conflicts in reports
    )
    actions = list(rewritten.actions)
    if any(report.conflicts for report in claim_reports):
        actions.append(f"surfaced_evidence_conflicts:{config.verification.contradiction_policy}")
    # Backend errors reach the manifest's warnings with a fix; summaries and the answer only name what happened.
    warnings = [*judge_warnings, *nli_warnings(nli_signals.values())]
    if conflict_problem:
        actions.append(CONFLICT_CHECK_UNAVAILABLE)
        warnings.append(conflict_check_warning(conflict_problem))
    if not config.verification.contradictions:
        actions.append(CONFLICT_CHECK_OFF)
    decisions = tuple(report.decision for report in claim_reports)
    annotated = AnnotatedAnswer(
        answer_id=answer_id,
        query_id=None if query is None else "q_" + sha256_text(query)[:12],
        raw_answer=text,
        claims=decisions,
        summary_stats=_summary(decisions),
        mitigation_actions=tuple(actions),
        version=PIPELINE_VERSION,
    )
    result = VerificationReport(
        manifest=_manifest(text, config, source, nli, aggregator, judge, claim_reports, warnings),
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


# Laps of one verification: claims, evidence, nli, conflicts, signals_and_rules twice, mitigation_and_report
# (+ llm_judge with a judge). Only a progress bar reads the count.
VERIFY_STAGES = 7


class _StageClock:
    """Adds the time since the last lap to `into[stage]` (nothing without a dict); reports laps to `on_progress`."""

    def __init__(self, into: dict[str, float] | None, on_progress: Callable[[int, int], None] | None = None) -> None:
        self._into = into
        self._last = time.perf_counter()
        self._on_progress = on_progress
        self._laps = 0
        self._expected = VERIFY_STAGES

    def expect(self, laps: int) -> None:
        self._expected = laps

    def lap(self, stage: str) -> None:
        self._laps += 1
        if self._on_progress is not None:
            self._on_progress(min(self._laps, self._expected), self._expected)
        if self._into is None:
            return
        now = time.perf_counter()
        self._into[stage] = self._into.get(stage, 0.0) + now - self._last
        self._last = now


def _decision_inputs(
    chunks: Sequence[EvidenceChunk],
    signals: ClaimSignals,
    conflicts: Sequence[EvidenceConflict],
    config: Config,
    sentence: str | None = None,
    dependency_warning: str | None = None,
) -> DecisionInputs:
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
    verification = config.verification
    high_conflicts = sum(1 for conflict in conflicts if conflict.severity == "high")
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
        dependency_warning=dependency_warning,
        formal_mismatches=tuple(check.reason for check in (signals.formal.mismatches if signals.formal else ())),
        out_of_scope=next((hook.reason for hook in signals.profile if hook.outcome == "out_of_scope"), None),
        superseded_citations=signals.citation.superseded_ids,
    )


def _profile_hooks(claim_text: str, evidence_texts: Sequence[str], profile: DomainProfileSpec) -> tuple:
    """The domain profile's hooks on one claim (a general profile finds nothing to say)."""
    signals = (
        pre_verify(claim_text, profile),
        match_evidence(claim_text, evidence_texts, profile),
        check_quality(claim_text, profile),
    )
    return tuple(signal for signal in signals if signal.status == "computed" and signal.outcome != "ok")


def _dependency_warnings(
    claims: Sequence[Claim], source: EvidenceSource, config: Config
) -> dict[str, list[DependencyWarning]]:
    """Seed 000 §2.5 per claim id; a term the text never defines is checked against the corpus's own definitions."""
    if not config.verification.dependencies:
        return {}

    def corpus_defines(term: str) -> bool:
        [found] = source.gather([(f"{term} is defined as", ())])
        return any(defines_term(chunk.text, term) for chunk in found)

    by_claim: dict[str, list[DependencyWarning]] = {}
    for warning in find_dependency_warnings(claims, corpus_defines):
        by_claim.setdefault(warning.claim_id, []).append(warning)
    return by_claim


def _judge_claims(
    judge: LLM,
    claims: Sequence[Claim],
    evidence: dict[str, list[EvidenceChunk]],
    signals: dict[str, ClaimSignals],
    conflicts: dict[str, tuple[EvidenceConflict, ...]],
    config: Config,
) -> tuple[dict[str, ClaimSignals], list[str]]:
    """Tier 2 on the passages tier 1 singled out: per claim, its most entailing passage (the top-ranked one when
    NLI ranked none) and, when different, its most contradicting one; plus each evidence conflict's pair."""
    targets = {}
    for claim in claims:
        chunks = evidence[claim.claim_id]
        inputs = _decision_inputs(chunks, signals[claim.claim_id], conflicts[claim.claim_id], config)
        first = inputs.strongest_entailment_passage or (chunks[0].passage_id if chunks else None)
        targets[claim.claim_id] = (first, inputs.strongest_contradiction_passage)
    return judge_claims(judge, claims, evidence, signals, conflicts, targets, repair_retries=config.llm.repair_retries)


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
    signal = check_citations(claim, pack_ids, source.resolve, source.pack_order)
    named = [label for label in claim.cited_ids if not label.strip().isdigit() and label not in signal.dangling_ids]
    superseded = source.superseded(named) if named else ()
    return signal.model_copy(update={"superseded_ids": superseded}) if superseded else signal


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
    if decision.rule == "llm-judge-contradicted":
        return inputs.llm_judge_passage
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
    text: str,
    config: Config,
    source: EvidenceSource,
    nli: NLIModel,
    aggregator: SupportAggregator,
    judge: LLM | None,
    claims: Sequence[ClaimReport],
    judge_warnings: Sequence[str],
) -> ReportManifest:
    backends = [BackendInfo(role="nli", name=nli.name, model_id=nli.model_id, checksum=nli.checksum)]
    aggregator_id = (
        f"logistic support/refute model fitted for {aggregator.nli_name}"
        if aggregator.calibrated
        else f"the NLI's own probabilities ({aggregator.nli_name}); no calibrated aggregator applies"
    )
    backends.append(
        BackendInfo(role="aggregator", name=aggregator.name, model_id=aggregator_id, checksum=aggregator.data_sha256)
    )
    backends += source.backends()
    if judge is not None:
        backends.append(
            BackendInfo(role="llm", name=f"{JUDGE_NAME}/{judge.name}", model_id=judge.model_id, checksum=judge.checksum)
        )
    return build_manifest(
        input_text=text,
        config=config,
        backends=backends,
        evidence_mode=source.mode,
        evidence=[chunk for report in claims for chunk in report.evidence],
        warnings=[*source.notes(), *judge_warnings],
    )
