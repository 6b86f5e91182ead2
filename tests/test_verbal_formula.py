"""Formulas stated in words, read as equations (signals/verbal_formula.py) and judged by the formal checks."""

from __future__ import annotations

import pytest

from veriground.domains import get_profile
from veriground.signals.formal import compute_formal, equation_evidence
from veriground.signals.verbal_formula import verbal_formulas

KE = "The kinetic energy of an object of mass m moving at speed v is\n    KE=1/2mv^2"
NEWTON = "Newton's second law states that F_net=ma."


@pytest.mark.parametrize(
    ("text", "readings"),
    [
        ("Kinetic energy is one half of mass times velocity squared.", ["KE = 1/2*m*v^2"]),
        ("Force equals mass times acceleration.", ["F = m*a", "F_net = m*a"]),
        (
            "Newton's second law states that the net force equals the mass times the acceleration.",
            ["F_net = m*a", "F = m*a"],
        ),
        ("Momentum is the product of mass and velocity.", ["p = m*v"]),
        ("Power is work divided by time.", ["P = W/t"]),
        ("Weight is mass times the acceleration due to gravity.", ["w = m*g", "W = m*g"]),
        ("Kinetic energy is twice mass times speed squared.", ["KE = 2*m*v^2"]),
    ],
)
def test_formulas_in_words_are_read_as_equations(text, readings):
    (formula,) = verbal_formulas(text)
    assert [located.equation.text for located in formula.readings] == readings
    assert text[formula.start : formula.end].lower().split()[0] in {
        "kinetic",
        "force",
        "net",
        "momentum",
        "power",
        "weight",
    }


@pytest.mark.parametrize(
    "text",
    [
        "Kinetic energy is the energy of motion.",  # words that are no formula
        "Force is a vector.",
        "Force is not mass times acceleration.",  # a negation
        "Force is mass.",  # no operator, power or coefficient
        "Kinetic energy is proportional to velocity squared.",  # a proportion, not an equation
        "Force equals mass times acceleration times",  # an operator with nothing after it
        "The product of mass and velocity is large.",  # no quantity before the verb
    ],
)
def test_other_sentences_state_no_formula(text):
    assert verbal_formulas(text) == ()


def test_a_right_formula_matches_the_evidence_equation():
    claim = "Kinetic energy is one half of mass times velocity squared."
    signal = compute_formal(claim, [KE], get_profile("physics"))
    assert [(check.check, check.outcome) for check in signal.checks] == [("dimensions", "ok"), ("equation", "ok")]
    assert equation_evidence(claim, signal) == (0,)


def test_a_wrong_formula_of_the_right_dimension_fails_the_equation_check():
    signal = compute_formal("Kinetic energy is mass times velocity squared.", [KE], get_profile("physics"))
    (failed,) = signal.mismatches
    assert (
        failed.check == "equation"
        and failed.reason == "the evidence gives KE=1/2mv^2 for KE; the claim says KE = m*v^2"
    )


def test_a_wrong_formula_of_another_dimension_fails_the_dimension_check():
    signal = compute_formal("Force equals mass divided by acceleration.", [NEWTON], get_profile("physics"))
    assert [check.check for check in signal.mismatches] == ["dimensions", "equation"]  # and F_net = ma differs


def test_the_symbol_the_evidence_writes_is_the_reading_compared():
    # force reads F first, but the evidence writes F_net: that reading is compared
    claim = "Force equals mass times acceleration."
    signal = compute_formal(claim, [NEWTON], get_profile("physics"))
    (equation,) = [check for check in signal.checks if check.check == "equation"]
    assert equation.outcome == "ok" and equation.claim_value == "F_net = m*a"
