"""Quantities found by text/quantities.py, with spans mapped back from the normalised text to the text as written,
and a hypothesis's quantities restated in its premise's units for an NLI model.

`extract_quantities` reads normalised text, where "m/s²" became "m/s^2" (one character more); the formal checks
report spans in the claim as the user wrote it, so each normalised offset is mapped to its original offset.
"""

from __future__ import annotations

from dataclasses import dataclass

from veriground.errors import UnitConversionError
from veriground.text.quantities import (
    NormalQuantity,
    Quantity,
    extract_quantities,
    may_hold_numbers,
    normalise_quantity,
    same_quantity,
)
from veriground.text.terms import SUPERSCRIPT_RUN, normalise_text


@dataclass(frozen=True)
class LocatedQuantity:
    """A quantity with a unit, its SI-base form, and its span in the original text."""

    quantity: Quantity
    normal: NormalQuantity
    start: int
    end: int


def normalise_with_offsets(text: str) -> tuple[str, list[int]]:
    """`normalise_text(text)` and, for each of its characters plus the end, the offset in `text` it came from."""
    normal = normalise_text(text)
    offsets: list[int] = []
    cursor = 0
    for run in SUPERSCRIPT_RUN.finditer(text):
        offsets.extend(range(cursor, run.start()))
        offsets.append(run.start())  # the inserted "^"
        offsets.extend(range(run.start(), run.end()))
        cursor = run.end()
    offsets.extend(range(cursor, len(text)))
    offsets.append(len(text))
    if len(offsets) != len(normal) + 1:  # normalise_text changed in a way this map does not follow
        offsets = [min(index, len(text)) for index in range(len(normal) + 1)]
    return normal, offsets


def locate_quantities(text: str) -> tuple[str, list[int], list[LocatedQuantity]]:
    """The normalised text, its offset map, and every quantity with a unit pint can read."""
    normal, offsets = normalise_with_offsets(text)
    located = []
    for quantity in extract_quantities(normal):
        if quantity.unit is None:
            continue
        try:
            normal_quantity = normalise_quantity(quantity)
        except UnitConversionError:
            continue
        located.append(LocatedQuantity(quantity, normal_quantity, offsets[quantity.start], offsets[quantity.end]))
    return normal, offsets, located


def restate_in_units_of(premise: str, hypothesis: str) -> str:
    """The hypothesis with each quantity that equals one of the premise's in another unit written as the premise
    writes it ("... 980 cm/s2." against "... 9.80 m/s2" -> "... 9.80 m/s2."); the hypothesis itself when none does.

    An NLI model reads numbers as words and cannot convert units: without this, v2 read "The package weighs 2500 g."
    against "The package weighs 2.5 kg." as a contradiction (0.93). A quantity that differs in value is left as
    written ("2.5 g" against "2.5 kg"), for the model and the numeric check to see.
    """
    if not (may_hold_numbers(premise) and may_hold_numbers(hypothesis)):
        return hypothesis
    _, _, stated = locate_quantities(premise)
    _, _, claimed = locate_quantities(hypothesis)
    pieces, cursor = [], 0
    for quantity in claimed:
        same = [
            premise[other.start : other.end]
            for other in stated
            if other.quantity.unit != quantity.quantity.unit and same_quantity(quantity.normal, other.normal)
        ]
        if same:
            pieces += [hypothesis[cursor : quantity.start], same[0]]
            cursor = quantity.end
    return "".join(pieces) + hypothesis[cursor:] if pieces else hypothesis
