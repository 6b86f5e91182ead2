"""Quantity-preserving unit conversions for synthetic entailments: "9.8 m/s2" -> "980 cm/s2" states the same
quantity, so a sentence with its first convertible quantity rewritten this way is entailed by the original.

The matching contradiction ("9.8 cm/s2": the unit changed, the value not) is `convert_unit_unscaled`, so the model
sees both sides of the same near-copy edit and learns to read the number, not the amount of copying.
"""

from __future__ import annotations

import re
import zlib

# unit -> (the unit it converts to, factor: value in the new unit = value * factor). Each pair is listed both ways.
_CONVERSIONS: dict[str, tuple[str, float]] = {
    "km": ("m", 1000.0), "m": ("cm", 100.0), "cm": ("mm", 10.0), "mm": ("cm", 0.1),
    "kg": ("g", 1000.0), "g": ("mg", 1000.0), "mg": ("g", 0.001),
    "s": ("ms", 1000.0), "ms": ("s", 0.001), "min": ("s", 60.0), "h": ("min", 60.0),
    "m/s": ("cm/s", 100.0), "cm/s": ("m/s", 0.01), "km/h": ("m/s", 1 / 3.6),
    "m/s2": ("cm/s2", 100.0), "m/s^2": ("cm/s^2", 100.0), "cm/s2": ("m/s2", 0.01),
    "kJ": ("J", 1000.0), "J": ("mJ", 1000.0), "kW": ("W", 1000.0), "W": ("mW", 1000.0),
    "kilometers": ("meters", 1000.0), "meters": ("centimeters", 100.0), "centimeters": ("millimeters", 10.0),
    "kilograms": ("grams", 1000.0), "grams": ("milligrams", 1000.0), "seconds": ("milliseconds", 1000.0),
    "milliseconds": ("seconds", 0.001), "minutes": ("seconds", 60.0), "hours": ("minutes", 60.0),
    "days": ("hours", 24.0), "weeks": ("days", 7.0), "years": ("months", 12.0), "kilojoules": ("joules", 1000.0),
}  # fmt: skip
_UNIT_ALTERNATION = "|".join(sorted(map(re.escape, _CONVERSIONS), key=len, reverse=True))
# A plain number (no sign, not part of a word or version) followed by a unit, then not by more of a word.
_QUANTITY = re.compile(
    r"(?<![\w.^_\\/-])(?P<value>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?P<space>[ \u00a0]?)(?P<unit>"
    + _UNIT_ALTERNATION
    + r")(?![\w/^]|\.\d)"
)
_MAX_SIGNIFICANT = 6  # a converted value needing more digits reads as made up: skip it


def convert_unit(sentence: str) -> str | None:
    """The first convertible quantity rewritten in another unit with the value scaled to match, or None."""
    match = _QUANTITY.search(sentence)
    if match is None:
        return None
    new_unit, factor = _CONVERSIONS[match.group("unit")]
    value = float(match.group("value").replace(",", ""))
    text = _format(value * factor)
    if text is None:
        return None
    return sentence[: match.start()] + text + match.group("space") + new_unit + sentence[match.end() :]


def convert_unit_unscaled(sentence: str) -> str | None:
    """The first convertible quantity's unit changed but its value kept: a different quantity, or None."""
    match = _QUANTITY.search(sentence)
    if match is None:
        return None
    new_unit = _CONVERSIONS[match.group("unit")][0]
    return sentence[: match.start("unit")] + new_unit + sentence[match.end("unit") :]


def has_quantity(sentence: str) -> bool:
    return _QUANTITY.search(sentence) is not None


def _format(value: float) -> str | None:
    """`value` without float noise (980.0000001 -> 980, 0.0098 -> 0.0098); None if it needs too many digits."""
    if value == 0 or value >= 10**9:
        return None
    text = f"{value:.{_MAX_SIGNIFICANT}g}"
    if "e" in text:
        return None
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    checksum_grouping = zlib.crc32(text.encode()) % 2 == 0  # "98,000" and "98000" both occur in prose
    if "." not in text and len(text) > 4 and checksum_grouping:
        text = f"{int(text):,}"
    return text


def quantity_value_span(sentence: str) -> tuple[int, int] | None:
    """(start, end) of the first convertible quantity's value ("320" of "320 meters"), or None."""
    match = _QUANTITY.search(sentence)
    return None if match is None else match.span("value")
