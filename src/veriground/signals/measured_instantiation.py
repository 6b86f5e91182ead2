"""A claim's measured values put into an equation its evidence states: "A 2 kg ball moving at 3 m/s has a kinetic energy
of 9 J." against "KE=1/2mv^2". Each value goes to the symbol whose quantity has its dimension (2 kg to m, the mass;
3 m/s to v; 9 J to KE), and the equation is evaluated in SI units: ½·2·3² = 9 holds; "18 J" does not.

The equation is used only when
- its left side is one symbol, of a quantity the claim names in words ("kinetic energy": KE, or KE_e, QUANTITY_SYMBOLS);
- the claim's values fill its symbols one to one, in exactly one way (a symbol left over may be g or c, whose values
  are known), and the claim negates nothing and states no bound;
- the two sides agree within ROUNDING (holds) or differ by more than CLEAR_MISS (does not hold). Between the two the
  claim may have rounded more than the evidence did, and nothing is said.
"""

from __future__ import annotations

import re
from functools import cache
from itertools import permutations

from veriground.signals.dimensions import SYMBOL_UNITS, dimensionality_of
from veriground.signals.equation_check import LocatedEquation, evidence_equations
from veriground.signals.instantiation import Instantiation
from veriground.signals.math_parse import base_symbol
from veriground.signals.verbal_formula import QUANTITY_SYMBOLS
from veriground.text.memo import text_memo
from veriground.text.parameters import bound_before
from veriground.text.quantities import extract_quantities
from veriground.text.quantity_spans import locate_quantities
from veriground.text.terms import is_negation, tokenize_words

ROUNDING = 0.015  # "about 196 J" for ½·2·(14 m/s)²; "3.00 × 10⁸ m/s" for c
CLEAR_MISS = 0.10
# Symbols whose value the claim need not give: g near Earth's surface and c, in SI units.
KNOWN_VALUES = {"g": 9.80, "c": 2.998e8}
_MAX_SYMBOLS = 5


def instantiate_measured(claim_text: str, evidence_text: str) -> Instantiation | None:
    """The first equation of `evidence_text` that the claim's measured values instantiate (see the module's note)."""
    named = _named_symbols(claim_text)
    if not named or "=" not in evidence_text:  # no quantity named in words, or no equation: nothing to parse
        return None
    values = _claim_values(claim_text)
    if values is None:
        return None
    for located in evidence_equations(evidence_text):
        found = _instantiated(located, values, named)
        if found is not None:
            return found
    return None


def _claim_values(claim_text: str) -> list[tuple[str, float, str, tuple[int, int]]] | None:
    """(as written, SI value, dimension, span in the claim) of each claim value, when there are two or more, all
    physical quantities with units pint reads."""
    if any(is_negation(word) for word in tokenize_words(claim_text)):
        return None
    normal, _, located = locate_quantities(claim_text)
    if len(located) < 2 or len(located) != len(extract_quantities(normal)):
        return None
    values = []
    for quantity in located:
        if bound_before(normal[: quantity.quantity.start]) or not quantity.normal.dimension.startswith("["):
            return None
        written = quantity.quantity.describe()
        values.append((written, quantity.normal.base_value, quantity.normal.dimension, (quantity.start, quantity.end)))
    return values


@text_memo(maxsize=4096)
def _named_symbols(claim_text: str) -> frozenset[str]:
    """The symbols of the quantities the claim names in words ("kinetic energy": KE)."""
    return frozenset(
        symbol for phrase in _QUANTITY_NAMES.findall(claim_text) for symbol in QUANTITY_SYMBOLS[phrase.lower()]
    )


_QUANTITY_NAMES = re.compile(
    r"\b(?:" + "|".join(sorted(map(re.escape, QUANTITY_SYMBOLS), key=len, reverse=True)) + r")\b", re.IGNORECASE
)


def _instantiated(
    located: LocatedEquation, values: list[tuple[str, float, str, tuple[int, int]]], named: frozenset[str]
) -> Instantiation | None:
    expressions = located.equation.expressions
    left = expressions[0]
    # the claim names the left side's quantity: KE_e (an electron's) is a kinetic energy, KE
    if not left.is_Symbol or not {str(left), base_symbol(str(left))} & named:
        return None
    symbols = sorted({str(symbol) for side in expressions for symbol in side.free_symbols})
    if not 2 <= len(symbols) <= _MAX_SYMBOLS or any(base_symbol(name) not in SYMBOL_UNITS for name in symbols):
        return None
    fills = _fills(symbols, values)
    if len(fills) != 1:
        return None
    (fill,) = fills
    known = {name: KNOWN_VALUES[name] for name in symbols if name not in fill}
    numbers = {**{name: values[index][1] for name, index in fill.items()}, **known}
    by_name = {str(symbol): symbol for side in expressions for symbol in side.free_symbols}
    try:
        sides = [float(side.subs({by_name[name]: value for name, value in numbers.items()})) for side in expressions]
    except (TypeError, ValueError):
        return None
    miss = max(_relative_gap(sides[0], side) for side in sides[1:])
    if ROUNDING < miss <= CLEAR_MISS:
        return None
    spans = [values[index][3] for index in fill.values()]
    shown = tuple((name, values[index][0]) for name, index in sorted(fill.items()))
    return Instantiation(miss <= ROUNDING, located, shown, (min(a for a, _ in spans), max(b for _, b in spans)))


def _fills(symbols: list[str], values: list[tuple[str, float, str, tuple[int, int]]]) -> list[dict[str, int]]:
    """Every way to give each claim value to a symbol of its dimension, one value a symbol, leaving over only
    symbols of KNOWN_VALUES, which always take their known values."""
    fills = []
    free = [name for name in symbols if name not in KNOWN_VALUES]  # g is g: an acceleration the claim gives is a
    for chosen in permutations(free, len(values)):
        dimensions_agree = all(values[index][2] in _dimensions(name) for index, name in enumerate(chosen))
        if dimensions_agree and all(name in chosen or name in KNOWN_VALUES for name in symbols):
            fills.append({name: index for index, name in enumerate(chosen)})
    return fills


@cache
def _dimensions(symbol: str) -> frozenset[str]:
    return frozenset(dimensionality_of(unit) for unit in SYMBOL_UNITS.get(base_symbol(symbol), ()))


def _relative_gap(first: float, second: float) -> float:
    scale = max(abs(first), abs(second))
    return 0.0 if scale == 0 else abs(first - second) / scale
