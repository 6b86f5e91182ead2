"""Formal checks of one claim against its evidence texts → one FormalSignal (issue 17, seed 000 T1/T4/T5).

| check          | reads                                            | outcome on failure        | needs evidence |
|----------------|--------------------------------------------------|---------------------------|----------------|
| dimensions     | each claim equation, symbols via SYMBOL_UNITS    | dimension_mismatch        | no             |
| unit_dimension | "acceleration of 9.8 kg", "work is measured in   | unit_dimension_mismatch   | no             |
|                | watts": quantity word vs the unit given it       |                           |                |
| equation       | claim equation (or formula in words) vs evidence | equation_mismatch         | yes            |
|                | equation, same left side; or the claim's counts  |                           |                |
|                | or values put into an evidence equation          |                           |                |
| complexity     | claim bound vs evidence bound, same algorithm    | complexity_mismatch       | yes            |
| constants      | a stated value of c, g, G, h, e, N_A, k_B, m_e   | out_of_range              | no             |

The checks that read only the claim (unit_dimension, constants) are built in claim_quantity_checks.py; every check's
record in formal_check.py. A profile (domains/) chooses which checks run. A claim whose equation or bound cannot be
read gets status `unparsed` with the reason when nothing else could be checked; a parse failure never raises.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from veriground.schema import FormalCheck, FormalSignal
from veriground.signals.claim_quantity_checks import constant_checks, unit_dimension_checks
from veriground.signals.complexity import find_bounds
from veriground.signals.complexity_checks import complexity_checks, words_beyond_bounds
from veriground.signals.dimensions import check_dimensions, describe_dimension, dimensionality_of
from veriground.signals.equation_check import (
    LocatedEquation,
    compare_equation,
    evidence_equations,
    find_parsed_equations,
)
from veriground.signals.formal_check import FORMAL_CHECKS, judged
from veriground.signals.instantiation import instantiate
from veriground.signals.measured_instantiation import instantiate_measured
from veriground.signals.unit_dimension import (
    POUND_UNITS,
)
from veriground.signals.verbal_formula import verbal_formulas
from veriground.text.content import content_stems
from veriground.text.memo import text_memo
from veriground.text.quantity_spans import LocatedQuantity, locate_quantities
from veriground.text.readable import readable_text
from veriground.text.terms import is_negation, tokenize_words

# "f(6) = 36", "P(B) = 3/13": a letter applied to one argument is a function, not a product with a quantity.
_FUNCTION_NOTATION = re.compile(r"(?<![A-Za-z\\])[A-Za-z]\(\s*(?:[A-Za-z]|\d+)\s*\)")
_EQUALS_ONLY = re.compile(r"\s*=\s*")
_DIMENSIONLESS = re.compile(r"^(?!\[)")  # pint spells a dimensionless base unit without brackets: "radian"
_OPERATOR_AFTER = re.compile(r"\s*[×*·⋅∙/^(+\-−\w]")
_OPERATOR_BEFORE = re.compile(r"(?:[×*·⋅∙/^)+\-−]|\bx)\s*$")
_SYMBOL_AFTER = re.compile(r"\s*[A-Za-zα-ωΑ-Ω(]")
# "F ≈ 1/r²" states a proportionality with the constants dropped; its sides need not share a dimension.
_APPROXIMATION = re.compile(r"≈|≃|∝|\\(?:approx|simeq|propto|sim)\b")
_PHYSICS_CONTEXT = re.compile(
    r"\b(?:energy|mass|velocity|speed|acceleration|force|momentum|power|work|gravity|gravitational|kinetic|"
    r"potential|joules?|newtons?|watts?|friction|displacement|frequency|wavelength|torque|pressure|density|"
    r"physics|light|photons?|relativity|Einstein|motion|projectile)\b|\bkg\b|\bm/s",
    re.IGNORECASE,
)


class FormalProfile(Protocol):
    """What the formal checks read from a domain profile (domains.DomainProfileSpec satisfies it)."""

    @property
    def name(self) -> str: ...

    @property
    def formal_checks(self) -> tuple[str, ...]: ...

    @property
    def dimensions_need_physics_context(self) -> bool: ...


@text_memo(maxsize=16_384)  # every claim that retrieves a passage asks it again
def talks_about_physics(text: str) -> bool:
    """Whether the text uses a physics word, so its symbols may be read as physical quantities."""
    return _PHYSICS_CONTEXT.search(text) is not None


def compute_formal(claim_text: str, evidence_texts: Sequence[str], profile: FormalProfile) -> FormalSignal:
    """Run the profile's formal checks on the claim; spans index `claim_text` and `evidence_texts[i]`."""
    enabled = set(profile.formal_checks)
    checks: list[FormalCheck] = []
    problems: list[str] = []
    conflicts: list[str] = []
    quantity_checks, quantity_spans = _quantity_equation_checks(claim_text)
    if enabled & {"dimensions", "equation"}:
        equations, equation_problems = _symbolic_equations(claim_text, quantity_spans)
        problems.extend(equation_problems)
        # A formula in words ("force equals mass times acceleration") is judged as its readings as equations.
        readings = [(located,) for located in equations] + [f.readings for f in verbal_formulas(claim_text)]
        # Outside a physics profile, a_1 = a_0·r is a sequence, not an acceleration: symbols are read as physical
        # quantities only when the claim or its evidence talks about physics.
        physical = bool(readings) and (
            not profile.dimensions_need_physics_context or any(map(talks_about_physics, (claim_text, *evidence_texts)))
        )  # without an equation there is nothing to read as physical
        if "dimensions" in enabled and physical:
            checks.extend(_dimension_checks([choices[0] for choices in readings]))
        if "equation" in enabled and evidence_texts:
            checks.extend(_equation_checks(readings, evidence_texts))
            checks.extend(_instantiation_checks(claim_text, evidence_texts))
    if "dimensions" in enabled:
        checks.extend(quantity_checks)
    if "unit_dimension" in enabled:
        checks.extend(unit_dimension_checks(claim_text))
    if "complexity" in enabled:
        bound_checks, complexity_problems, conflicts = complexity_checks(claim_text, evidence_texts)
        checks.extend(bound_checks)
        problems.extend(complexity_problems)
    if "constants" in enabled:
        checks.extend(constant_checks(claim_text))
    checks.sort(key=lambda check: (check.claim_span, FORMAL_CHECKS.index(check.check)))
    return FormalSignal(
        status="computed" if checks else "unparsed" if problems else "not_applicable",
        reason=_summary(checks, problems, profile.name),
        domain=profile.name,
        checks=tuple(checks),
        unparsed=tuple(problems),
        evidence_conflicts=tuple(conflicts),
    )


