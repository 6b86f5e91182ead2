"""Evidence-vs-evidence conflicts (seed 004 §3.6): each claim's best evidence sentences -> pairs of sentences
from different passages that contradict each other, judged by the configured NLI model and labelled by the
visible cue (negation, antonym, numeric) that the lexical reading finds, else "nli".

Only sentences that carry at least CONFLICT_MIN_ALIGNMENT of the claim are compared, so both sides are about
the claim's subject; each pair is scored in both directions and the larger contradiction counts. If the model cannot
score the batch (a sentence longer than it reads), the pairs are scored one by one and only those it cannot read are
left out, reported; one long sentence no longer costs every claim its check.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations

from veriground.backends.lexical_nli import LexicalNLIModel
from veriground.backends.protocols import NLIModel
from veriground.config import VerificationConfig
from veriground.schema import AlignedSpan, EvidenceConflict, NLIScores

CONFLICT_MIN_ALIGNMENT = 0.5
MAX_CONFLICT_PASSAGES = 3  # the best-ranked passages per claim: at most 3 pairs, 6 NLI calls
Pair = tuple[str, str]
_CUE_KINDS = {"negation": "negation", "antonym": "antonym", "number": "numeric", "equation": "numeric"}


def find_evidence_conflicts(
    aligned: Mapping[str, Sequence[AlignedSpan]], model: NLIModel, config: VerificationConfig
) -> tuple[dict[str, list[EvidenceConflict]], str | None]:
    """Conflicts per claim id, and None, or the reason the check could not run (then no conflicts are known)."""
    candidates: list[tuple[str, AlignedSpan, AlignedSpan]] = []
    for claim_id, spans in aligned.items():
        firsts: dict[str | None, AlignedSpan] = {}  # by passage id
        for item in spans:
            if item.alignment >= CONFLICT_MIN_ALIGNMENT and item.span.passage_id not in firsts:
                firsts[item.span.passage_id] = item
        best = list(firsts.values())[:MAX_CONFLICT_PASSAGES]
        candidates.extend((claim_id, first, second) for first, second in combinations(best, 2))
    conflicts: dict[str, list[EvidenceConflict]] = {claim_id: [] for claim_id in aligned}
    if not candidates:
        return conflicts, None
    pairs = sorted(
        {(a.span.text, b.span.text) for _, a, b in candidates} | {(b.span.text, a.span.text) for _, a, b in candidates}
    )
    problem = None
    try:
        scores = dict(zip(pairs, model.predict(pairs), strict=True))
    except Exception as err:  # the check degrades to "unavailable" (in part), reported, never to "no conflicts"
        scores, failed = _score_one_by_one(model, pairs)
        if not scores:
            return conflicts, f"{model.name}: {err}"
        problem = f"{model.name}: {failed} of {len(pairs)} sentence pairs could not be scored and were left out: {err}"
    threshold = config.max_contradiction_prob
    if threshold is None:  # verdicts.aggregator.resolve_thresholds fills it before the engine gets here
        raise TypeError("verification.max_contradiction_prob is None: resolve the thresholds first")
    explainer = LexicalNLIModel()
    for claim_id, first, second in candidates:
        a, b = first.span.text, second.span.text
        if (a, b) not in scores or (b, a) not in scores:
            continue
        probability = max(scores[(a, b)].contradict, scores[(b, a)].contradict)
        if probability <= threshold:
            continue
        cues = explainer.explain(a, b)["cues"] or explainer.explain(b, a)["cues"]
        kind = _CUE_KINDS.get(cues[0]["cue"], "nli") if cues else "nli"
        conflicts[claim_id].append(
            EvidenceConflict(
                claim_id=claim_id,
                passage_a=first.span.passage_id,
                passage_b=second.span.passage_id,
                sentence_a=a,
                sentence_b=b,
                kind=kind,
                contradiction_prob=round(probability, 6),
                severity="high" if probability >= config.conflict_high_prob else "low",
            )
        )
    return conflicts, problem


def _score_one_by_one(model: NLIModel, pairs: Sequence[Pair]) -> tuple[dict[Pair, NLIScores], int]:
    """The scores of the pairs the model can read, each asked alone, and how many it could not."""
    scores: dict[Pair, NLIScores] = {}
    failed = 0
    for pair in pairs:
        try:
            (scores[pair],) = model.predict([pair])
        except Exception:  # this pair is left out; the caller reports how many were
            failed += 1
    return scores, failed
