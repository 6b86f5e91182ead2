"""The evidence-sufficiency decision (seed 000) as one ordered rule table: DecisionInputs -> Decision.

The first rule whose condition holds decides. Two departures from the seed's pseudocode, both deliberate:
- `nli-unavailable` sits after `no-evidence`: a claim whose NLI could not run is UNVERIFIED, never judged
  on defaults (house rule: an uncomputed signal never turns into "supported").
- `conflicting-verdicts` sits before `high-contradiction`. In the seed's order it can never fire (every
  claim it would catch was already caught as high contradiction), yet the seed's own table names
  "entailment + contradiction" as a distinct case. Here it fires when one passage entails strongly and a
  *different* passage contradicts strongly; `high-contradiction` covers contradiction without that split.
Independent sources are counted over passages that entail (seed 000 T2: ">= 2 independent sources with
entailment probability >= 0.60"), by (source_id, source_type).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from veriground.config import VerificationConfig
from veriground.schema import (
    DecisionInputs,
    EvidenceJudgement,
    RejectionReason,
    SignalStatus,
    VerificationStatus,
)

Condition = Callable[[DecisionInputs, VerificationConfig], bool]


@dataclass(frozen=True)
class Rule:
    name: str
    when: Condition
    status: VerificationStatus
    reason: RejectionReason


@dataclass(frozen=True)
class Decision:
    rule: str
    status: VerificationStatus
    reason: RejectionReason
    inputs: DecisionInputs


def has_no_evidence(inputs: DecisionInputs, _: VerificationConfig) -> bool:
    return inputs.evidence_count == 0


def nli_unavailable(inputs: DecisionInputs, _: VerificationConfig) -> bool:
    return inputs.nli_status != SignalStatus.COMPUTED or inputs.max_entailment is None


def entailment_below_min(inputs: DecisionInputs, config: VerificationConfig) -> bool:
    return inputs.max_entailment < config.min_entailment_prob


def too_few_sources(inputs: DecisionInputs, config: VerificationConfig) -> bool:
    return inputs.entailing_sources < config.min_supporting_sources


def entailment_and_contradiction_split(inputs: DecisionInputs, config: VerificationConfig) -> bool:
    return (
        contradiction_above_max(inputs, config)
        and inputs.max_entailment >= config.min_entailment_prob
        and inputs.strongest_contradiction_passage != inputs.strongest_entailment_passage
    )


def contradiction_above_max(inputs: DecisionInputs, config: VerificationConfig) -> bool:
    return inputs.max_contradiction is not None and inputs.max_contradiction > config.max_contradiction_prob


def always(_: DecisionInputs, __: VerificationConfig) -> bool:
    return True


RULES: tuple[Rule, ...] = (
    Rule("no-evidence", has_no_evidence, VerificationStatus.REJECTED, RejectionReason.NO_EVIDENCE),
    Rule("nli-unavailable", nli_unavailable, VerificationStatus.UNVERIFIED, RejectionReason.SIGNAL_UNAVAILABLE),
    Rule("low-entailment", entailment_below_min, VerificationStatus.REJECTED, RejectionReason.LOW_ENTAILMENT),
    Rule(
        "insufficient-sources",
        too_few_sources,
        VerificationStatus.LOW_CONFIDENCE,
        RejectionReason.INSUFFICIENT_SOURCES,
    ),
    Rule(
        "conflicting-verdicts",
        entailment_and_contradiction_split,
        VerificationStatus.LOW_CONFIDENCE,
        RejectionReason.CONFLICTING_VERDICTS,
    ),
    Rule(
        "high-contradiction",
        contradiction_above_max,
        VerificationStatus.LOW_CONFIDENCE,
        RejectionReason.HIGH_CONTRADICTION,
    ),
    Rule("sufficient-evidence", always, VerificationStatus.VERIFIED, RejectionReason.SUFFICIENT_EVIDENCE),
)


def summarize_evidence(
    judgements: Sequence[EvidenceJudgement],
    config: VerificationConfig,
    *,
    nli_status: SignalStatus = SignalStatus.COMPUTED,
    nli_reason: str | None = None,
) -> DecisionInputs:
    """Reduce per-passage NLI judgements to the values the rules read; ties go to the earlier passage."""
    if not judgements or nli_status != SignalStatus.COMPUTED:
        return DecisionInputs(evidence_count=len(judgements), nli_status=nli_status, nli_reason=nli_reason)
    best_entail = max(judgements, key=lambda item: item.entailment_prob)
    best_contra = max(judgements, key=lambda item: item.contradiction_prob)
    entailing = {
        (item.source_id, item.source_type) for item in judgements if item.entailment_prob >= config.min_entailment_prob
    }
    return DecisionInputs(
        evidence_count=len(judgements),
        nli_status=nli_status,
        max_entailment=best_entail.entailment_prob,
        max_contradiction=best_contra.contradiction_prob,
        entailing_sources=len(entailing),
        strongest_entailment_passage=best_entail.passage_id,
        strongest_contradiction_passage=best_contra.passage_id,
    )


def decide(inputs: DecisionInputs, config: VerificationConfig, rules: Sequence[Rule] = RULES) -> Decision:
    """Apply the ordered rule table; the last rule always matches."""
    for rule in rules:
        if rule.when(inputs, config):
            return Decision(rule.name, rule.status, rule.reason, inputs)
    raise AssertionError("the rule table must end with a rule that always matches")