def _symbolic_equations(
    claim_text: str, quantity_spans: Sequence[tuple[int, int]]
) -> tuple[list[LocatedEquation], list[str]]:
    """The claim's equations of symbols, and a problem line for each one sympy cannot read: "9.8 m/s² = 980 cm/s²" is
    a quantity equation, judged by its units, not by symbols m and s."""
    equations, problems = find_parsed_equations(claim_text)
    return [eq for eq in equations if not any(a < eq.end and eq.start < b for a, b in quantity_spans)], problems


def _summary(checks: list[FormalCheck], problems: list[str], domain: str) -> str:
    flagged = [check for check in checks if check.outcome != "ok"]
    if flagged:
        return flagged[0].reason
    if checks:
        return f"{len(checks)} formal check(s) passed: " + ", ".join(sorted({check.check for check in checks}))
    if problems:
        return problems[0]
    return f"no equation, complexity bound, named quantity or constant for the {domain} profile's checks"


def _dimension_checks(equations: list[LocatedEquation]) -> list[FormalCheck]:
    checks = []
    for located in equations:
        text = located.equation.text
        if _FUNCTION_NOTATION.search(text) or _APPROXIMATION.search(text):
            continue
        if has_written_unit(text):  # "x_f = 10 cm": units written out, not symbols
            continue
        verdict = check_dimensions(located.equation.expressions)
        if not verdict.applies:
            continue
        text = located.equation.text
        if verdict.consistent:
            reason = f"{text}: both sides are {verdict.sides[0]}"
        else:
            reason = f"{text} is dimensionally inconsistent: {verdict.reason}"
        span, sides = (located.start, located.end), " vs ".join(verdict.sides) or None
        checks.append(judged("dimensions", verdict.consistent, "dimension_mismatch", reason, span, sides))
    return checks


def _quantity_equation_checks(claim_text: str) -> tuple[list[FormalCheck], list[tuple[int, int]]]:
    """ "9.8 m/s² = 980 cm/s²": two quantities joined by "=" must share a dimension; returns the checks and spans."""
    checks, spans = [], []
    located = locate_quantities(claim_text)[2]
    for first, second in zip(located, located[1:], strict=False):
        if not _EQUALS_ONLY.fullmatch(claim_text[first.end : second.start]):
            continue
        if _OPERATOR_AFTER.match(claim_text, second.end) or _OPERATOR_BEFORE.search(claim_text, 0, first.start):
            continue  # "1 N = 1 kg × 1 m/s²": a side is a product, not the quantity alone
        if _DIMENSIONLESS.match(first.normal.dimension) or _DIMENSIONLESS.match(second.normal.dimension):
            continue  # "1 rad = 0.01 J/kg": rad is also the radiation dose unit; pint reads it as the radian
        same = first.normal.dimension == second.normal.dimension or _pound_force(first, second)
        written = f"{first.quantity.describe()} = {second.quantity.describe()}"
        reason = (
            f"{written}: both sides are {describe_dimension(first.normal.dimension)}"
            if same
            else f"{written} equates {describe_dimension(first.normal.dimension)} with "
            f"{describe_dimension(second.normal.dimension)}"
        )
        dimensions = f"{first.normal.dimension} vs {second.normal.dimension}"
        checks.append(judged("dimensions", same, "dimension_mismatch", reason, (first.start, second.end), dimensions))
        spans.append((first.start, second.end))
    return checks, spans


