"""Dimensional analysis of an equation: symbols → physical dimensions (a documented table) → pint → both sides agree?

`E = mc^3` reads E as energy (kg·m²/s²) and m·c³ as kg·m³/s³, so the sides disagree: dimension_mismatch.
A symbol with several conventional readings (c: speed of light or circumference) makes the equation consistent
when any reading does, so only an equation no reading can save is flagged.
Only equations whose every symbol is in SYMBOL_UNITS are judged (a symbol outside it, such as `n` or `k`, means
the equation is not about these quantities), and an equation with a decimal number in it is skipped: a decimal
is a substituted measurement (`PE = (9.80)mh`) whose unit the text no longer shows.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from veriground.signals.math_parse import FLATTENED_DIGIT, base_symbol
from veriground.text.si_units import dimension_text, unit_registry

if TYPE_CHECKING:
    import pint
    import sympy

# Symbol → the SI units of the quantities it conventionally names in introductory physics (OpenStax usage); a
# symbol with several readings is consistent if any reading makes the equation consistent (c = 2πr is a
# circumference, E = mc² an energy). Letters whose readings are too many to enumerate usefully are left out:
# V (volume, voltage, speed), T (period, temperature, tension), Q (heat, charge), k (spring, Boltzmann, wave
# number), I (current, inertia, intensity), N (newton, normal force, a count), A (area, amplitude), s (second,
# displacement), q, R, L, C.
SYMBOL_UNITS: dict[str, tuple[str, ...]] = {
    "E": ("joule", "newton / coulomb"),  # energy; electric field
    "KE": ("joule",),  # kinetic energy
    "PE": ("joule",),  # potential energy
    "U": ("joule",),  # potential or internal energy
    "W": ("joule", "newton"),  # work; weight
    "m": ("kilogram", "dimensionless"),  # mass; magnification
    "M": ("kilogram",),  # mass
    "v": ("meter / second",),  # velocity
    "u": ("meter / second",),  # initial velocity
    "c": ("meter / second", "meter"),  # speed of light; circumference
    "a": ("meter / second ** 2", "meter"),  # acceleration; a side length
    "g": ("meter / second ** 2",),  # gravitational acceleration
    "F": ("newton",),  # force
    "p": ("kilogram * meter / second", "pascal"),  # momentum; pressure
    "t": ("second",),  # time
    "d": ("meter",),  # distance, diameter
    "x": ("meter",),  # position
    "y": ("meter",),  # vertical position
    "h": ("meter", "joule * second"),  # height; Planck's constant
    "r": ("meter",),  # radius
    "λ": ("meter",),  # wavelength
    "P": ("watt", "pascal", "second"),  # power; pressure; period
    "ρ": ("kilogram / meter ** 3", "ohm * meter"),  # density; resistivity
    "f": ("hertz", "meter", "newton"),  # frequency; focal length; friction force
    "ω": ("radian / second",),  # angular frequency
    "τ": ("newton * meter", "second"),  # torque; time constant
    "G": ("newton * meter ** 2 / kilogram ** 2",),  # gravitational constant
    "θ": ("radian",),  # angle
}
# "a_n", "a_{n-1}", "x_{k+1}": a subscript that is an index variable or an index expression marks a sequence.
_SEQUENCE_INDEX = re.compile(r"_\{?(?:[njkm]|[^{}]*[-+][^{}]*)\}?$")
# Readings tried per equation at most; an equation with more ambiguous symbols than this allows is not judged.
MAX_READINGS = 256


@dataclass(frozen=True)
class DimensionVerdict:
    """Whether one equation is dimensionally consistent; `applies` is False when it cannot be judged."""

    applies: bool
    consistent: bool = True
    sides: tuple[str, ...] = ()  # each side's dimension in SI base units, "kilogram * meter ** 2 / second ** 2"
    reason: str = ""


class _NotJudged(Exception):
    """The equation leaves a unit unwritten (a bare number added to a quantity), so no reading can be judged."""


class _Inconsistent(Exception):
    """Terms of different dimensions are added, or a function gets an argument with a dimension."""


def check_dimensions(expressions: tuple[sympy.Expr, ...]) -> DimensionVerdict:
    """Every side of an equation chain evaluated to a pint dimension; consistent when all sides agree."""
    import sympy  # imported on first use: it adds ~0.4 s to start-up

    symbols = {str(symbol) for expression in expressions for symbol in expression.free_symbols}
    unknown = sorted(name for name in symbols if base_symbol(name) not in SYMBOL_UNITS)
    if unknown:
        return DimensionVerdict(False, reason=f"symbols without a dimension in the table: {', '.join(unknown)}")
    if not symbols:
        return DimensionVerdict(False, reason="no symbols")
    indexed = sorted(name for name in symbols if _SEQUENCE_INDEX.search(name))
    if indexed:
        return DimensionVerdict(False, reason=f"{indexed[0]} is a term of a sequence, not a physical quantity")
    flattened = sorted(name for name in symbols if FLATTENED_DIGIT in name)
    if flattened:
        reason = f"a digit glued to a symbol ({flattened[0]}) may be an exponent or an index"
        return DimensionVerdict(False, reason=reason)
    if any(isinstance(atom, sympy.Float) for expression in expressions for atom in expression.atoms(sympy.Number)):
        return DimensionVerdict(False, reason="a decimal number stands for a substituted measurement")
    if any(not expression.free_symbols for expression in expressions):
        return DimensionVerdict(False, reason="a side is a number whose unit is not written")
    if all(isinstance(expression, sympy.Symbol) for expression in expressions):
        return DimensionVerdict(False, reason="one symbol set equal to another (u = g) renames, it states no law")
    bases = sorted({base_symbol(name) for name in symbols})
    readings = list(itertools.product(*(SYMBOL_UNITS[base] for base in bases)))
    if len(readings) > MAX_READINGS:
        return DimensionVerdict(False, reason=f"more than {MAX_READINGS} readings of its symbols")
    first_failure: DimensionVerdict | None = None
    for reading in readings:
        try:
            verdict = _judge_reading(expressions, dict(zip(bases, reading, strict=True)))
        except _NotJudged as err:
            return DimensionVerdict(False, reason=str(err))
        if verdict.consistent:
            return verdict
        first_failure = first_failure or verdict
    return first_failure or DimensionVerdict(False, reason="no reading")


def _judge_reading(expressions: tuple[sympy.Expr, ...], units: dict[str, str]) -> DimensionVerdict:
    sides = []
    for expression in expressions:
        try:
            sides.append(_units_of(expression, units))
        except _Inconsistent as err:
            return DimensionVerdict(True, False, reason=str(err))
    described = tuple(_describe(side) for side in sides)
    first = sides[0]
    for index, side in enumerate(sides[1:], start=1):
        if side.dimensionality != first.dimensionality:
            return DimensionVerdict(
                True, False, described, f"the left side is {described[0]} but side {index + 1} is {described[index]}"
            )
    return DimensionVerdict(True, True, described)


def _units_of(expression: sympy.Expr, units: dict[str, str]) -> pint.Quantity[Any]:
    import sympy  # imported on first use: it adds ~0.4 s to start-up

    registry = _registry()
    if isinstance(expression, sympy.Symbol):
        return registry.Quantity(1, units[base_symbol(expression.name)])
    if expression.is_number:
        return registry.Quantity(1, "dimensionless")
    if isinstance(expression, sympy.Add):
        if any(term.is_number for term in expression.args):
            raise _NotJudged(f"the bare number in {expression} carries no written unit")
        terms = [_units_of(term, units) for term in expression.args]
        for term in terms[1:]:
            if term.dimensionality != terms[0].dimensionality:
                raise _Inconsistent(f"a sum adds {_describe(terms[0])} to {_describe(term)}")
        return terms[0]
    if isinstance(expression, sympy.Mul):
        result = registry.Quantity(1, "dimensionless")
        for factor in expression.args:
            result = result * _units_of(factor, units)
        return result
    if isinstance(expression, sympy.Pow):
        base, exponent = expression.args
        if not exponent.is_number:
            if _units_of(base, units).dimensionless and _units_of(exponent, units).dimensionless:
                return registry.Quantity(1, "dimensionless")
            raise _NotJudged(f"a symbolic exponent in {expression} is mathematics, not a physical law")
        power: pint.Quantity[Any] = _units_of(base, units) ** float(exponent)  # pint types `**` as Any
        return power
    if isinstance(expression, sympy.Function):
        for argument in expression.args:
            if not _units_of(argument, units).dimensionless:
                raise _Inconsistent(f"{expression.func.__name__}() of a quantity with a dimension")
        return registry.Quantity(1, "dimensionless")
    raise _Inconsistent(f"cannot give a dimension to {expression}")


def _describe(quantity: pint.Quantity[Any]) -> str:
    base = quantity.to_base_units()
    if base.dimensionless:
        return "dimensionless"
    return f"{base.units:~}".replace(" ** ", "^").replace(" * ", "·").replace(" / ", "/")


def _registry() -> pint.UnitRegistry[Any]:
    return unit_registry()


def dimensionality_of(unit: str) -> str:
    """The pint dimensionality of a unit, spelled as text/quantities.py spells it ("[length] / [time] ** 2")."""
    return dimension_text(_registry().Quantity(1, unit).dimensionality)


_UNIT_SYMBOLS = {
    "meter": "m",
    "second": "s",
    "kilogram": "kg",
    "newton": "N",
    "joule": "J",
    "kelvin": "K",
    "coulomb": "C",
    "mole": "mol",
    "watt": "W",
    "pascal": "Pa",
    "hertz": "Hz",
    "volt": "V",
    "ohm": "Ω",
    "radian": "rad",
}


def short_unit(unit: str) -> str:
    """A pint unit expression in short form: "meter / second ** 2" → "m/s^2"."""
    text = unit.replace(" ** ", "^").replace(" * ", "·").replace(" / ", "/")
    for name, symbol in _UNIT_SYMBOLS.items():
        text = re.sub(rf"\b{name}\b", symbol, text)
    return text


def describe_dimension(dimensionality: str) -> str:
    """pint's "[length] / [time] ** 2" as "length/time^2" for a one-line reason."""
    return dimensionality.replace("[", "").replace("]", "").replace(" ** ", "^").replace(" * ", "·").replace(" / ", "/")
