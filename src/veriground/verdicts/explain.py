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

from collections.abc import Sequence

from veriground.config import VerificationConfig
from veriground.schema import (
    DecisionConfidence,
    DecisionInputs,
    DisplayVerdict,
    RejectionReason,
    SupportJudgement,
    VerificationStatus,
)
from veriground.verdicts.rules import Decision, contradiction_above_max, known_probability

HIGH_BAND, MEDIUM_BAND = 0.70, 0.40
STRICT_DEPENDENCY_CAP = 0.65  # seed 000 §2.5.3
# Rules that reject a claim whatever the NLI reads: confidence 0.
HARD_REJECTIONS = frozenset(
    {"dangling-citation", "numeric-mismatch", "formal-mismatch", "no-evidence", "llm-judge-contradicted"}
)
_CONTRADICTING_REASONS = {
    RejectionReason.HIGH_CONTRADICTION,
    RejectionReason.NUMERIC_MISMATCH,
    RejectionReason.FORMAL_MISMATCH,
}
_DECIMALS = 3


def display_verdict(decision: Decision) -> DisplayVerdict:
    if decision.status == VerificationStatus.VERIFIED:
        return "Supported"
    if decision.status == VerificationStatus.LOW_CONFIDENCE:
        return "Low Confidence"
    if decision.status == VerificationStatus.UNVERIFIED:
        return "Unverified"
    return "Contradictory" if decision.reason in _CONTRADICTING_REASONS else "Unsupported"


def decision_confidence(decision: Decision, config: VerificationConfig) -> DecisionConfidence:
    inputs = decision.inputs
    if decision.rule in HARD_REJECTIONS:
        overall = 0.0
    elif inputs.max_entailment is None:
        return DecisionConfidence(band=None)
    else:
        contradiction = inputs.max_contradiction or 0.0
        sources = min(1.0, inputs.entailing_sources / config.min_supporting_sources)
        overall = inputs.max_entailment * (1.0 - contradiction) * sources
    if decision.rule == "dependency-warning":
        overall = min(overall, STRICT_DEPENDENCY_CAP)
    overall = round(overall, _DECIMALS)
    band = "High" if overall >= HIGH_BAND else "Medium" if overall >= MEDIUM_BAND else "Low"
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
    inputs, rule = decision.inputs, decision.rule
    entail, contra = _fmt(inputs.max_entailment), _fmt(inputs.max_contradiction)
    need_entail, max_contra = _fmt(config.min_entailment_prob), _fmt(config.max_contradiction_prob)
    sources = f"{inputs.entailing_sources} independent source(s)"
    judged, why = inputs.llm_judge_passage, _judge_reason(inputs, llm_judgements)
    texts = {
        "dangling-citation": f"cites {', '.join(inputs.dangling_citations)}, which no available passage has",
        "no-evidence": "no passage shares the claim's content; nothing to check it against",
        "numeric-mismatch": "the evidence gives a different value: " + ("; ".join(mismatches) or "see numeric signal"),
        "formal-mismatch": "; ".join(inputs.formal_mismatches),
        "out-of-scope": f"supported, but {inputs.out_of_scope}",
        "dependency-warning": f"supported, but {inputs.dependency_warning} (verification.strict_dependencies)",
        "superseded-citation": (
            f"supported, but it cites {', '.join(inputs.superseded_citations)}, which the latest version of its "
            "document no longer holds"
        ),
        "llm-judge-contradicted": (
            f"the LLM judge reads {judged} as contradicting the claim{why}; tier-1 NLI gave max entailment "
            f"{entail}, max contradiction {contra}"
        ),
        "nli-unavailable": f"entailment could not be computed ({inputs.nli_reason or 'no reason given'}); not judged",
        "contradicted": (
            f"{inputs.strongest_contradiction_passage} contradicts the claim (contradiction {contra} > {max_contra}) "
            "and no passage supports it "
            + (
                f"(best support {entail} < {_fmt(config.weak_entailment_prob)})"
                if inputs.max_entailment is not None
                and inputs.max_entailment < known_probability(config.weak_entailment_prob, "weak_entailment_prob")
                else f"as strongly (best support {entail}, below the {need_entail} a Supported claim needs)"
            )
        ),
        "low-entailment": (
            f"no passage supports the claim: best support {entail} < {_fmt(config.weak_entailment_prob)}"
        ),
        "weak-support": (
            f"weakly supported: best support {entail} is below the {need_entail} a Supported claim needs "
            f"(and at least {_fmt(config.weak_entailment_prob)})"
            + (
                f"; {inputs.strongest_contradiction_passage} contradicts it ({contra} > {max_contra})"
                if contradiction_above_max(inputs, config)
                else ""
            )
        ),
        "insufficient-sources": (f"entailed (max {entail}) by {sources}; {config.min_supporting_sources} required"),
        "conflicting-verdicts": (
            f"{inputs.strongest_entailment_passage} entails ({entail}) but "
            f"{inputs.strongest_contradiction_passage} contradicts ({contra} > {max_contra}); the sources disagree"
        ),
        "high-contradiction": (
            f"{inputs.strongest_entailment_passage} both supports ({entail}) and contradicts ({contra} > {max_contra}) "
            "the claim; read it yourself"
        ),
        "evidence-conflict": (
            f"entailed by {sources}, but {inputs.high_evidence_conflicts} high-severity conflict(s) between "
            "evidence passages (contradiction_policy abstain_on_high)"
        ),
        "llm-judge-disagrees": (
            f"entailed by {sources} (max entailment {entail} >= {need_entail}), but the LLM judge reads {judged} "
            f"as not supporting the claim{why}; lowered to Low Confidence (a judge may lower a verdict, not raise it)"
        ),
        "quoted": (
            f"{', '.join(inputs.quoting_passages[:2])} state(s) this sentence word for word "
            f"({inputs.quoting_sources} independent source(s); model support {entail})"
        ),
        "quote-disputed": (
            f"{', '.join(inputs.quoting_passages[:2])} state(s) this sentence word for word, but "
            f"{inputs.strongest_contradiction_passage}, an independent source, contradicts it ({contra} > {max_contra})"
        ),
        "sufficient-evidence": (
            f"entailed by {sources} (max entailment {entail} >= {need_entail}), contradiction {contra} <= {max_contra}"
        ),
    }
    return texts[rule]


def _judge_reason(inputs: DecisionInputs, llm_judgements: Sequence[SupportJudgement]) -> str:
    """': "<the judge's own rationale>"' for the passage its decisive label is about, or nothing."""
    for judgement in llm_judgements:
        if judgement.passage_id == inputs.llm_judge_passage and judgement.label == inputs.llm_judge_label:
            return f': "{judgement.rationale}"' if judgement.rationale else ""
    return ""


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"
