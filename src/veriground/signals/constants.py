"""Physical constants and their plausible values: "the speed of light is 3.0 × 10^9 m/s" → out_of_range.

A constant is recognised by its name ("speed of light", "Planck's constant") or its symbol followed by "="
(`c = 3.00 × 10^8 m/s`), then the next quantity reached through linking words only. The value is judged only
when its unit has the constant's dimension, and never in a sentence that moves the constant elsewhere ("the speed
of light in water", "the acceleration due to gravity on the Moon"), so it needs no evidence from the corpus.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from veriground.signals.dimensions import dimensionality_of, short_unit
from veriground.text.quantities import format_value
from veriground.text.quantity_spans import LocatedQuantity, locate_quantities


@dataclass(frozen=True)
class PhysicalConstant:
    """A constant's names, symbol, SI value and the range a correct statement of it falls in."""

    key: str
    names: str  # regular expression over the name as written in prose
    symbol: str | None  # recognised only as "<symbol> = <quantity>"
    si_unit: str
    low: float  # plausible range in SI units, inclusive
    high: float
    elsewhere: str = ""  # words anywhere in the text that move the constant away from its standard setting


_PLANETS = r"moon|mars|jupiter|venus|mercury|saturn|neptune|uranus|pluto|sun|planet|asteroid|altitude|orbit|star"
# Sources: CODATA 2018 exact or recommended values. Ranges: 1 % around the value, except g, which textbooks
# round from 9.78 (equator) to 9.83 (poles) and up to 10 m/s² for mental arithmetic.
CONSTANTS: tuple[PhysicalConstant, ...] = (
    PhysicalConstant(
        "c",
        r"speed of light(?:\s+in\s+(?:a\s+)?(?:vacuum|free space))?",
        "c",
        "meter / second",
        2.97e8,
        3.03e8,
        r"speed of light in (?!(?:a\s+)?(?:vacuum|free\s+space)\b)|\b(?:medium|media|"
        r"glass|water|fiber|fibre|diamond|material|substance|refract\w*|index of refraction)\b",
    ),
    PhysicalConstant(
        "g",
        r"acceleration (?:due to|of) gravity|gravitational acceleration|free[- ]fall acceleration|"
        r"acceleration of free fall",
        "g",
        "meter / second ** 2",
        9.7,
        10.0,
        _PLANETS,
    ),
    PhysicalConstant(
        "G",
        r"(?:universal )?gravitational constant|Newton's constant of gravitation",
        "G",
        "newton * meter ** 2 / kilogram ** 2",
        6.61e-11,
        6.74e-11,
    ),
    PhysicalConstant("h", r"Planck(?:'s)? constant", None, "joule * second", 6.56e-34, 6.69e-34, r"reduced|ħ|h-bar"),
    PhysicalConstant(
        "e",
        r"elementary charge|charge (?:of|on) (?:an?|the|one|a single) (?:electron|proton)",
        None,
        "coulomb",
        1.586e-19,
        1.618e-19,
    ),
    PhysicalConstant("N_A", r"Avogadro(?:'s)? (?:number|constant)", "N_A", "1 / mole", 5.96e23, 6.08e23),
    PhysicalConstant("k_B", r"Boltzmann(?:'s)? constant", "k_B", "joule / kelvin", 1.367e-23, 1.395e-23),
    PhysicalConstant(
        "m_e",
        r"(?:rest )?mass of (?:an|the) electron|electron(?:'s)? (?:rest )?mass",
        "m_e",
        "kilogram",
        9.02e-31,
        9.20e-31,
    ),
)
_LINK = (
    r"(?:\s*(?:\([^()]{1,12}\)|,|is|was|are|equals?|equal to|of|about|approximately|roughly|nearly|close to|"
    r"exactly|has a value of|[=≈~:]|,?\s*(?:denoted|written)\s+\w+)\s*)*"
)


@dataclass(frozen=True)
class ConstantFinding:
    """A stated value of a known constant and whether it is in the plausible range."""

    constant: PhysicalConstant
    located: LocatedQuantity
    name_start: int  # offsets into the original text
    in_range: bool

    def describe_range(self) -> str:
        low, high = format_value(self.constant.low), format_value(self.constant.high)
        return f"{low}–{high} {short_unit(self.constant.si_unit)}"


def find_constant_findings(text: str) -> list[ConstantFinding]:
    """Every stated value of a constant in CONSTANTS, judged against its range."""
    normal, offsets, located = locate_quantities(text)
    if not located:  # a finding is a constant's name followed by a stated value
        return []
    by_start = {quantity.quantity.start: quantity for quantity in located}
    findings: list[ConstantFinding] = []
    for constant in CONSTANTS:
        if constant.elsewhere and re.search(constant.elsewhere, normal, re.IGNORECASE):
            continue
        patterns = [rf"\b(?:{constant.names})"]
        if constant.symbol:
            patterns.append(rf"(?<![\w\\]){re.escape(constant.symbol)}\s*[=≈]")
        for pattern in patterns:
            for name in re.finditer(pattern + _LINK + r"\s*", normal, re.IGNORECASE if pattern == patterns[0] else 0):
                quantity = by_start.get(name.end())
                if quantity is None:
                    continue
                finding = _judge(constant, quantity, offsets[name.start()])
                if finding is not None:
                    findings.append(finding)
    return sorted(findings, key=lambda finding: finding.located.start)


def _judge(constant: PhysicalConstant, quantity: LocatedQuantity, name_start: int) -> ConstantFinding | None:
    if quantity.normal.dimension != dimensionality_of(constant.si_unit):
        return None  # another quantity with the same letter (c = 5 cm), or a unit problem for unit_dimension
    value = abs(quantity.normal.base_value)
    in_range = constant.low <= value <= constant.high and math.isfinite(value)
    return ConstantFinding(constant, quantity, name_start, in_range)
