"""Numeric signal: a claim and its evidence texts → whether the claim's quantities, in SI base units, match
the evidence's (9.8 m/s² equals 980 cm/s²; 3.0 × 10⁹ m/s does not equal 3.0 × 10⁸ m/s).

Each claim quantity is matched (an equal evidence quantity), mismatched (evidence quantities in the same role,
none equal) or absent (nothing comparable). The claim is a match only when every quantity matches, a mismatch
when any quantity mismatches, and absent otherwise, so an unevidenced number is never passed as matched.

A caller may also pass the passages around the evidence sentences (`context_texts`): a quantity stated there
counts as matched, but nothing there is a rival. A claim that joins two facts of one passage ("sales were $441
million, and the forecast stays at $1.7 to $1.8 billion") is aligned with one of its sentences, and the other
value, read against that sentence alone, was a mismatch (8 supported SummEdits rows of 200 held out).

A claim quantity after "less than", "over", "at least", "up to" and the like is a bound, not a value: it is matched
by the same number in the evidence (which states the bound too) or by an evidence quantity in the same role that
satisfies it ("grossed less than $1 million" by "grossed $181,674"), and mismatched only when the evidence has such
quantities and none does. Conversely a plain claim value that meets a bound the evidence states ("a purchase of
$12,000" against "buying something over $10,000") is no rival of it. A claim that negates what the evidence
states plainly ("did not sign in 2014" against "in 2018, she signed") is not contradicted by a different number, so
its numbers are never a mismatch there; the NLI reads it. Nor is a claim quantity whose number an evidence sentence
writes bare ("the age was set at 25" for "at least 25 years old"): its rivals ("3 days" of work) may be of other facts.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import NamedTuple

from veriground.schema import NumericSignal, SignalStatus
from veriground.text.parameters import bound_before, case_quantities, stated_quantities
from veriground.text.quantities import (
    NormalQuantity,
    UnitConversionError,
    comparable_quantities,
    extract_quantities,
    normalise_leniently,
    normalise_quantity,
    same_quantity,
    states_rounded,
)
from veriground.text.terms import is_negation, normalise_text, tokenize_words

NO_NUMBERS_REASON = "claim has no numbers"
_TIME = "[time]"
NO_EVIDENCE_REASON = "no evidence"


def compute_numeric(claim_text: str, evidence_texts: Sequence[str], context_texts: Sequence[str] = ()) -> NumericSignal:
    """Compare the claim's quantities with the evidence's; a mismatch names the closest evidence value. A quantity
    equal to one stated in `context_texts` is matched too (see the module's note).

    A claim unit pint cannot normalise makes the signal unavailable; such a unit in the evidence only makes
    that evidence quantity comparable with the same written unit.
    """
    read = _read(claim_text, evidence_texts)
    if isinstance(read, _Nothing):
        return NumericSignal(status=read.status, reason=read.reason)
    claimed, evidence = read
    outcomes, mismatches = _judged(claim_text, evidence_texts, read, _stated(context_texts))
    return NumericSignal(
        status=SignalStatus.COMPUTED,
        outcome=_outcome(outcomes),
        claim_quantities=tuple(_described(quantity) for quantity in claimed),
        evidence_quantities=tuple(dict.fromkeys(_described(quantity) for quantity in evidence)),
        mismatches=tuple(mismatches),
    )


class UnitNumbers(NamedTuple):
    """What the aggregator's features read of the claim's numbers against one evidence unit, read once."""

    outcome: str | None  # compute_numeric's outcome ("match", "mismatch", "absent"); None where it computes none
    bars_refutation: bool  # see _bars_refutation


def unit_numbers(claim_text: str, unit_text: str) -> UnitNumbers:
    """The claim's numbers against one evidence unit, without the record (read for every claim and unit)."""
    read = _read(claim_text, [unit_text])
    if isinstance(read, _Nothing):
        return UnitNumbers(None, False)
    outcome = _outcome(_judged(claim_text, [unit_text], read)[0])
    return UnitNumbers(outcome, _bars_refutation(claim_text, unit_text, read))


def _bars_refutation(claim_text: str, unit_text: str, read: _Read) -> bool:
    """Whether the unit's numbers leave the claim standing whatever a model reads of its words: every number of the
    claim is a bound that every plain value of the unit in the same role meets ("grossed less than $1 million" against
    "grossed $181,674"), or the claim denies values that the plain unit gives as others ("did not sign her first
    contract in 2014" against "in 2018, she signed her first contract"). NLI models read both as contradictions."""
    claimed, evidence = read
    if _negates_plain_evidence(claim_text, [unit_text]):
        return all(
            any(comparable_quantities(quantity, other.quantity) for other in evidence)
            and not any(same_quantity(quantity, other.quantity) for other in evidence)
            for quantity, *_ in claimed
        )
    return all(bound is not None and _all_meet(quantity, bound, evidence) for quantity, bound, *_ in claimed)


def _all_meet(quantity: NormalQuantity, bound: str, evidence: Sequence[_Stated]) -> bool:
    """The evidence gives values in the bound's role, and every one of them meets it, or is a bound that leaves a
    value meeting both ("less than $1 million" against "grossed $181,674 on a budget of $160 million" is not settled:
    the budget does not; "at most 2" against "at least 1" is)."""
    others = [other for other in evidence if comparable_quantities(quantity, other.quantity)]
    return bool(others) and all(
        _MEETS[bound](other.quantity.base_value, quantity.base_value)
        if other.bound is None
        else _bounds_overlap(bound, quantity.base_value, other.bound, other.quantity.base_value)
        for other in others
    )


class _Nothing(NamedTuple):
    """Why there is nothing to compare: the status and reason of the signal."""

    status: SignalStatus
    reason: str


class _Stated(NamedTuple):
    """A quantity and, when its text states a bound ("less than 3 kg"), the test a value must pass to meet it."""

    quantity: NormalQuantity
    bound: str | None  # a name in _MEETS
    case: bool = False  # a claim's: it sets up the case the claim speaks of (text/parameters.py), never a mismatch
    rival: bool = True  # an evidence quantity of the claim's case, or of a claim without one, may be a rival


_Read = tuple[list[_Stated], list[_Stated]]
# Whether a value (first) meets the bound (second).
_MEETS: dict[str, Callable[[float, float], bool]] = {
    "at most": operator.le,
    "at least": operator.ge,
    "under": operator.lt,
    "over": operator.gt,
}


def _read(claim_text: str, evidence_texts: Sequence[str]) -> _Read | _Nothing:
    """The claim's and the evidence's quantities, or why there is nothing to compare."""
    found = extract_quantities(claim_text)
    if not found:
        return _Nothing(SignalStatus.NOT_APPLICABLE, NO_NUMBERS_REASON)
    passages = [text for text in evidence_texts if text.strip()]
    if not passages:
        return _Nothing(SignalStatus.NOT_APPLICABLE, NO_EVIDENCE_REASON)
    normal = normalise_text(claim_text)
    cases = {quantity.start for quantity in case_quantities(claim_text)}
    try:
        claimed = [
            _Stated(normalise_quantity(quantity), bound_before(normal[: quantity.start]), quantity.start in cases)
            for quantity in found
        ]
    except UnitConversionError as err:
        return _Nothing(SignalStatus.UNAVAILABLE, str(err))
    return claimed, _stated(passages, [stated.quantity for stated in claimed if stated.case])


def _stated(texts: Sequence[str], cases: Sequence[NormalQuantity] = ()) -> list[_Stated]:
    """The quantities the texts state, each with the bound its words set (units pint cannot read kept as written).
    A question states nothing: "Could a tree with 7 vertices have only 5 edges?" gives no value of edges. A text
    that lacks one of the claim's case numbers (`cases`) speaks of another case: its quantities are no rivals; nor is
    a constant of a formula ("$5^5 - {5 \\choose 1}4^5$", text/parameters.py)."""
    stated = []
    for text in texts:
        normal = normalise_text(text)
        found = [
            _Stated(normalise_leniently(quantity), bound_before(normal[: quantity.start]), rival=not constant)
            for quantity, constant in stated_quantities(text)
        ]
        if not all(any(_same_case(case, other.quantity) for other in found) for case in cases):
            found = [other._replace(rival=False) for other in found]
        stated.extend(found)
    return stated


def _same_case(case: NormalQuantity, other: NormalQuantity) -> bool:
    """The evidence quantity is the claim's case number: the same value, and of the same noun when both count one
    ("10 vertices" is not the case of "10 edges")."""
    labels = (case.quantity.label, other.quantity.label)
    counted = all(label is not None and label.startswith("count:") for label in labels)
    return same_quantity(case, other) and (not counted or labels[0] == labels[1])


def _compare(
    claimed: list[_Stated], evidence: list[_Stated], stated: Sequence[_Stated] = ()
) -> tuple[list[str], list[str]]:
    """Each claim quantity's outcome, and a line per mismatch naming the closest evidence value; a quantity equal
    to one in `stated` is matched, though `stated` holds no rivals. A bound is matched by the same number (the
    evidence states that bound or value too) or by a plain value that meets it, never by another bound: "above
    $5,000" is not "over $10,000"."""
    outcomes, mismatches = [], []
    everything = (*evidence, *stated)
    for quantity, bound, case, _ in claimed:
        matched = any(
            same_quantity(quantity, other.quantity) or states_rounded(quantity, other.quantity) for other in everything
        )
        if bound is not None and not matched:
            matched = any(
                other.bound is None
                and comparable_quantities(quantity, other.quantity)
                and _MEETS[bound](other.quantity.base_value, quantity.base_value)
                for other in everything
            )
        if matched:
            outcomes.append("match")
            continue
        if _stated_bare(quantity, evidence):
            outcomes.append("absent")  # "the age was set at 25" may be the claim's "at least 25 years old"
            continue
        rivals = (
            [] if case else [other.quantity for other in evidence if other.rival and _rival(quantity, bound, other)]
        )
        if not rivals:
            outcomes.append("absent")
            continue
        outcomes.append("mismatch")
        closest = min(rivals, key=lambda rival: _distance(quantity, rival))
        mismatches.append(f"claim {_described(_Stated(quantity, bound))} vs evidence {closest.quantity.describe()}")
    return outcomes, mismatches


def _stated_bare(quantity: NormalQuantity, evidence: Sequence[_Stated]) -> bool:
    """Whether an evidence sentence writes the claim quantity's number bare (no unit, nothing counted): it may be the
    same quantity with its unit left to the context ("the age was set at 25" for "at least 25 years old"), so a rival
    of another value is no proof of a mismatch (the NLI reads the claim)."""
    if quantity.quantity.unit is None and quantity.quantity.label is None:
        return False  # a bare claim number is compared as it is
    return any(
        other.quantity.quantity.unit is None
        and other.quantity.quantity.label is None
        and other.quantity.quantity.value == quantity.quantity.value
        for other in evidence
    )


def _rival(quantity: NormalQuantity, bound: str | None, other: _Stated) -> bool:
    """An evidence quantity in the claim's role that the claim's value does not agree with: a bound the evidence
    states is met by a plain claim value that satisfies it ("a purchase of $12,000" meets "over $10,000"). Not for a
    time: "repaid over 30 years" is a span, not a bound."""
    if not comparable_quantities(quantity, other.quantity):
        return False
    if bound is not None and other.bound is not None and other.quantity.dimension != _TIME:
        return not _bounds_overlap(bound, quantity.base_value, other.bound, other.quantity.base_value)
    if bound is not None or other.bound is None or other.quantity.dimension == _TIME:
        return True
    return not _MEETS[other.bound](quantity.base_value, other.quantity.base_value)


_UPPER = frozenset({"at most", "under"})


def _bounds_overlap(first: str, first_value: float, second: str, second_value: float) -> bool:
    """Whether an upper and a lower bound leave a value that meets both: "at most 2" and "at least 1" do (the
    chromatic number of a bipartite graph against "at least 1 and at most the number of vertices"), "at most 2" and
    "at least 3" do not. Two bounds the same way are thresholds, never agreeing unless equal ("above $5,000" is not
    "over $10,000": _compare)."""
    if (first in _UPPER) == (second in _UPPER):
        return False
    (upper, high), (lower, low) = sorted(
        ((first, first_value), (second, second_value)), key=lambda b: b[0] not in _UPPER
    )
    return low < high or (low == high and upper == "at most" and lower == "at least")


def _judged(
    claim_text: str, evidence_texts: Sequence[str], read: _Read, stated: Sequence[_Stated] = ()
) -> tuple[list[str], list[str]]:
    """_compare's outcomes and mismatch lines, with no mismatch where the claim negates plain evidence."""
    outcomes, mismatches = _compare(*read, stated)
    if _negates_plain_evidence(claim_text, evidence_texts):
        return ["absent" if item == "mismatch" else item for item in outcomes], []
    return outcomes, mismatches


def _described(claimed: _Stated) -> str:
    text = claimed.quantity.quantity.describe()
    return text if claimed.bound is None else f"{claimed.bound} {text}"


def _negates_plain_evidence(claim_text: str, evidence_texts: Sequence[str]) -> bool:
    """The claim holds a negation and none of the evidence sentences does."""
    if not any(is_negation(word) for word in tokenize_words(claim_text)):
        return False
    return not any(is_negation(word) for text in evidence_texts for word in tokenize_words(text))


def _outcome(outcomes: list[str]) -> str:
    if "mismatch" in outcomes:
        return "mismatch"
    if all(item == "match" for item in outcomes):
        return "match"
    return "absent"


def _distance(first: NormalQuantity, second: NormalQuantity) -> float:
    """How far apart two values are in orders of magnitude; opposite signs or a zero count as far."""
    a, b = first.base_value, second.base_value
    if a == 0 or b == 0 or (a < 0) != (b < 0):
        return math.inf if a != b else 0.0
    return abs(math.log10(abs(a)) - math.log10(abs(b)))