def _pound_force(first: LocatedQuantity, second: LocatedQuantity) -> bool:
    """ "1 N = 0.225 lb": a pound next to a force is pound-force."""
    force = dimensionality_of("newton")
    pair = {first.normal.dimension, second.normal.dimension}
    units = [quantity.quantity.unit for quantity in (first, second)]
    pounds = any(unit is not None and unit.lower() in POUND_UNITS for unit in units)  # located: never None
    return pounds and pair == {force, "[mass]"}


def has_written_unit(text: str) -> bool:
    """A quantity such as "10 cm" inside an equation; "1/2 m v^2" reads m as a symbol, since a symbol follows."""
    return any(not _SYMBOL_AFTER.match(text, quantity.end) for quantity in locate_quantities(text)[2])


def _equation_checks(readings: list[tuple[LocatedEquation, ...]], evidence_texts: Sequence[str]) -> list[FormalCheck]:
    """Each claim equation (its readings, tried in order: a formula in words may have several) against the evidence
    equations for the same left side."""
    if not readings:  # the evidence's equations are read only when the claim states one
        return []
    evidence = [list(evidence_equations(text)) for text in evidence_texts]
    checks = []
    for choices in readings:
        found = next(
            ((located, compared) for located in choices if (compared := compare_equation(located, evidence))), None
        )
        if found is None:
            continue
        located, comparison = found
        claim_text, evidence_text = located.equation.text, comparison.evidence.equation.text
        if comparison.equivalent:
            reason = f"the claim's {claim_text} matches the evidence's {evidence_text}"
        else:
            reason = f"the evidence gives {evidence_text} for {comparison.left_side}; the claim says {claim_text}"
        checks.append(
            judged(
                "equation",
                comparison.equivalent,
                "equation_mismatch",
                reason,
                (located.start, located.end),
                claim_text,
                evidence_index=comparison.evidence_index,
                evidence_span=(comparison.evidence.start, comparison.evidence.end),
                evidence_value=evidence_text,
            )
        )
    return checks


def _instantiation_checks(claim_text: str, evidence_texts: Sequence[str]) -> list[FormalCheck]:
    """The claim's counts put into an equation the evidence states over named counts (signals/instantiation.py), or
    its measured values into one over quantities it names (signals/measured_instantiation.py): one check, from the
    first evidence text that has such an equation."""
    found = next(
        (
            (index, result)
            for index, text in enumerate(evidence_texts)
            if (result := instantiate(claim_text, text) or instantiate_measured(claim_text, text)) is not None
        ),
        None,
    )
    if found is None:
        return []
    index, result = found
    located = result.equation
    put = ", ".join(f"{symbol} = {value}" for symbol, value in result.values)
    held = "holds" if result.holds else "does not hold"
    reason = f"the evidence's {located.equation.text} {held} for the claim's values ({put})"
    return [
        judged(
            "equation",
            result.holds,
            "equation_mismatch",
            reason,
            result.claim_span,
            claim_text[result.claim_span[0] : result.claim_span[1]],
            evidence_index=index,
            evidence_span=(located.start, located.end),
            evidence_value=located.equation.text,
        )
    ]


def equation_evidence(claim_text: str, signal: FormalSignal | None) -> tuple[int, ...]:
    """The indexes of the evidence texts that give an equation of the claim, when every equation the claim states
    (at least one, all readable) matched the evidence's equation for the same left side and no formal check failed;
    otherwise none."""
    if signal is None or signal.mismatches:
        return ()
    matched = [check for check in signal.checks if check.check == "equation" and check.evidence_index is not None]
    if not matched:  # most claims: no equation the evidence gives, and nothing to parse again
        return ()
    equations, unreadable = _symbolic_equations(claim_text, _quantity_equation_checks(claim_text)[1])
    stated = len(equations) + len(verbal_formulas(claim_text))
    if unreadable or len({check.claim_span for check in matched}) < stated:
        return ()
    return tuple(sorted({check.evidence_index for check in matched if check.evidence_index is not None}))


def bound_evidence(claim_text: str, signal: FormalSignal | None, evidence_texts: Sequence[str]) -> tuple[int, ...]:
    """The indexes of the evidence texts that give a complexity bound of the claim for the same algorithm, case and
    resource, and hold every other content word of the claim, when every bound the claim states (at least one, all
    readable) matched and no formal check failed; otherwise none. A negated claim ("Merge sort does not run in
    O(n log n) time") gives none: its bound matches, and it says the opposite."""
    if signal is None or signal.mismatches or any(is_negation(word) for word in tokenize_words(claim_text)):
        return ()
    matched = [check for check in signal.checks if check.check == "complexity" and check.evidence_index is not None]
    if not matched:
        return ()
    bounds, unreadable = find_bounds(claim_text)
    if unreadable or len({check.claim_span for check in matched}) < len(bounds):
        return ()
    rest = words_beyond_bounds(claim_text, bounds)
    indexes = {check.evidence_index for check in matched if check.evidence_index is not None}
    return tuple(sorted(index for index in indexes if rest <= content_stems(readable_text(evidence_texts[index]))))
