"""The verification pipeline, the one place that knows the order of the stages:
answer text -> claims -> evidence -> signals (tier 1, then the optional LLM judge, tier 2) -> rules -> verdicts
-> mitigation -> VerificationReport.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from veriground import __version__
from veriground.backends.protocols import LLM, NLIModel
from veriground.claims import read_claims
from veriground.claims.context import contextual_hypotheses, source_sentences
from veriground.claims.dependencies import defines_term, find_dependency_warnings
from veriground.claims.whole_sentences import join_atoms
from veriground.config import Config
from veriground.domains import (
    DomainProfileSpec,
    apply_threshold_overrides,
    get_profile,
)
from veriground.errors import InputTooLargeError
from veriground.evidence.gather import QUOTE_SCAN_DEPTH, EvidenceSource, interleave, with_deeper_passages
from veriground.evidence.spans import align_sentences
from veriground.heap import fewer_collections
from veriground.manifest import conflict_check_warning, nli_warnings, sha256_text, verification_manifest
from veriground.mitigation.rewrite import ClaimOutcome, rewrite_answer
from veriground.schema import (
    AlignedSpan,
    AnnotatedAnswer,
    CiteEvalSystemExample,
    Claim,
    ClaimDecision,
    ClaimEvidencePair,
    ClaimReport,
    ClaimSignals,
    DependencyWarning,
    EvidenceChunk,
    EvidenceConflict,
    Mitigation,
    VerificationReport,
)
from veriground.signals.conflicts import find_evidence_conflicts
from veriground.signals.llm_judge import judge_claims
from veriground.text.sentences import asks
from veriground.text_input import check_encodable
from veriground.verdicts.aggregator import SupportAggregator, load_aggregator, resolve_thresholds
from veriground.verdicts.claim_decision import claim_signals, decide_claim, decision_inputs, summary_stats
from veriground.verdicts.rules import Decision
from veriground.verdicts.support import judge_evidence

PIPELINE_VERSION = f"veriground-{__version__}/verify.v1"
CONFLICT_CHECK_OFF = "evidence_conflict_check_off: verification.contradictions is false"
CONFLICT_CHECK_UNAVAILABLE = "evidence_conflict_check_unavailable"


@fewer_collections()
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
    check_input_chars(text, config, "the text")
    reading = read_claims(
        text,
        answer_id=answer_id_of(text),
        max_claims=config.verification.max_claims,
        frames=config.verification.frames,
        answers_a_question=query is not None and asks(query),
    )
    claims = reading.claims if config.verification.atomic else join_atoms(text, reading.claims)
    clock.lap("claims")
    report = verify_claims(text, claims, config=config, source=source, nli=nli, query=query, judge=judge, clock=clock)
    # the sentences that made no claim, and why: nothing in the text is skipped silently
    return report.model_copy(update={"unchecked": tuple(reading.unchecked)}) if reading.unchecked else report


def check_input_chars(text: str, config: Config, what: str) -> None:
    """Refuse a text longer than verification.max_input_chars; `what` names it in the message ("the draft")."""
    limit = config.verification.max_input_chars
    if len(text) > limit:
        raise InputTooLargeError(
            f"{what} has {len(text):,} characters, over verification.max_input_chars={limit:,}; "
            "split it or raise the limit with --max-input-chars"
        )


def with_thresholds(config: Config, aggregator: SupportAggregator) -> Config:
    """The config the stages read and the manifest records: unset thresholds filled from the aggregator."""
    return config.model_copy(update={"verification": resolve_thresholds(config.verification, aggregator)})


def answer_id_of(text: str) -> str:
    return "ans_" + sha256_text(text)[:12]


@fewer_collections()
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
    drafted sentences with their citations, so nothing is joined into text and parsed back). The stages, in order:
    evidence, NLI, evidence conflicts, signals, the LLM judge (when given), decisions, mitigation and the report."""
    clock = clock or _StageClock(None)
    clock.expect(VERIFY_STAGES + (judge is not None))
    aggregator = load_aggregator(
        nli.name, config.verification.aggregator, config.verification.aggregator_path, nli_checksum=nli.checksum
    )
    profile = get_profile(config.verification.domain)
    config = _profile_config(config, profile, aggregator)
    found = _gather_evidence(text, claims, source, config)
    clock.lap("evidence")
    hypotheses = {} if query is None else contextual_hypotheses(claims, query)
    nli_signals = judge_evidence(
        claims, found.evidence, nli, aggregator, hypotheses, units_per_passage=config.verification.units_per_passage
    )
    clock.lap("nli")
    conflicts: dict[str, list[EvidenceConflict]] = {}
    conflict_problem = None
    if config.verification.contradictions:
        conflicts, conflict_problem = find_evidence_conflicts(found.aligned, nli, config.verification)
    clock.lap("conflicts")
    all_signals = {
        claim.claim_id: claim_signals(
            claim, found.evidence[claim.claim_id], found.aligned[claim.claim_id], nli_signals[claim.claim_id],
            source, profile,
        )
        for claim in claims
    }  # fmt: skip
    all_conflicts = {claim.claim_id: tuple(conflicts.get(claim.claim_id, ())) for claim in claims}
    clock.lap("signals_and_rules")
    warnings: list[str] = []
    if judge is not None:
        all_signals, warnings = _judge_claims(judge, claims, found.evidence, all_signals, all_conflicts, config)
        clock.lap("llm_judge")
    decided = [
        _decide(claim, found, all_signals[claim.claim_id], all_conflicts[claim.claim_id], config) for claim in claims
    ]
    clock.lap("signals_and_rules")
    # Backend errors reach the manifest's warnings with a fix; summaries and the answer only name what happened.
    warnings += nli_warnings(nli_signals.values())
    if conflict_problem:
        warnings.append(conflict_check_warning(conflict_problem))
    result = _report(text, query, decided, found, config, conflict_problem, warnings, (source, nli, aggregator, judge))
    clock.lap("mitigation_and_report")
    return result


