"""Quantities found by text/quantities.py, with spans mapped back from the normalised text to the text as written.

`extract_quantities` reads normalised text, where "m/s²" became "m/s^2" (one character more); the formal checks
report spans in the claim as the user wrote it, so each normalised offset is mapped to its original offset.
"""

from __future__ import annotations

from dataclasses import dataclass

from veriground.errors import UnitConversionError
from veriground.text.quantities import NormalQuantity, Quantity, extract_quantities, normalise_quantity
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
