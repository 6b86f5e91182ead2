"""Calibration of predicted probabilities against outcomes (seed 000 §4.1.2): equal-width reliability bins, the
expected calibration error, the Brier score. Undefined values are MetricValues with a reason, never NaN.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from veriground.evaluation.metric_value import JSON_DIGITS, MetricValue, paired, undefined

# Seed 000 §4.1.2: ten equal-width confidence bins [0, 0.1), ..., [0.9, 1.0].
ECE_BINS = 10


@dataclass(frozen=True)
class CalibrationBin:
    """One bin of a reliability diagram: [lower, upper), the last bin closed at 1."""

    lower: float
    upper: float
    count: int
    mean_probability: float | None  # None: empty bin
    observed_rate: float | None  # share of outcomes that were true

    def to_json(self) -> dict[str, Any]:
        def rounded(value: float | None) -> float | None:
            return None if value is None else round(value, JSON_DIGITS)

        return {
            "lower": rounded(self.lower),
            "upper": rounded(self.upper),
            "count": self.count,
            "mean_probability": rounded(self.mean_probability),
            "observed_rate": rounded(self.observed_rate),
        }


@dataclass(frozen=True)
class Calibration:
    """ECE and Brier score of probabilities against outcomes, with the per-bin table for a reliability diagram."""

    ece: MetricValue
    brier: MetricValue
    bins: tuple[CalibrationBin, ...]

    def to_json(self) -> dict[str, Any]:
        return {"ece": self.ece.to_json(), "brier": self.brier.to_json(), "bins": [b.to_json() for b in self.bins]}


def calibration_bins(
    probabilities: Sequence[float], outcomes: Sequence[bool], n_bins: int = ECE_BINS
) -> tuple[CalibrationBin, ...]:
    """Equal-width bins over [0, 1]; a probability of exactly 1 falls in the last bin."""
    if n_bins < 1:
        raise ValueError(f"n_bins must be at least 1, got {n_bins}")
    members: list[list[tuple[float, bool]]] = [[] for _ in range(n_bins)]
    for probability, outcome in paired(probabilities, outcomes):
        _check_probability(probability)
        members[min(int(probability * n_bins), n_bins - 1)].append((probability, outcome))
    bins = []
    for index, items in enumerate(members):
        count = len(items)
        bins.append(
            CalibrationBin(
                lower=index / n_bins,
                upper=(index + 1) / n_bins,
                count=count,
                mean_probability=sum(p for p, _ in items) / count if count else None,
                observed_rate=sum(1 for _, o in items if o) / count if count else None,
            )
        )
    return tuple(bins)


def expected_calibration_error(
    probabilities: Sequence[float], outcomes: Sequence[bool], n_bins: int = ECE_BINS
) -> MetricValue:
    """ECE = Σ_b (|B_b| / n) |acc(B_b) − conf(B_b)| over equal-width bins (Naeini et al. 2015; Guo et al. 2017;
    seed 000 §4.1.2), where conf is the bin's mean probability and acc the share of its outcomes that hold."""
    bins = calibration_bins(probabilities, outcomes, n_bins)
    total = sum(b.count for b in bins)
    if not total:
        return undefined("no probabilities to calibrate")
    gap = sum(
        b.count * abs(b.observed_rate - b.mean_probability)
        for b in bins
        if b.observed_rate is not None and b.mean_probability is not None  # None exactly when the bin is empty
    )
    return MetricValue(gap / total)


def brier_score(probabilities: Sequence[float], outcomes: Sequence[bool]) -> MetricValue:
    """Mean of (probability − outcome)² (Brier 1950; seed 000 §4.1.2); 0 is perfect."""
    pairs = paired(probabilities, outcomes)
    for probability, _ in pairs:
        _check_probability(probability)
    return MetricValue.ratio(
        sum((probability - float(outcome)) ** 2 for probability, outcome in pairs), len(pairs), "no probabilities"
    )


def calibration(probabilities: Sequence[float], outcomes: Sequence[bool], n_bins: int = ECE_BINS) -> Calibration:
    return Calibration(
        ece=expected_calibration_error(probabilities, outcomes, n_bins),
        brier=brier_score(probabilities, outcomes),
        bins=calibration_bins(probabilities, outcomes, n_bins),
    )


def _check_probability(probability: float) -> None:
    if not 0.0 <= probability <= 1.0:
        raise ValueError(f"a probability must be in [0, 1], got {probability!r}")
