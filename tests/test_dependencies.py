"""Cross-claim dependencies: definitions vs uses, forward references, undefined symbols (claims/dependencies.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from veriground.claims import extract_claims
from veriground.claims.dependencies import analyse_dependencies, extract_claim_terms, find_dependency_warnings

REYNOLDS_DEFINITION = (
    "The Reynolds number Re = ρvL/μ characterizes flow regime, where ρ is the density, v is the flow speed, "
    "L is a characteristic length and μ is the viscosity."
)
REYNOLDS_USE = "When Re > 4000, turbulence occurs."
PHYSICS_NOTE = Path(__file__).parent / "data" / "dependency_physics_note.md"


def warnings_of(text: str, corpus_defines=None):
    return find_dependency_warnings(extract_claims(text, answer_id="note"), corpus_defines)


def test_definition_first_gives_no_warning():
    assert warnings_of(f"{REYNOLDS_DEFINITION} {REYNOLDS_USE}") == []


def test_use_first_is_a_forward_reference_naming_both_claims():
    claims = extract_claims(f"{REYNOLDS_USE} {REYNOLDS_DEFINITION}", answer_id="note")
    (warning,) = find_dependency_warnings(claims)
    assert (warning.kind, warning.term, warning.severity) == ("forward_reference", "Re", "warning")
    assert warning.claim_id == claims[0].claim_id
    assert warning.first_definition_claim_id == claims[1].claim_id
    assert claims[1].claim_id in warning.reason


def test_a_term_never_defined_is_undefined_or_defined_in_corpus_only():
    (warning,) = warnings_of(f"Water flows through the pipe. {REYNOLDS_USE}")
    assert (warning.kind, warning.term, warning.first_definition_claim_id) == ("undefined", "Re", None)
    (softer,) = warnings_of(f"Water flows through the pipe. {REYNOLDS_USE}", corpus_defines=lambda term: term == "Re")
    assert (softer.kind, softer.severity) == ("defined_in_corpus_only", "info")


def test_seed_pseudocode_case_first_occurrence_is_not_a_definition():
    # Seed 000 would record the use in claim 1 as Re's definition and never warn.
    warnings = warnings_of(f"{REYNOLDS_USE} Pipes carry water. {REYNOLDS_DEFINITION}")
    assert [(w.term, w.kind) for w in warnings] == [("Re", "forward_reference")]


def test_physics_note_finds_all_planted_warnings_and_no_false_ones():
    claims = extract_claims(PHYSICS_NOTE.read_text(encoding="utf-8"), answer_id="note")
    # "... delivers 25 W. The momentum p = mv is conserved ..." is two claims; "The Reynolds number ... compares
    # inertial and viscous forces, where ρ is ..." is one (its "and" joins no clauses)
    assert len(claims) == 29
    found = {(w.term, w.kind) for w in find_dependency_warnings(claims)}
    planted = {
        ("power", "forward_reference"),
        ("Re", "forward_reference"),
        ("l", "undefined"),
        ("Q", "undefined"),
        ("F_D", "undefined"),
    }
    assert found == planted


def test_warnings_come_in_text_order():
    claims = extract_claims(PHYSICS_NOTE.read_text(encoding="utf-8"), answer_id="note")
    order = {claim.claim_id: index for index, claim in enumerate(claims)}
    positions = [order[w.claim_id] for w in find_dependency_warnings(claims)]
    assert positions == sorted(positions)


@pytest.mark.parametrize(
    ("text", "defined", "used"),
    [
        ("The force F on a body is F = ma.", {"F"}, {"m", "a"}),
        ("Let T be the period of the pendulum.", {"T"}, set()),
        ("We call λ the wavelength.", {"λ"}, set()),
        ("The unit of energy is the joule (J).", {"J"}, set()),
        ("If v = 0, the body is at rest.", set(), {"v"}),
        ("Kinetic energy is defined as the energy of motion.", {"kinetic energy"}, set()),
        ("A flow with a low speed is called laminar flow.", {"laminar flow"}, set()),
        ("The speed is measured in m/s and the mass in kg.", set(), set()),
        ("Quicksort runs in O(n log n) time; x and y are coordinates on the x-axis.", set(), set()),
        ("Go from point A to point B, see (b) and Figure C.", set(), set()),
        ("The Sun is a star, and I think a star is hot.", set(), set()),
        ("The weight is represented by W.", {"W"}, set()),
        ("The acceleration due to gravity is g, so a = g here.", {"g", "a"}, set()),
        ("The event, call it E for even, is a set.", {"E"}, set()),
        ("Merging the two sorted arrays a0 and a1 is easy.", {"a0", "a1"}, set()),
        ("The force is F = IℓBsinθ on the wire.", {"F"}, {"I", "ℓ", "B", "θ"}),
        ("The search ends when u = nil.", set(), {"u"}),
        ("A car accelerates at a few m/s2 at most.", set(), set()),
        ("See [the guide](https://docs.example.org/d/1ow1VIwSz/edit) and https://x.org/A_b.", set(), set()),
        ("The GSA IT Chief of > Staff signs it.", set(), set()),
        ("Then count the two C's in the word.", set(), set()),
    ],
)
def test_definitions_and_uses(text, defined, used):
    terms = extract_claim_terms(text)
    assert (set(terms.defined), set(terms.symbols_used)) == (defined, used)


def test_latex_greek_reads_as_the_letter():
    assert extract_claim_terms(r"Doubling $\rho v$ doubles it.").symbols_used == frozenset({"ρ", "v"})


def test_links_connect_each_use_to_its_definition():
    claims = extract_claims(f"{REYNOLDS_DEFINITION} {REYNOLDS_USE}", answer_id="note")
    links = analyse_dependencies(claims).links
    assert (claims[-1].claim_id, "Re", claims[0].claim_id) in [
        (link.claim_id, link.term, link.definition_claim_id) for link in links
    ]