@dataclass(frozen=True)
class _Evidence:
    """What the evidence stage found, per claim id: the sentence each claim came from, its evidence chunks, the
    chunks' sentences aligned to it, and the dependency warnings of the text's terms."""

    sentences: dict[str, str]
    evidence: dict[str, list[EvidenceChunk]]
    aligned: dict[str, list[AlignedSpan]]
    dependencies: dict[str, list[DependencyWarning]]


@dataclass(frozen=True)
class _Decided:
    claim: Claim
    decision: ClaimDecision
    rules: Decision
    signals: ClaimSignals
    conflicts: tuple[EvidenceConflict, ...]


def _profile_config(config: Config, profile: DomainProfileSpec, aggregator: SupportAggregator) -> Config:
    """The config with the domain profile's threshold overrides and the aggregator's thresholds filled in."""
    verification = apply_threshold_overrides(config.verification, profile)
    if profile.strict_dependencies:  # seed 000 §2.5.3: on in the discrete_math profile
        verification = verification.model_copy(update={"strict_dependencies": True})
    return with_thresholds(config.model_copy(update={"verification": verification}), aggregator)


def _gather_evidence(text: str, claims: Sequence[Claim], source: EvidenceSource, config: Config) -> _Evidence:
    sentences = source_sentences(text, claims)
    # An atom split from a longer sentence is looked up by that sentence: "Not only was this shift observed" alone
    # finds passages about any shift; its sentence finds the passage it came from.
    queries = [
        (sentences[claim.claim_id] if claim.parent_claim_id else claim.text, claim.cited_ids) for claim in claims
    ]
    # ... and by its own words too, in turn with its sentence's (a long sentence's words drown the atom's)
    atom_queries = [(claim.text, claim.cited_ids) for claim in claims if claim.parent_claim_id]
    atoms = iter(source.gather(atom_queries) if atom_queries else [])
    evidence = {}
    for claim, found in zip(claims, source.gather(queries), strict=True):
        if claim.parent_claim_id:
            own = next(atoms)
            found = interleave(found, own, max(len(found), len(own)))
        evidence[claim.claim_id] = found
    # Passages past the top-k that state a relation of the claim's the other way round, or the claim word for word.
    top_k = config.retrieval.top_k
    deeper = source.gather(queries, depth=QUOTE_SCAN_DEPTH * top_k)
    for claim, found in zip(claims, deeper, strict=True):
        evidence[claim.claim_id] = with_deeper_passages(claim.text, evidence[claim.claim_id], found, top_k)
    aligned = {
        claim.claim_id: [span for chunk in evidence[claim.claim_id] for span in align_sentences(claim.text, chunk)]
        for claim in claims
    }
    return _Evidence(sentences, evidence, aligned, _dependency_warnings(claims, source, config))


