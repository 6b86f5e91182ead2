"""Claim typing table: the seed 000 Target Content Slice examples land on their types."""

from __future__ import annotations

import pytest

from veriground.claims import classify_claim, extract_claims
from veriground.schema import ClaimType

SEED_EXAMPLES = [
    ("Velocity is the rate of change of position with respect to time.", ClaimType.DEFINITIONAL),
    ("Kinetic energy is given by KE = ½mv².", ClaimType.EQUATION),
    ("The acceleration due to gravity on Earth is 9.8 m/s².", ClaimType.NUMERIC),
    ("Newton's Third Law states that forces occur in equal and opposite pairs.", ClaimType.CONCEPTUAL),
    ("A set is a collection of distinct objects.", ClaimType.DEFINITIONAL),
    ("For any graph G, the sum of all vertex degrees equals twice the number of edges.", ClaimType.THEOREM),
    ("Assume for contradiction that the set S has no minimum element.", ClaimType.PROOF_STEP),
    ("Merge sort divides the array into halves, recursively sorts each half, then merges.", ClaimType.ALGORITHMIC),
    ("Quicksort has average-case time complexity O(n log n).", ClaimType.COMPLEXITY),
    ("The loop invariant ensures the subarray A[1..i-1] remains sorted.", ClaimType.ALGORITHMIC),
]


@pytest.mark.parametrize(("text", "expected"), SEED_EXAMPLES)
def test_seed_examples_get_their_type(text: str, expected: ClaimType) -> None:
    (claim,) = extract_claims(text, answer_id="a")
    assert claim.claim_type == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Merge sort is faster than insertion sort on large inputs.", ClaimType.COMPARATIVE),
        ("Ohm's law applies only to ohmic conductors.", ClaimType.SCOPE),
        ("Dijkstra's algorithm was published in 1959.", ClaimType.HISTORICAL),
        ("The transistor was invented at Bell Labs.", ClaimType.HISTORICAL),
        ("Heat flows from hot to cold because of the temperature gradient.", ClaimType.CONCEPTUAL),
        ("A graph is bipartite if and only if it has no odd cycle.", ClaimType.THEOREM),
        ("Hence the sum of the degrees is even.", ClaimType.PROOF_STEP),
        ("The speed of light is 3.0 × 10^8 m/s.", ClaimType.NUMERIC),
        ("About 70% of the surface is water.", ClaimType.NUMERIC),
        ("Binary search halves the search interval each time.", ClaimType.FACTUAL),
        ("Step 2 visits each vertex once.", ClaimType.ALGORITHMIC),  # "Step 2" labels, it does not count
        ("Water molecules are H2O.", ClaimType.FACTUAL),
        ("The running time of heapsort is the same in every case.", ClaimType.COMPLEXITY),
        ("Mass-energy equivalence is $E = mc^2$.", ClaimType.EQUATION),
        ("See [the guide](https://example.org/guide?page=2) for details.", ClaimType.FACTUAL),
    ],
)
def test_type_rules_fire_in_table_order(text: str, expected: ClaimType) -> None:
    assert classify_claim(text) == expected
