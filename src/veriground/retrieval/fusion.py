"""Reciprocal-rank fusion: several ranked lists of ids -> one list scored by sum of 1 / (k + rank)."""

from __future__ import annotations

from collections.abc import Sequence


def fuse_rankings(rankings: Sequence[Sequence[str]], k: int) -> list[tuple[str, float]]:
    """(id, rrf_score) best first (Cormack, Clarke & Buettcher 2009); ties keep first-seen order."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    order = {item: position for position, item in enumerate(scores)}
    return sorted(((item, round(score, 8)) for item, score in scores.items()), key=lambda x: (-x[1], order[x[0]]))
