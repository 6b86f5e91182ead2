"""A metric's value, or the reason it has none: never NaN, never a silent 0."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

JSON_DIGITS = 6  # rounding in JSON output, so summaries are byte-stable across platforms


@dataclass(frozen=True)
class MetricValue:
    """A metric's value, or None with the reason it is undefined for this input."""

    value: float | None
    reason: str | None = None

    def __post_init__(self) -> None:
        if (self.value is None) == (self.reason is None):
            raise ValueError("a MetricValue has either a value or the reason it has none")
        if self.value is not None and math.isnan(self.value):
            raise ValueError("a metric value is never NaN; give the reason it is undefined instead")

    @classmethod
    def ratio(cls, numerator: float, denominator: float, reason: str) -> MetricValue:
        """numerator / denominator, or undefined with `reason` when the denominator is 0."""
        return cls(numerator / denominator) if denominator else cls(None, reason)

    def format(self, digits: int = 3) -> str:
        return "n/a" if self.value is None else f"{self.value:.{digits}f}"

    def to_json(self) -> dict[str, Any]:
        if self.value is None:
            return {"value": None, "reason": self.reason}
        return {"value": round(self.value, JSON_DIGITS)}


def undefined(reason: str) -> MetricValue:
    return MetricValue(None, reason)


def paired(first: Iterable[Any], second: Iterable[Any]) -> list[tuple[Any, Any]]:
    """Zip two equally long sequences; a length mismatch is a caller's bug, not an undefined metric."""
    left, right = list(first), list(second)
    if len(left) != len(right):
        raise ValueError(f"the two inputs differ in length: {len(left)} and {len(right)}")
    return list(zip(left, right, strict=True))
