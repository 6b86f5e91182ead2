"""Per-passage judgements and the claim's other findings -> DecisionInputs, the values the rule table (rules.py) reads:
the strongest entailing and contradicting passages, the independent sources that support the claim (byte-identical
documents count once), and whether a contradiction comes from a source independent of the supporters, the quoting
passages or the ones that give the claim's equations.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from veriground.config import VerificationConfig
from veriground.schema import DecisionInputs, EvidenceJudgement, SignalStatus, SupportJudgement
from veriground.verdicts.rules import min_entailment


class QuotationFinding(NamedTuple):
    """A quotation of the claim's that no evidence passage holds word for word, and the passage words closest to it
    when they are close enough to be what it misquotes (else None for each of those)."""

    quoted: str
    passage_id: str | None = None
    span: tuple[int, int] | None = None
    source_words: str | None = None
    similarity: float | None = None


def summarize_evidence(
    judgements: Sequence[EvidenceJudgement],
    config: VerificationConfig,
    *,
    nli_status: SignalStatus = SignalStatus.COMPUTED,
    nli_reason: str | None = None,
    evidence_count: int | None = None,
    numeric_outcome: str | None = None,
    dangling_citations: Sequence[str] = (),
    high_evidence_conflicts: int = 0,
    llm_judgements: Sequence[SupportJudgement] = (),
    quoting: Sequence[EvidenceJudgement] = (),
    formal_matches: Sequence[EvidenceJudgement] = (),
    formal_mismatches: Sequence[str] = (),
    out_of_scope: str | None = None,
    dependency_warning: str | None = None,
    superseded_citations: Sequence[str] = (),
    substituted: tuple[Sequence[tuple[str, str]], str] | None = None,
    scrambled_words: bool = False,
    reversed_relation: tuple[str, str, tuple[int, int]] | None = None,
    pieced_support: tuple[str, tuple[int, int]] | None = None,
    dropped_restriction: tuple[str, str, tuple[int, int]] | None = None,
    quotation: QuotationFinding | None = None,
    swapped_term: tuple[tuple[str, str], str, str, tuple[int, int]] | None = None,
    unstated_formula: tuple[str, str] | None = None,
) -> DecisionInputs:
    """Reduce per-passage NLI judgements (and the claim's citation, numeric and conflict findings, and the LLM
    judge's readings) to the values the rules read; ties go to the earlier passage. `evidence_count` defaults
    to the judgements given (it differs when NLI could not judge the passages that were found)."""
    findings = {
        "evidence_count": len(judgements) if evidence_count is None else evidence_count,
        "nli_status": nli_status,
        "nli_reason": nli_reason,
        "numeric_outcome": numeric_outcome,
        "dangling_citations": tuple(dangling_citations),
        "high_evidence_conflicts": high_evidence_conflicts,
        "quoting_passages": tuple(dict.fromkeys(item.passage_id for item in quoting)),
        "quoting_sources": count_independent_sources(quoting),
        "formal_match_passages": tuple(dict.fromkeys(item.passage_id for item in formal_matches)),
        "formal_match_sources": count_independent_sources(formal_matches),
        "formal_mismatches": tuple(formal_mismatches),
        "out_of_scope": out_of_scope,
        "dependency_warning": dependency_warning,
        "superseded_citations": tuple(superseded_citations),
        "substituted_words": tuple(substituted[0]) if substituted else (),
        "substituted_passage": substituted[1] if substituted else None,
        "scrambled_words": scrambled_words,
        "reversed_relation": reversed_relation[0] if reversed_relation else None,
        "reversed_relation_passage": reversed_relation[1] if reversed_relation else None,
        "reversed_relation_span": reversed_relation[2] if reversed_relation else None,
        "pieced_support_passage": pieced_support[0] if pieced_support else None,
        "pieced_support_span": pieced_support[1] if pieced_support else None,
        "dropped_restriction": dropped_restriction[0] if dropped_restriction else None,
        "dropped_restriction_passage": dropped_restriction[1] if dropped_restriction else None,
        "dropped_restriction_span": dropped_restriction[2] if dropped_restriction else None,
        **_quotation_findings(quotation),
        "swapped_term": swapped_term[0] if swapped_term else None,
        "swapped_term_kind": swapped_term[1] if swapped_term else None,
        "swapped_term_passage": swapped_term[2] if swapped_term else None,
        "swapped_term_span": swapped_term[3] if swapped_term else None,
        "unstated_formula": unstated_formula[0] if unstated_formula else None,
        "unstated_formula_passage": unstated_formula[1] if unstated_formula else None,
    }
    if not judgements or nli_status != SignalStatus.COMPUTED:
        return DecisionInputs(**findings, **_judge_reading(llm_judgements, None))
    best_entail = max(judgements, key=lambda item: item.entailment_prob)
    best_contra = max(judgements, key=lambda item: item.contradiction_prob)
    # A passage supports the claim when its support reaches the threshold, when it quotes the claim's sentence, or
    # when it gives the claim's equations or complexity bounds.
    quoted_ids = {item.passage_id for item in (*quoting, *formal_matches)}
    supporting = [
        item for item in judgements if item.entailment_prob >= min_entailment(config) or item.passage_id in quoted_ids
    ]
    independent = count_independent_sources(supporting)
    return DecisionInputs(
        **findings,
        **_judge_reading(llm_judgements, best_entail.passage_id),
        max_entailment=best_entail.entailment_prob,
        max_contradiction=best_contra.contradiction_prob,
        entailing_sources=independent,
        contradiction_from_other_source=_outside(supporting, best_contra),
        contradiction_outside_quotes=bool(quoting) and _outside(quoting, best_contra),
        contradiction_outside_formal_match=bool(formal_matches) and _outside(formal_matches, best_contra),
        supporting_passages=tuple(dict.fromkeys(item.passage_id for item in supporting)),
        strongest_entailment_passage=best_entail.passage_id,
        strongest_contradiction_passage=best_contra.passage_id,
    )


def _quotation_findings(quotation: QuotationFinding | None) -> dict[str, object]:
    if quotation is None:
        return {}
    return {
        "unfound_quotation": quotation.quoted,
        "misquoted_passage": quotation.passage_id,
        "misquoted_span": quotation.span,
        "misquoted_words": quotation.source_words,
        "misquoted_similarity": quotation.similarity,
    }


def _outside(group: Sequence[EvidenceJudgement], passage: EvidenceJudgement) -> bool:
    """Whether `passage` belongs to a source independent of every passage in `group`."""
    return count_independent_sources([*group, passage]) > count_independent_sources(group)


def count_independent_sources(judgements: Sequence[EvidenceJudgement]) -> int:
    """Sources that are independent of each other: one per (source_id, source_type), and passages of byte-identical
    documents (same content SHA-256, whatever their path or source id) count once together."""
    parent: dict[str, str] = {}

    def find(key: str) -> str:
        while parent.setdefault(key, key) != key:
            key = parent[key]
        return key

    for item in judgements:
        source = find(f"source:{item.source_id}\x1f{item.source_type}")
        if item.content_sha256:
            parent[source] = find(f"sha256:{item.content_sha256}")
    return len({find(f"source:{item.source_id}\x1f{item.source_type}") for item in judgements})


def _judge_reading(judgements: Sequence[SupportJudgement], strongest_entailment: str | None) -> dict[str, str]:
    """The judge's decisive label and passage: the first contradiction it found, else its reading of the
    strongest-entailment passage (the first judged passage when NLI ranked none); nothing when no judge ran."""
    if not judgements:
        return {}
    contradicting = [item for item in judgements if item.label == "contradicted"]
    on_support = [item for item in judgements if item.passage_id == strongest_entailment]
    decisive = (contradicting or on_support or list(judgements))[0]
    return {"llm_judge_label": decisive.label, "llm_judge_passage": decisive.passage_id}
