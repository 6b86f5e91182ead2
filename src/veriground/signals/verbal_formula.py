"""A formula stated in words, read as the equation a physics text writes: "Kinetic energy is one half of mass times
velocity squared." is KE = 1/2·m·v^2, and "force equals mass divided by acceleration" is F = m/a. The formal checks
then judge it as they judge a written equation: its dimensions (force is not kg·s²/m) and the evidence's equation for
the same quantity (KE = ½mv², not m·v²).

A sentence is read only when all of it after the quantity and its verb ("is", "equals", "is equal to", "is given by",
"is defined as") is a formula: quantities from QUANTITY_SYMBOLS, "times", "multiplied by", "divided by", "over",
"plus", "minus", "the product of .. and ..", "squared", "cubed", and a leading "one half of", "half of", "twice" or a
small count ("two times"). It needs an operator, a power or a coefficient, so "Kinetic energy is the energy of
motion" and "Force is a vector" are no formulas. A quantity with several conventional symbols (force: F, or F_net as
OpenStax writes Newton's second law) gives one reading per symbol; the equation check takes the first that the
evidence writes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import product

from veriground.signals.equation_check import LocatedEquation
from veriground.signals.math_parse import MathParseError, parse_equation
from veriground.text.memo import text_memo

# A quantity as a physics text names it -> its conventional symbols, the first the most common (OpenStax usage).
QUANTITY_SYMBOLS: dict[str, tuple[str, ...]] = {
    "kinetic energy": ("KE",),
    "gravitational potential energy": ("PE_g", "PE"),
    "potential energy": ("PE",),
    "net force": ("F_net", "F"),
    "force": ("F", "F_net"),
    "mass": ("m",),
    "velocity": ("v",),
    "speed": ("v",),
    "acceleration due to gravity": ("g",),
    "gravitational acceleration": ("g",),
    "acceleration": ("a",),
    "momentum": ("p",),
    "work": ("W",),
    "power": ("P",),
    "time": ("t",),
    "distance": ("d",),
    "height": ("h",),
    "density": ("ρ",),
    "energy": ("E",),
    "wavelength": ("λ",),
    "frequency": ("f",),
    "weight": ("w", "W"),
    "radius": ("r",),
    "speed of light": ("c",),
}
_QUANTITY = "|".join(sorted((re.escape(name) for name in QUANTITY_SYMBOLS), key=len, reverse=True))
_STATEMENT = re.compile(
    rf"\b(?P<subject>{_QUANTITY})\s+(?:is\s+equal\s+to|equals|is\s+given\s+by|is\s+defined\s+as|is)\s+"
    r"(?P<formula>[^.;:!?]+?)\s*[.!]?\s*$",
    re.IGNORECASE,
)
_COEFFICIENTS = {"one half of": "1/2", "one-half of": "1/2", "half of": "1/2", "half the": "1/2", "twice": "2"}
_COUNTS = {"two": 2, "three": 3, "four": 4}
_OPERATORS = {"times": "*", "multiplied by": "*", "divided by": "/", "over": "/", "plus": "+", "minus": "-"}
_POWERS = {"squared": "^2", "cubed": "^3"}
_TOKEN = re.compile(
    r"\s*(?:(?P<coefficient>one half of|one-half of|half of|half the|twice)"
    r"|(?P<count>two|three|four)\s+times"
    r"|(?P<product>the\s+product\s+of)"
    r"|(?P<operator>times|multiplied by|divided by|over|plus|minus|and)"
    r"|(?P<power>squared|cubed)"
    rf"|(?:the\s+|an?\s+|its\s+|the\s+object's\s+)?(?P<quantity>{_QUANTITY})"
    r")(?![\w-])",
    re.IGNORECASE,
)
MAX_READINGS = 4


@dataclass(frozen=True)
class VerbalFormula:
    """One formula stated in words: its span in the claim and its readings as equations (one per choice of
    symbols, the most common first)."""

    start: int
    end: int
    readings: tuple[LocatedEquation, ...]


@text_memo(maxsize=4096)
def verbal_formulas(text: str) -> tuple[VerbalFormula, ...]:
    """The formula the text states in words, if it states one (see the module's note)."""
    match = _STATEMENT.search(text)
    if match is None:
        return ()
    formula = _read_formula(match.group("formula"))
    if formula is None:
        return ()
    written, names = formula
    subject = QUANTITY_SYMBOLS[match.group("subject").lower()]
    readings = []
    for chosen in list(product(subject, *(QUANTITY_SYMBOLS[name] for name in names)))[:MAX_READINGS]:
        equation = f"{chosen[0]} = {written.format(*chosen[1:])}"
        try:
            parsed = parse_equation(equation)
        except MathParseError:
            continue
        if parsed is not None:
            readings.append(LocatedEquation(parsed, match.start(), match.end("formula")))
    return (VerbalFormula(match.start(), match.end("formula"), tuple(readings)),) if readings else ()


def _read_formula(words: str) -> tuple[str, list[str]] | None:
    """The formula with a {} per quantity ("1/2*{}*{}^2") and its quantities in order, or None when the words are
    not all formula or hold no operator, power or coefficient."""
    pieces: list[str] = []
    names: list[str] = []
    position, shaped, expect_term, product_open = 0, False, True, False
    while position < len(words):
        token = _TOKEN.match(words, position)
        if token is None:
            return None
        position = token.end()
        kind = token.lastgroup
        value = token.group(kind or "").lower()
        if kind in ("coefficient", "count"):
            if not expect_term:
                return None
            number = _COEFFICIENTS.get(value) or str(_COUNTS[value])
            pieces.append(f"{number}*")
            shaped = True
        elif kind == "product":
            if not expect_term or product_open:
                return None
            product_open = True
        elif kind == "quantity":
            if not expect_term:
                return None
            names.append(value)
            pieces.append("{}")
            expect_term = False
        elif kind == "power":
            if expect_term:
                return None
            pieces.append(_POWERS[value])
            shaped = True
        elif kind == "operator":
            if expect_term or (value == "and" and not product_open):
                return None
            pieces.append("*" if value == "and" else _OPERATORS[value])
            product_open = product_open and value != "and"
            shaped = True
            expect_term = True
        if words[position:].strip() == "":
            break
    if expect_term or not names or not shaped:
        return None
    return "".join(pieces), names
