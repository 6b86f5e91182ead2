"""Domain profiles (domains/): the profiles as data, selection by config, and the three hooks of issue 17."""

from __future__ import annotations

import typing

import pytest

from veriground.config import VerificationConfig, load_config
from veriground.domains import (
    DEFAULT_DOMAIN,
    PROFILES,
    apply_threshold_overrides,
    check_quality,
    claim_type_for,
    evidence_kinds_in,
    find_proof_step,
    find_pseudocode,
    get_profile,
    match_evidence,
    pre_verify,
    suggest_domain,
)
from veriground.domains.profiles import EVIDENCE_KINDS
from veriground.errors import ConfigError
from veriground.schema import ClaimType, DomainProfile
from veriground.signals.formal import FORMAL_CHECKS


def test_the_five_profiles_exist_and_match_the_config_choices():
    config_choices = typing.get_args(VerificationConfig.model_fields["domain"].annotation)
    assert set(PROFILES) == set(config_choices) == {"general", "physics", "discrete_math", "algorithms", "policy"}
    assert DEFAULT_DOMAIN == VerificationConfig().domain == "general"


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_each_profile_is_consistent_data(name):
    profile = PROFILES[name]
    assert set(profile.formal_checks) <= set(FORMAL_CHECKS)
    assert set(profile.evidence_type_expectations) <= set(profile.allowed_claim_types)
    for needs in profile.evidence_type_expectations.values():
        assert set(needs) <= set(EVIDENCE_KINDS)
    assert set(profile.threshold_overrides) <= set(VerificationConfig.model_fields)
    record = profile.to_record()
    assert isinstance(record, DomainProfile) and record.name == name


def test_domain_is_a_verification_config_key_with_a_clear_error():
    config = load_config(overrides={"verification.domain": "physics"}, environ={})
    assert config.verification.domain == "physics"
    with pytest.raises(ConfigError, match="domain"):
        load_config(overrides={"verification.domain": "chemistry"}, environ={})


def test_unknown_profile_name_lists_the_valid_ones():
    with pytest.raises(ConfigError, match=r"unknown domain 'chemistry'; valid domains: general, physics"):
        get_profile("chemistry")


def test_threshold_overrides_apply_to_the_verification_config():
    base = VerificationConfig()
    policy = apply_threshold_overrides(base, "policy")
    assert policy.min_entailment_prob == PROFILES["policy"].threshold_overrides["min_entailment_prob"]
    assert policy.min_entailment_prob != base.min_entailment_prob
    assert apply_threshold_overrides(base, "general") == base


def test_seed_T3_out_of_scope_under_the_intro_physics_profile():
    signal = pre_verify("Quantum tunneling enables transistors", "physics")
    assert (signal.hook, signal.outcome) == ("pre_verification", "out_of_scope")
    assert signal.claim_span == (0, 7)
    assert "quantum mechanics" in signal.reason
    schrodinger = pre_verify("Schrödinger equation predicts energy eigenvalues", "physics")
    assert schrodinger.outcome == "out_of_scope"
    assert pre_verify("Quantum tunneling enables transistors", "general").outcome == "ok"


def test_claim_type_not_allowed_by_the_profile():
    signal = pre_verify("Quicksort has worst-case time complexity O(n log n).", "physics")
    assert (signal.outcome, signal.claim_type) == ("claim_type_not_allowed", ClaimType.COMPLEXITY)
    assert pre_verify("Kinetic energy is given by KE = ½mv².", "physics").outcome == "ok"


def test_seed_proof_step_under_discrete_math():
    claim = "Assume for contradiction that the set S has no minimum element"
    assert claim_type_for(claim, get_profile("discrete_math")) == (ClaimType.PROOF_STEP, (0, 6))
    signal = pre_verify(claim, "discrete_math")
    assert (signal.outcome, signal.claim_type) == ("ok", ClaimType.PROOF_STEP)


