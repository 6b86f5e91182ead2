"""A claim that copies its source sentence less a restrictor says more than the source (text/restrictions.py)."""

from __future__ import annotations

import pytest

from veriground.text.restrictions import left_out_restriction

PRIMES = "Consider the statement, “For every prime number $p$, either $p = 2$, or $p$ is odd.”"
VACUUM = "Objects fall at the same rate only in a vacuum."


@pytest.mark.parametrize(
    ("claim", "evidence", "shown"),
    [
        ("Every prime number is odd.", PRIMES, "either $p = 2$, or $p$"),  # a preamble before the claim is no matter
        ("Objects fall at the same rate.", VACUUM, "only in a vacuum"),  # right after the claim's last word
        (
            "Every student passes the course.",
            "Every student except one passes the course.",
            "except one passes the course",
        ),
        (
            "Leave can be carried over.",
            "Leave can be carried over unless it exceeds the cap.",
            "unless it exceeds the cap",
        ),
    ],
)
def test_a_claim_that_leaves_out_a_restrictor_of_its_sentence_is_found(claim, evidence, shown):
    found = left_out_restriction(claim, evidence)
    assert found is not None
    run, (start, end) = found
    assert run == shown and evidence[start:end].strip() == evidence.strip()


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        (VACUUM, VACUUM),  # the sentence itself
        (
            "Merge sort runs in O(n log n) time.",
            "Merge sort runs in O(n log n) time in the worst case.",
        ),  # no restrictor
        # a hedge or a condition left out is not read; nor a restrictor in a clause past the claim's end
        (
            "Static friction is greater than kinetic friction.",
            "Static friction is usually greater than kinetic friction.",
        ),
        (
            "The album reached number one on the Billboard 200.",
            "The album reached number one on the Billboard 200 a year later, the band's only single to do so.",
        ),
        # the claim's words picked from across a long sentence are no copy of it
        (
            "Every graph is a tree.",
            "Every connected graph that has no cycles and only as many edges as vertices less one is called a tree.",
        ),
    ],
)
def test_a_copy_without_a_restrictor_left_out_is_not_found(claim, evidence):
    assert left_out_restriction(claim, evidence) is None
