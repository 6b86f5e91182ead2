"""Numbers as a reader sees them beside a threshold: "0.498 below the 0.50", never "0.50 below the 0.50"."""

from __future__ import annotations

MAX_DIGITS = 4


def versus(value: float, threshold: float, digits: int = 2) -> tuple[str, str]:
    """(value, threshold) as text with `digits` decimals, or more (up to MAX_DIGITS) for the value when fewer
    would print it equal to a threshold it differs from."""
    shown = f"{value:.{digits}f}"
    limit = f"{threshold:.{digits}f}"
    places = digits
    while float(shown) == float(limit) and value != threshold and places < MAX_DIGITS:
        places += 1
        shown = f"{value:.{places}f}"
    return shown, limit
