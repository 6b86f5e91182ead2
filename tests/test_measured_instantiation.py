"""A claim's measured values put into an evidence equation by their dimensions (signals/measured_instantiation.py)."""

from __future__ import annotations

import pytest

from veriground.domains import get_profile
from veriground.signals.formal import compute_formal, equation_evidence
from veriground.signals.measured_instantiation import instantiate_measured

KE = "The kinetic energy of an object of mass m moving at speed v is\n    KE=1/2mv^2"
ELECTRON = "The electron's kinetic energy is KE_e=1/2mv^2 ."
WEIGHT = "Weight equals acceleration due to gravity times mass: W=mg "
NEWTON = "Newton's second law gives $a = F_{net}/m$ for the acceleration."


@pytest.mark.parametrize(
    ("claim", "evidence", "holds"),
    [
        ("A 2 kg ball moving at 3 m/s has a kinetic energy of 9 J.", KE, True),
        ("A 1000 kg car moving at 20 m/s has a kinetic energy of 200,000 J.", KE, True),
        ("A 2 kg ball moving at 3 m/s has a kinetic energy of 18 J.", KE, False),
        ("A 2 kg ball moving at 3 m/s has a kinetic energy of 9 J.", ELECTRON, True),  # KE_e is a kinetic energy
        ("A 70 kg person has a weight of about 686 N.", WEIGHT, True),  # g takes its known value
        ("A 70 kg person has a weight of 70 N.", WEIGHT, False),
        ("A net force of 10 N on a 2 kg mass gives an acceleration of 5 m/s^2.", NEWTON, True),
        ("A net force of 10 N on a 2 kg mass gives an acceleration of 20 m/s^2.", NEWTON, False),
    ],
)
def test_values_go_to_the_symbols_of_their_dimension(claim, evidence, holds):
    result = instantiate_measured(claim, evidence)
    assert result is not None and result.holds is holds


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("A 2 kg ball moving at 3 m/s has 9 J of energy.", KE),  # "energy" alone names E, not KE
        ("A 2 kg ball moving at 3 m/s has a kinetic energy of 9.5 J.", KE),  # 5 % off: rounding, or not? unsaid
        ("A 2 kg ball moving at 3 m/s does not have a kinetic energy of 9 J.", KE),  # a negation
        ("A 2 kg ball moving at over 3 m/s has a kinetic energy of 9 J.", KE),  # a bound
        ("A 2 kg ball has a kinetic energy of 9 J.", KE),  # v is not given
        ("A 2 kg ball moving at 3 m/s and 4 m/s has a kinetic energy of 9 J.", KE),  # two ways to fill v
    ],
)
def test_nothing_is_said_when_the_values_do_not_fill_the_equation_one_way(claim, evidence):
    assert instantiate_measured(claim, evidence) is None


def test_a_free_fall_acceleration_is_not_taken_for_g():
    # g is 9.80 m/s^2; the claim's 5 m/s^2 is an acceleration of its own, and F = mg has no symbol left for it
    assert instantiate_measured("A net force of 10 N on a 2 kg mass gives an acceleration of 5 m/s^2.", WEIGHT) is None


def test_the_formal_check_supports_or_rejects_the_claim():
    physics = get_profile("physics")
    claim = "A 2 kg ball moving at 3 m/s has a kinetic energy of 9 J."
    signal = compute_formal(claim, [KE], physics)
    (check,) = [check for check in signal.checks if check.check == "equation"]
    assert check.outcome == "ok" and check.evidence_value == "KE=1/2mv^2"
    assert check.reason == "the evidence's KE=1/2mv^2 holds for the claim's values (KE = 9 J, m = 2 kg, v = 3 m/s)"
    assert equation_evidence(claim, signal) == (0,)
    wrong = compute_formal(claim.replace("9 J", "18 J"), [KE], physics)
    assert [check.outcome for check in wrong.mismatches] == ["equation_mismatch"]


def test_the_span_is_the_claims_even_where_normalising_changes_its_length():
    claim = "A 2 kg ball moving at 3 m/s has a kinetic energy of 9 kg·m²/s²."
    result = instantiate_measured(claim, KE)
    assert result is not None and result.holds
    assert (
        claim[result.claim_span[0] : result.claim_span[1]]
        == "2 kg ball moving at 3 m/s has a kinetic energy of 9 kg·m²/s²"
    )