def _decide(
    claim: Claim, found: _Evidence, signals: ClaimSignals, conflicts: tuple[EvidenceConflict, ...], config: Config
) -> _Decided:
    warnings = found.dependencies.get(claim.claim_id, ())
    claim_decision, decision = decide_claim(
        claim,
        found.evidence[claim.claim_id],
        found.aligned[claim.claim_id],
        signals,
        conflicts,
        config.verification,
        sentence=found.sentences[claim.claim_id],
        dependency_warning=warnings[0].reason if warnings else None,
    )
    return _Decided(claim, claim_decision, decision, signals, conflicts)


def _report(
    text: str,
    query: str | None,
    decided: Sequence[_Decided],
    found: _Evidence,
    config: Config,
    conflict_problem: str | None,
    warnings: list[str],
    backends: tuple[EvidenceSource, NLIModel, SupportAggregator, LLM | None],
) -> VerificationReport:
    """Mitigation (keep, flag, suppress, cite) and the report with its manifest."""
    rewritten = rewrite_answer(text, [_outcome(item, found) for item in decided])
    claim_reports = tuple(_claim_report(item, found, rewritten.mitigation[item.claim.claim_id]) for item in decided)
    answer_id = answer_id_of(text)
    decisions = tuple(report.decision for report in claim_reports)
    annotated = AnnotatedAnswer(
        answer_id=answer_id,
        query_id=None if query is None else "q_" + sha256_text(query)[:12],
        raw_answer=text,
        claims=decisions,
        summary_stats=summary_stats(decisions),
        mitigation_actions=_actions(rewritten.actions, claim_reports, config, conflict_problem),
        version=PIPELINE_VERSION,
    )
    source, nli, aggregator, judge = backends
    return VerificationReport(
        manifest=verification_manifest(text, config, (source, nli, aggregator, judge), claim_reports, warnings),
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


def _outcome(item: _Decided, found: _Evidence) -> ClaimOutcome:
    """What mitigation reads of one claim: its decision and the evidence chunks the rules found supporting it."""
    supporting_ids = set(item.rules.inputs.supporting_passages)
    chunks = found.evidence[item.claim.claim_id]
    return ClaimOutcome(item.claim, item.decision, tuple(c for c in chunks if c.passage_id in supporting_ids))


def _claim_report(item: _Decided, found: _Evidence, mitigation: Mitigation) -> ClaimReport:
    claim_id = item.claim.claim_id
    return ClaimReport(
        claim=item.claim,
        decision=item.decision,
        inputs=item.rules.inputs,
        evidence=tuple(found.evidence[claim_id]),
        pair=ClaimEvidencePair(
            claim_id=claim_id,
            evidence_candidates=tuple(chunk.passage_id for chunk in found.evidence[claim_id]),
            top_evidence=item.decision.primary_evidence,
            evidence_spans=tuple(span.span for span in found.aligned[claim_id]),
        ),
        signals=item.signals,
        conflicts=item.conflicts,
        mitigation=mitigation,
        dependency_warnings=tuple(found.dependencies.get(claim_id, ())),
    )


def _actions(
    rewritten: Sequence[str], claims: Sequence[ClaimReport], config: Config, conflict_problem: str | None
) -> tuple[str, ...]:
    """Mitigation's actions, then the evidence-conflict check's: conflicts surfaced, the check unavailable or off."""
    actions = list(rewritten)
    if any(report.conflicts for report in claims):
        actions.append(f"surfaced_evidence_conflicts:{config.verification.contradiction_policy}")
    if conflict_problem:
        actions.append(CONFLICT_CHECK_UNAVAILABLE)
    if not config.verification.contradictions:
        actions.append(CONFLICT_CHECK_OFF)
    return tuple(actions)


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
        inputs = decision_inputs(chunks, signals[claim.claim_id], conflicts[claim.claim_id], config.verification)
        first = inputs.strongest_entailment_passage or (chunks[0].passage_id if chunks else None)
        targets[claim.claim_id] = (first, inputs.strongest_contradiction_passage)
    return judge_claims(judge, claims, evidence, signals, conflicts, targets, repair_retries=config.llm.repair_retries)
