"""A unit as pint spells it → SI base units, through the process's one pint registry (built on first use)."""

from __future__ import annotations

import math
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from veriground.text.memo import text_memo

if TYPE_CHECKING:
    import pint


def to_base_units(value: float, expression: str) -> tuple[float, str]:
    """The value of `expression` (a unit as pint spells it) in SI base units, and its dimension as text."""
    factor, dimension = _base_factor(expression)
    magnitude = value * factor if factor is not None else _pint_base(value, expression)[0]
    if not math.isfinite(magnitude):
        raise ValueError(f"{value} {expression} is not finite in base units")
    return magnitude, dimension


@text_memo(maxsize=4096)  # the same few units recur everywhere, with many values
def _base_factor(expression: str) -> tuple[float | None, str]:
    """The unit's factor to SI base units and its dimension. pint converts a multiplicative unit as value × factor,
    so value × (pint's reading of 1) is pint's own reading of the value, bit for bit; an offset or logarithmic unit
    (°C, dB: 0 does not convert to 0) has no factor and is converted by pint value by value."""
    one, dimension = _pint_base(1.0, expression)
    return (one if _pint_base(0.0, expression)[0] == 0.0 else None), dimension


def _pint_base(value: float, expression: str) -> tuple[float, str]:
    base = unit_registry().Quantity(value, expression).to_base_units()
    if base.dimensionless:
        return float(base.magnitude), str(base.units)  # "dimensionless", "radian" or "bit" never compare
    return float(base.magnitude), dimension_text(base.dimensionality)


@lru_cache(maxsize=1)
def unit_registry() -> pint.UnitRegistry[Any]:
    """The process's one pint registry (building one takes ~0.7 s; quantities and dimension checks share it)."""
    import pint

    return pint.UnitRegistry()


def dimension_text(dimensionality: Any) -> str:  # a pint UnitsContainer
    """A pint dimensionality as text with its factors in name order ("[length] * [mass] / [time] ** 2"): pint keeps
    the order the factors were first met in, which depends on what the process parsed before, so two spellings of
    one dimension would compare unequal."""
    from pint.util import UnitsContainer

    return str(UnitsContainer(dict(sorted(dict(dimensionality).items()))))