def test_seed_pseudocode_under_algorithms():
    claim = "Set low = 0, high = n-1, then compute mid = (low + high) / 2"
    assert find_pseudocode(claim) == (0, len(claim))
    assert claim_type_for(claim, get_profile("algorithms"))[0] == ClaimType.ALGORITHMIC


@pytest.mark.parametrize(
    "text",
    [
        "Suppose n is odd.",
        "By induction on k, the claim holds.",
        "Hence every tree has a leaf.",
        "This contradicts the minimality of S.",
        "Therefore n^2 is even. ∎",
    ],
)
def test_proof_steps_are_found(text):
    assert find_proof_step(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "A set is a collection of distinct objects.",
        "Merge sort divides the array into halves.",
        "Kinetic energy is KE = ½mv².",
    ],
)
def test_statements_are_neither_proof_steps_nor_pseudocode(text):
    assert find_proof_step(text) is None
    assert find_pseudocode(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "For each i = 1 to n, set A[i] = 0.",
        "Initialize count := 0 and return count.",
        "While low <= high, compute mid = (low + high) / 2.",
    ],
)
def test_pseudocode_is_found(text):
    assert find_pseudocode(text) is not None


def test_let_in_a_proof_is_not_pseudocode():
    assert find_pseudocode("Let n = 2k + 1 be an odd number.") is None


def test_evidence_match_needs_the_kind_of_evidence_the_claim_type_needs():
    claim = "The acceleration due to gravity is 9.8 m/s²."
    missing = match_evidence(claim, ["Gravity pulls objects toward the Earth."], "physics")
    assert (missing.hook, missing.outcome) == ("evidence_match", "evidence_type_missing")
    assert "quantity with unit" in missing.reason
    present = match_evidence(claim, ["Near the Earth, g = 9.8 m/s²."], "physics")
    assert present.outcome == "ok" and present.status == "computed"
    assert match_evidence(claim, [], "general").status == "not_applicable"


def test_theorem_claims_need_a_theorem_or_proof_under_discrete_math():
    claim = "For any graph G, the sum of all vertex degrees equals twice the number of edges."
    without = match_evidence(claim, ["A graph has vertices and edges."], "discrete_math")
    with_proof = match_evidence(claim, ["Theorem (Handshaking Lemma). Proof: each edge adds 2."], "discrete_math")
    assert (without.outcome, with_proof.outcome) == ("evidence_type_missing", "ok")


def test_evidence_kinds_are_detected():
    assert evidence_kinds_in("Quicksort worst case O(n²).") >= {"complexity_bound"}
    assert evidence_kinds_in("def f(x):\n    return x") >= {"pseudocode_or_code"}
    assert evidence_kinds_in("A set is defined as a collection.") == {"definition"}


def test_quality_gate_units_and_equations():
    units = check_quality("The acceleration of the cart is 9.8.", "physics")
    assert (units.hook, units.outcome) == ("quality_gate", "units_missing")
    assert check_quality("The acceleration of the cart is 9.8 m/s².", "physics").outcome == "ok"
    unparsed = check_quality("KE = \\weird{m}", "physics")
    assert unparsed.outcome == "equation_unparsed" and "\\weird" in unparsed.reason
    assert check_quality("KE = \\weird{m}", "policy").status == "not_applicable"


@pytest.mark.parametrize(
    ("types", "folders", "expected"),
    [
        (["textbook"], ["openstax-physics"], "physics"),
        (["textbook"], ["open-data-structures"], "algorithms"),
        (["policy", "policy"], ["handbook"], "policy"),
        (["policy", "policy", "web"], ["misc"], "policy"),
        (["web"], ["notes"], "general"),
        (["textbook"], ["physics", "algorithms"], "general"),
    ],
)
def test_domain_suggestion_from_the_corpus(types, folders, expected):
    name, reason = suggest_domain(types, folders)
    assert name == expected and reason


def test_importing_the_profiles_does_not_load_sympy():
    import subprocess
    import sys

    probe = "import sys, veriground.domains, veriground.signals.formal; print('sympy' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
