"""Seed 003 §5.2-§7: what of a verified draft reaches the user, and how confident the answer is.

Citation hygiene comes first (§6.3): ids outside the evidence pack and repeated ids are dropped and reported,
and a sentence left with no citation is removed ("no citation, no claim"). Every remaining sentence must then
be Supported by the verification core, and a comparative claim by two passages (§6.2) unless one states it word
for word. The share of drafted sentences that survive sets the confidence label (§7), and below
`answer.min_verified_share` the answer abstains instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from veriground.config import AnswerConfig, VerificationConfig
from veriground.schema import (
    AnswerClaimClass,
    AnswerClaimTrace,
    AnswerConfidence,
    ClaimReport,
    DisplayVerdict,
    DraftClaim,
    EvidenceChunk,
    GroundedClaim,
    RuleName,
    SupportingCitation,
)

# A comparative claim needs this many supporting passages, unless a passage states the comparison itself word for
# word (RuleName.QUOTED decided every atom): two passages guard a comparison drawn across sources, not one a
# textbook makes ("the expected running time of quicksort is no worse when the array holds duplicates").
COMPARATIVE_MIN_PASSAGES = 2
HIGH_RISK = (AnswerClaimClass.COMPARATIVE, AnswerClaimClass.SCOPE)


@dataclass(frozen=True)
class CheckedClaim:
    """A draft claim after hygiene, the text block it became for verification, and its verified atoms."""

    draft: DraftClaim
    cited_ids: tuple[str, ...]
    reports: tuple[ClaimReport, ...]


@dataclass(frozen=True)
class PolicyOutcome:
    claims: tuple[GroundedClaim, ...]
    traces: tuple[AnswerClaimTrace, ...]
    verified_share: float
    confidence: AnswerConfidence
    caveats: tuple[str, ...]


def clean_citations(
    drafts: Sequence[DraftClaim], pack_ids: Sequence[str]
) -> tuple[list[tuple[DraftClaim, tuple[str, ...]]], list[str]]:
    """Each draft with only the pack ids it cites (each once), and a line for every id dropped."""
    known = set(pack_ids)
    cleaned, problems = [], []
    for number, draft in enumerate(drafts, start=1):
        valid = tuple(dict.fromkeys(cited for cited in draft.cited_ids if cited in known))
        for cited in dict.fromkeys(draft.cited_ids):
            if cited not in known:
                problems.append(f"sentence {number} cited {cited!r}, which is not in the evidence pack; dropped")
        if len(draft.cited_ids) > len(set(draft.cited_ids)):
            problems.append(f"sentence {number} cited the same passage more than once; kept one")
        cleaned.append((draft, valid))
    return cleaned, problems


def apply_policy(
    checked: Sequence[CheckedClaim],
    chunks: Mapping[str, EvidenceChunk],
    config: AnswerConfig,
    verification: VerificationConfig,
) -> PolicyOutcome:
    kept, traces, caveats = [], [], []
    for item in checked:
        trace, grounded = _judge(item, chunks, verification)
        traces.append(trace)
        if grounded is not None:
            kept.append(grounded)
        elif trace.verdict == DisplayVerdict.CONTRADICTORY:
            caveats.append(f"a drafted sentence was contradicted by the evidence and removed: {trace.text!r}")
        elif trace.claim_class in HIGH_RISK:
            caveats.append(f"a {trace.claim_class.value} lacked the support it needs and was removed")
    conflicts = sum(len(report.conflicts) for item in checked for report in item.reports)
    if conflicts:
        caveats.append(f"the evidence disagrees with itself in {conflicts} place(s); see the trace")
    share = round(len(kept) / len(checked), 6) if checked else 0.0
    return PolicyOutcome(
        claims=tuple(kept),
        traces=tuple(traces),
        verified_share=share,
        confidence=confidence_label(share, has_caveats=bool(caveats), config=config),
        caveats=tuple(caveats),
    )


def confidence_label(share: float, *, has_caveats: bool, config: AnswerConfig) -> AnswerConfidence:
    """Seed 003 §7: high needs >= 90 % verified and no unresolved high-risk issue; caveats cap it at medium."""
    if share < config.min_verified_share:
        return AnswerConfidence.INSUFFICIENT_EVIDENCE
    if share >= config.high_verified_share and not has_caveats:
        return AnswerConfidence.HIGH
    if share >= config.medium_verified_share:
        return AnswerConfidence.MEDIUM
    return AnswerConfidence.LOW


def _judge(
    item: CheckedClaim, chunks: Mapping[str, EvidenceChunk], verification: VerificationConfig
) -> tuple[AnswerClaimTrace, GroundedClaim | None]:
    draft = item.draft
    base = {"text": draft.text, "claim_class": draft.claim_class, "cited_ids": item.cited_ids}
    if not item.cited_ids:
        return AnswerClaimTrace(
            **base, kept=False, reason="no citation, no claim: it cites no passage of the pack"
        ), None
    if not item.reports:
        return AnswerClaimTrace(**base, kept=False, reason="no checkable claim was found in this sentence"), None
    worst = next((r for r in item.reports if r.decision.status != DisplayVerdict.SUPPORTED), item.reports[0])
    supporting = _supporting_passages(item.reports)
    entailment = min((r.inputs.max_entailment or 0.0) for r in item.reports)
    facts = {"verdict": worst.decision.status, "rule": worst.decision.rule, "entailment_prob": round(entailment, 6)}
    if worst.decision.status != DisplayVerdict.SUPPORTED:
        reason = f"verification: {worst.decision.status} ({worst.decision.rationale})"
        return AnswerClaimTrace(**base, **facts, kept=False, reason=reason, supporting_passages=supporting), None
    stated = all(report.decision.rule == RuleName.QUOTED for report in item.reports)
    if draft.claim_class is AnswerClaimClass.COMPARATIVE and len(supporting) < COMPARATIVE_MIN_PASSAGES and not stated:
        reason = f"a comparative claim needs {COMPARATIVE_MIN_PASSAGES} supporting passages (seed 003 §6.2)"
        return AnswerClaimTrace(**base, **facts, kept=False, reason=reason, supporting_passages=supporting), None
    direct = tuple(pid for pid in item.cited_ids if pid in supporting)
    level = "direct" if direct else "indirect"
    cite = direct or supporting[:2]
    citations = tuple(SupportingCitation(work_id=chunks[pid].doc_id, passage_id=pid) for pid in cite)
    reason = "supported by the passage it cites" if direct else "supported by another passage of the pack"
    trace = AnswerClaimTrace(
        **base, **facts, kept=True, reason=reason, support_level=level, supporting_passages=supporting
    )
    return trace, GroundedClaim(text=draft.text, supporting_citations=citations, support_level=level)


def _supporting_passages(reports: Sequence[ClaimReport]) -> tuple[str, ...]:
    """Passages that support every atom of the sentence, as the rules found them (a passage that also refutes an
    atom makes that atom Low Confidence, and the sentence is dropped before citations matter)."""
    sets = [set(report.inputs.supporting_passages) for report in reports]
    common = set.intersection(*sets) if sets else set()
    order = [chunk.passage_id for report in reports for chunk in report.evidence]
    return tuple(pid for pid in dict.fromkeys(order) if pid in common)
