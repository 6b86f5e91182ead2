"""The abstention gate (seed 004 §3.6): is any of the top passages about the question at all?

Scores are a reranker's probability when the evidence was reranked, else the lexical query coverage: the
idf-weighted share of the question's content words (stemmed, stopwords dropped, as BM25 sees them) that a
passage contains. Coverage is 1.0 when a passage holds every word of the question and near 0 when it holds
only common ones; a word the corpus never uses weighs most, so "Who won the 1998 World Cup?" over a physics
corpus scores low even though "world" appears in it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from veriground.config import AnswerConfig
from veriground.schema import EvidenceChunk, EvidenceGate
from veriground.text.terms import tokenize

GATE_DEPTH = 5  # seed 004: max over the top-5 passages
MEAN_DEPTH = 3  # and the mean of the top 3, reported beside it


def query_coverage(weights: Mapping[str, float], text: str) -> float:
    """Idf-weighted share of the question's words that `text` contains (0 when the question has none)."""
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    present = set(tokenize(text))
    return round(sum(weight for token, weight in weights.items() if token in present) / total, 6)


def rerank_probability(logit: float) -> float:
    """A cross-encoder's raw logit as a probability (the scale seed 004's 0.30 threshold is written for)."""
    return round(1.0 / (1.0 + math.exp(-logit)), 6)


def evidence_gate(chunks: Sequence[EvidenceChunk], weights: Mapping[str, float], config: AnswerConfig) -> EvidenceGate:
    """Pass when the best of the top passages reaches the configured threshold for its kind of score."""
    top = list(chunks)[:GATE_DEPTH]
    logits = [chunk.score_rerank for chunk in top if chunk.score_rerank is not None]
    if top and len(logits) == len(top):  # every top passage was reranked
        scores = sorted((rerank_probability(logit) for logit in logits), reverse=True)
        kind, threshold = "rerank", config.min_rerank_prob
    else:
        scores = sorted((query_coverage(weights, chunk.text) for chunk in top), reverse=True)
        kind, threshold = "query_coverage", config.min_query_coverage
    best = scores[0] if scores else 0.0
    mean = sum(scores[:MEAN_DEPTH]) / len(scores[:MEAN_DEPTH]) if scores else 0.0
    return EvidenceGate(
        score_kind=kind,
        max_top5=round(best, 6),
        mean_top3=round(mean, 6),
        threshold=threshold,
        passed=bool(scores) and best >= threshold,
    )
