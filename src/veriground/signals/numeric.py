"""Numeric signal: a claim and its evidence texts → whether the claim's quantities, in SI base units, match
the evidence's (9.8 m/s² equals 980 cm/s²; 3.0 × 10⁹ m/s does not equal 3.0 × 10⁸ m/s).

Each claim quantity is matched (an equal evidence quantity), mismatched (evidence quantities in the same role,
none equal) or absent (nothing comparable). The claim is a match only when every quantity matches, a mismatch
when any quantity mismatches, and absent otherwise, so an unevidenced number is never passed as matched.

A caller may also pass the passages around the evidence sentences (`context_texts`): a quantity stated there
counts as matched, but nothing there is a rival. A claim that joins two facts of one passage ("sales were $441
million, and the forecast stays at $1.7 to $1.8 billion") is aligned with one of its sentences, and the other
value, read against that sentence alone, was a mismatch (8 supported SummEdits rows of 200 held out).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from veriground.schema import NumericSignal, SignalStatus
from veriground.text.quantities import (
    NormalQuantity,
    UnitConversionError,
    comparable_quantities,
    extract_quantities,
    normalise_leniently,
    normalise_quantity,
    same_quantity,
)

NO_NUMBERS_REASON = "claim has no numbers"
NO_EVIDENCE_REASON = "no evidence"


def compute_numeric(claim_text: str, evidence_texts: Sequence[str], context_texts: Sequence[str] = ()) -> NumericSignal:
    """Compare the claim's quantities with the evidence's; a mismatch names the closest evidence value. A quantity
    equal to one stated in `context_texts` is matched too (see the module's note).

    A claim unit pint cannot normalise makes the signal unavailable; such a unit in the evidence only makes
    that evidence quantity comparable with the same written unit.
    """
    read = _read(claim_text, evidence_texts)
    if isinstance(read, _Nothing):
        return NumericSignal(status=read.status, reason=read.reason)
    claimed, evidence = read
    stated = [normalise_leniently(quantity) for text in context_texts for quantity in extract_quantities(text)]
    outcomes, mismatches = _compare(claimed, evidence, stated)
    return NumericSignal(
        status=SignalStatus.COMPUTED,
        outcome=_outcome(outcomes),
        claim_quantities=tuple(quantity.quantity.describe() for quantity in claimed),
        evidence_quantities=tuple(dict.fromkeys(quantity.quantity.describe() for quantity in evidence)),
        mismatches=tuple(mismatches),
    )


def numeric_outcome(claim_text: str, evidence_texts: Sequence[str]) -> str | None:
    """compute_numeric's outcome ("match", "mismatch", "absent"), None where it computes none, without the record
    (the aggregator's features read it for every claim and evidence unit)."""
    read = _read(claim_text, evidence_texts)
    return None if isinstance(read, _Nothing) else _outcome(_compare(*read)[0])


class _Nothing(NamedTuple):
    """Why there is nothing to compare: the status and reason of the signal."""

    status: SignalStatus
    reason: str


_Read = tuple[list[NormalQuantity], list[NormalQuantity]]


def _read(claim_text: str, evidence_texts: Sequence[str]) -> _Read | _Nothing:
    """The claim's and the evidence's quantities, or why there is nothing to compare."""
    found = extract_quantities(claim_text)
    if not found:
        return _Nothing(SignalStatus.NOT_APPLICABLE, NO_NUMBERS_REASON)
    passages = [text for text in evidence_texts if text.strip()]
    if not passages:
        return _Nothing(SignalStatus.NOT_APPLICABLE, NO_EVIDENCE_REASON)
    try:
        claimed = [normalise_quantity(quantity) for quantity in found]
    except UnitConversionError as err:
        return _Nothing(SignalStatus.UNAVAILABLE, str(err))
    return claimed, [normalise_leniently(quantity) for text in passages for quantity in extract_quantities(text)]


def _compare(
    claimed: list[NormalQuantity], evidence: list[NormalQuantity], stated: Sequence[NormalQuantity] = ()
) -> tuple[list[str], list[str]]:
    """Each claim quantity's outcome, and a line per mismatch naming the closest evidence value; a quantity equal
    to one in `stated` is matched, though `stated` holds no rivals."""
    outcomes, mismatches = [], []
    for quantity in claimed:
        if any(same_quantity(quantity, other) for other in (*evidence, *stated)):
            outcomes.append("match")
            continue
        rivals = [other for other in evidence if comparable_quantities(quantity, other)]
        if not rivals:
            outcomes.append("absent")
            continue
        outcomes.append("mismatch")
        closest = min(rivals, key=lambda rival: _distance(quantity, rival))
        mismatches.append(f"claim {quantity.quantity.describe()} vs evidence {closest.quantity.describe()}")
    return outcomes, mismatches


def _outcome(outcomes: list[str]) -> str:
    if "mismatch" in outcomes:
        return "mismatch"
    if all(item == "match" for item in outcomes):
        return "match"
    return "absent"


def _distance(first: NormalQuantity, second: NormalQuantity) -> float:
    """How far apart two values are in orders of magnitude; opposite signs or a zero count as far."""
    a, b = first.base_value, second.base_value
    if a == 0 or b == 0 or (a < 0) != (b < 0):
        return math.inf if a != b else 0.0
    return abs(math.log10(abs(a)) - math.log10(abs(b)))
