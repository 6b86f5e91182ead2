"""Statements of a window: which sentences go on from the one before (text/continuation.py), and whether a window
holds a claim only across statements that each say something else (evidence/units.py states_apart)."""

from __future__ import annotations

import pytest

from veriground.evidence.units import claim_content, states_apart
from veriground.text.continuation import statements
from veriground.text.sentences import SentenceBoundary, sentence_spans

CHARGES = "Charges with the same sign repel each other. Charges with opposite signs attract each other."
COMPLETE = (
    "Vertices in a graph do not always have edges between them. If we add all possible edges, then the resulting "
    "graph is called complete. That is, a graph is complete if every pair of vertices is connected by an edge."
)
PENDULUM = (
    "A simple pendulum has a small bob on a light string. Its period is completely independent of other factors, "
    "such as mass."
)


@pytest.mark.parametrize(
    ("text", "runs"),
    [
        (CHARGES, [[0], [1]]),
        (COMPLETE, [[0], [1, 2]]),  # "That is, ..." goes on
        (PENDULUM, [[0, 1]]),  # "Its period ..." points back
        ("Two rules apply:\n- Badges stay on.\n- Laptops stay locked.", [[0, 1], [2]]),  # the item after a colon
        ("The bob swings. However, the string stays taut. The lab closes at noon.", [[0, 1], [2]]),
        ("Heat flows from hot to cold. In this way a stove warms a pan.", [[0, 1]]),
        ("- Badges stay on.\n- It is worn at the desk.", [[0, 1]]),  # a list item that points back
    ],
)
def test_sentences_that_point_back_or_open_in_lower_case_go_on_from_the_one_before(text, runs):
    assert statements(text, tuple(sentence_spans(text, SentenceBoundary.ITEMS))) == runs


@pytest.mark.parametrize(
    ("claim", "text", "apart"),
    [
        # Each sentence holds part of the claim and says something else: read together they "say" it.
        ("Opposite charges repel each other.", CHARGES, True),
        (
            "Sound is an electromagnetic wave.",
            "Light is an electromagnetic wave. Sound waves in air are longitudinal.",
            True,
        ),
        # One statement holds everything the window shares with the claim (a place word aside).
        ("Charges with opposite signs attract each other.", CHARGES, False),
        ("A complete graph has an edge between every pair of vertices.", COMPLETE, False),
        # The second sentence goes on from the first: the window is one statement.
        ("The period of a simple pendulum is independent of mass.", PENDULUM, False),
        # A single sentence states nothing apart.
        ("Like charges repel each other.", "Charges with the same sign repel each other.", False),
    ],
)
def test_a_window_holds_a_claim_apart_only_when_no_statement_in_it_holds_what_it_shares(claim, text, apart):
    assert states_apart(claim_content(claim), text, 0, len(text)) is apart
