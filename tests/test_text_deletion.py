"""text/deletion.leaves_words_out: a claim that is its evidence sentence with words left out, none of which could
turn the meaning around, cannot be contradicted by that sentence (the verdict layer's guard against NLI models that
read near copies as contradictions)."""

from __future__ import annotations

import pytest

from veriground.text.deletion import leaves_words_out

PHYSICS = "Near Earth's surface, all objects fall with an acceleration of about 9.80 m/s2."

CASES = [
    # (claim, evidence, leaves words out harmlessly)
    ("Near Earth's surface, objects fall with an acceleration of about 9.80 m/s2.", PHYSICS, True),
    (PHYSICS, PHYSICS, True),  # nothing left out
    ("Merge sort runs in O(n log n) time.", "Merge sort runs in O(n log n) time in the worst case.", True),
    ("The handbook requires two approvals.", "The handbook, revised last year, requires two approvals.", True),
    ("A heap is simple.", "A heap is very simple.", True),
    # a quantity restated in another unit is the same quantity (pint); one left out is a number left out
    ("Objects fall with an acceleration of 980 cm/s2.", "Objects fall with an acceleration of 9.8 m/s2.", True),
    ("The package weighs 2500 g.", "The package weighs 2.5 kg.", True),
    ("The package weighs 2.5 g.", "The package weighs 2.5 kg.", False),
    ("The package weighs.", "The package weighs 2.5 kg.", False),
    ("The package weighs 2.5 kg.", "The package weighs 2.5 kg and costs 5 dollars.", False),
    # a word that can turn the meaning is left out
    ("Merge sort runs in O(n log n) time.", "Merge sort does not run in O(n log n) time.", False),
    ("Merge sort runs in O(n log n) time.", "Merge sort doesn't run in O(n log n) time.", False),
    ("X is a prime.", "It is false that X is a prime.", False),
    ("The tree has n edges.", "The tree has at most n edges.", False),
    ("Only the root is black.", "Not only the root is black.", False),
    ("Objects fall with an acceleration of 9.80 m/s2.", "Objects fall with an acceleration of about 9.80 m/s2.", False),
    ("The bridge is meters long.", "The bridge is 320 meters long.", False),  # a number
    ("The city has people.", "The city has two million people.", False),
    # not a deletion at all: a word added, changed or moved
    ("The bridge is 32 meters long.", "The bridge is 320 meters long.", False),
    ("All objects fall slowly.", PHYSICS, False),
    ("Objects all fall.", "All objects fall.", False),
    ("", PHYSICS, False),
]


@pytest.mark.parametrize(("claim", "evidence", "expected"), CASES, ids=[str(i) for i in range(len(CASES))])
def test_leaves_words_out(claim, evidence, expected):
    assert leaves_words_out(claim, evidence) is expected
