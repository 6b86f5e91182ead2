"""The formal checks that read only the claim: the unit a named quantity needs ("an acceleration of 9.8 kg", "work is
measured in watts") and a stated physical constant against its accepted range ("c = 3.0 × 10^9 m/s")."""

from __future__ import annotations

from veriground.schema import FormalCheck
from veriground.signals.constants import ConstantFinding, find_constant_findings
from veriground.signals.dimensions import describe_dimension, short_unit
from veriground.signals.formal_check import judged
from veriground.signals.unit_dimension import (
    NamedUnitFinding,
    UnitDimensionFinding,
    find_named_unit_findings,
    find_unit_dimension_findings,
)
from veriground.text.quantities import format_value


def unit_dimension_checks(claim_text: str) -> list[FormalCheck]:
    return [
        judged(
            "unit_dimension",
            finding.consistent,
            "unit_dimension_mismatch",
            _unit_dimension_reason(finding),
            (finding.word_start, finding.located.end),
            finding.located.quantity.describe(),
            evidence_value=finding.expected_dimension,
        )
        for finding in find_unit_dimension_findings(claim_text)
    ] + [
        judged(
            "unit_dimension",
            finding.consistent,
            "unit_dimension_mismatch",
            _named_unit_reason(finding),
            (finding.start, finding.end),
            finding.unit,
            evidence_value=finding.expected_dimension,
        )
        for finding in find_named_unit_findings(claim_text)
    ]


def _named_unit_reason(finding: NamedUnitFinding) -> str:
    if finding.consistent:
        return f"{finding.word} measured in {finding.unit}, a unit of {finding.word}"
    return (
        f"{finding.word} needs a unit of {describe_dimension(finding.expected_dimension)} such as "
        f"{short_unit(finding.expected_unit)}; the claim says {finding.unit}, a unit of "
        f"{describe_dimension(finding.dimension)}"
    )


def _unit_dimension_reason(finding: UnitDimensionFinding) -> str:
    quantity = finding.located
    if finding.consistent:
        return f"{finding.word} given in {quantity.quantity.unit}, a unit of {finding.word}"
    return (
        f"{finding.word} needs a unit of {describe_dimension(finding.expected_dimension)} such as "
        f"{short_unit(finding.expected_unit)}; the claim gives {quantity.quantity.describe()}, a unit of "
        f"{describe_dimension(quantity.normal.dimension)}"
    )


def constant_checks(claim_text: str) -> list[FormalCheck]:
    return [
        judged(
            "constants",
            finding.in_range,
            "out_of_range",
            _constant_reason(finding),
            (finding.name_start, finding.located.end),
            finding.located.quantity.describe(),
            evidence_value=finding.describe_range(),
        )
        for finding in find_constant_findings(claim_text)
    ]


def _constant_reason(finding: ConstantFinding) -> str:
    label, written = finding.constant.key, finding.located.quantity.describe()
    if finding.in_range:
        return f"{label} = {written} is within {finding.describe_range()}"
    return (
        f"the claim gives {label} = {written} ({format_value(finding.located.normal.base_value)} in SI units); "
        f"the accepted value lies in {finding.describe_range()}"
    )
