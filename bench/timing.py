"""Timing helpers the bench scripts share: a percentile of measured values and per-call wall times."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any


def percentile(values: list[float], share: float) -> float:
    """The value at rank int(share * n) of the sorted values (the largest for share 1); NaN when there are none."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def time_queries(search: Callable[[Any], object], queries: Iterable[Any]) -> list[float]:
    """Milliseconds each `search(query)` took, in query order."""
    timings = []
    for query in queries:
        start = time.perf_counter()
        search(query)
        timings.append((time.perf_counter() - start) * 1000)
    return timings
