"""How often each rule that rejects a claim whatever the NLI reads (schema HARD_REJECTIONS: a numeric mismatch, no
evidence, ...) was wrong on the calibration rows: the confidence `calibrate` gives such a claim instead of 0.

A claim the numeric check rejects is wrong about a benchmark's label more often than "confidence 0" says (a supported
FEVER or WiCE claim that writes a number otherwise than its evidence): 5 of 64 claim-source calibration rows it
rejected were supported, and 18 of 145 that no evidence unit was aligned with.
"""

from __future__ import annotations

from collections.abc import Iterable

from veriground.verdicts.aggregator import rejection_support_rate

MIN_HARD_REJECTION_ROWS = 20  # fewer rejected rows than this: the rule's support rate is that of all hard rules


def hard_rejection_support(outcomes: Iterable[tuple[str | None, bool]]) -> dict[str, dict[str, float | int]]:
    """(the hard rule that rejected a row or None, whether the row is supported) -> for each rule, the rows it
    rejected, how many of those were supported, and the P(supported) its claims are given: (supported + 1/2) /
    (rows + 1), so a rule that was always right is not certain; from all hard rules' rows pooled when the rule
    rejected fewer than MIN_HARD_REJECTION_ROWS."""
    counts: dict[str, list[int]] = {}
    for rule, was_supported in outcomes:
        if rule is not None:
            tally = counts.setdefault(rule, [0, 0])
            tally[0] += 1
            tally[1] += was_supported
    pooled = [sum(tally[0] for tally in counts.values()), sum(tally[1] for tally in counts.values())]
    support = {}
    for rule, (rejected, supported) in sorted(counts.items()):
        basis_rows, basis_supported = (rejected, supported) if rejected >= MIN_HARD_REJECTION_ROWS else pooled
        support[rule] = {
            "rows": rejected,
            "supported": supported,
            "support_prob": rejection_support_rate(basis_supported, basis_rows),
        }
    return support
