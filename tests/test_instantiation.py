"""A claim's counts put into an equation its evidence states over named counts (signals/instantiation.py), and the
formal check and verdict that follow."""

from __future__ import annotations

import pytest

from veriground.domains import get_profile
from veriground.signals.formal import compute_formal, equation_evidence
from veriground.signals.instantiation import instantiate

TREES = (
    "Is there a tree with exactly 7 vertices and 7 edges? Try to draw one.\n\n"
    "Proposition. Let $T$ be a tree with $v$ vertices and $e$ edges. Then $e = v-1$."
)
EULER = (
    "There is a connection between the number of vertices ($v$), the number of edges ($e$), and the number of faces "
    "($f$) in any connected planar graph. This relationship is called Euler's formula.\n$$v-e + f = 2$$"
)
DEFINED = "Let $n$ be the number of vertices and $m$ be the number of edges of a complete graph. Then $m = n(n-1)/2$."


@pytest.mark.parametrize(
    ("claim", "evidence", "holds"),
    [
        ("A tree with 10 vertices has 9 edges.", TREES, True),
        ("Every tree with 10 vertices has exactly 9 edges.", TREES, True),
        ("A tree with 12 edges has 13 vertices.", TREES, True),
        ("A tree with 10 vertices has 10 edges.", TREES, False),
        ("A tree with 10 edges has 9 vertices.", TREES, False),
        ("A connected planar graph with 8 vertices and 12 edges has 6 faces.", EULER, True),
        ("A connected planar graph with 8 vertices and 12 edges has 7 faces.", EULER, False),
        ("A complete graph with 5 vertices has 10 edges.", DEFINED, True),
        ("A complete graph with 5 vertices has 20 edges.", DEFINED, False),
    ],
)
def test_counts_are_put_into_the_named_equation(claim, evidence, holds):
    result = instantiate(claim, evidence)
    assert result is not None and result.holds is holds


@pytest.mark.parametrize(
    "claim",
    [
        "A forest with 10 vertices has 9 edges.",  # the theorem is about trees
        "A tree with at most 10 vertices has 9 edges.",  # a bound is no count
        "A tree with 10 vertices does not have 9 edges.",  # a negation
        "A tree with 10 vertices has 9 edges and 2 leaves.",  # a number the equation does not name
        "A tree with 10 vertices is connected.",  # one count binds no equation of two symbols
    ],
)
def test_nothing_is_instantiated_beyond_what_the_evidence_states(claim):
    assert instantiate(claim, TREES) is None


def test_a_letter_named_by_two_nouns_is_not_used():
    evidence = "Let $v$ vertices and $v$ edges be given. Then $e = v-1$ for $e$ edges."
    assert instantiate("A tree with 10 vertices has 9 edges.", evidence) is None


def test_the_formal_check_names_the_equation_and_values():
    profile = get_profile("discrete_math")
    good = compute_formal("A tree with 10 vertices has 9 edges.", ["Trees are graphs.", TREES], profile)
    (check,) = good.checks
    assert (check.check, check.outcome, check.evidence_index, check.evidence_value) == ("equation", "ok", 1, "e = v-1")
    assert check.reason == "the evidence's e = v-1 holds for the claim's values (e = 9, v = 10)"
    assert equation_evidence("A tree with 10 vertices has 9 edges.", good) == (1,)
    bad = compute_formal("A tree with 10 vertices has 10 edges.", [TREES], profile)
    assert [check.outcome for check in bad.mismatches] == ["equation_mismatch"]
    assert equation_evidence("A tree with 10 vertices has 10 edges.", bad) == ()


def test_counts_in_words_are_put_in_too_and_the_span_is_the_claims():
    claim = "A tree with ten vertices has nine edges."
    result = instantiate(claim, TREES)
    assert result is not None and result.holds and result.values == (("e", "9"), ("v", "10"))
    assert claim[result.claim_span[0] : result.claim_span[1]] == "ten vertices has nine"
