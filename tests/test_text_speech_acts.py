"""Sentences that state nothing about the world (text/speech_acts.py): questions and sentences about the document."""

from __future__ import annotations

import pytest

from veriground.text.speech_acts import about_the_document, states_nothing


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("This video introduces vectors and scalars.", True),
        ("  In this chapter we prove the handshake lemma.", True),
        ("The following figure shows the forces on the block.", True),
        ("In this section of the river the current is fast.", False),  # a section of something in the world
        ("Vectors have a direction.", False),
    ],
)
def test_about_the_document(sentence: str, expected: bool) -> None:
    assert about_the_document(sentence) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("What is work? This section explains it.", True),
        ("In this section, we present the ArrayQueue, which implements a FIFO queue; items leave in order.", False),
        ('He asked, "Is it safe?"', True),
        ("Alex: Shall we grab some beer on Friday?", False),  # that Alex proposed it is what a summary reports
        ("Dr. Smith: Any questions?", False),
        ("What is work? Work is force times distance.", False),
        ("Work is force times distance.", False),
        # a sentence that goes on speaking of the document: OpenStax's pair that read as 0.95 support of "Work is a
        # vector quantity." (and of "Work is a scalar quantity.")
        (
            "This video introduces and differentiates between vectors and scalars. It also introduces quantities "
            "that we will be working with during the study of kinematics.",
            True,
        ),
        ("It also introduces quantities.", False),  # "it" is the document only after a sentence about the document
        ("This video introduces vectors. It is a vector quantity.", False),
        ("This video introduces vectors. It also shows that work is a scalar.", False),  # a fact of its own
        ("", False),
        # a sentence that says what the text is about to do (it read as 0.70 support of "The sum of the first n positive
        # integers is n^2."); what it will show is a clause of its own
        ("Let's find the sum of the first $n$ positive integers carefully.", True),
        ("Now we compute the work done by gravity. Let us consider a block on a ramp.", True),
        ("Let us prove that every tree with n vertices has n-1 edges.", False),
        ("Let n be the number of vertices.", False),
        ("Let's meet at 7.", False),
        ("Ann: Let's check the fridge.", False),
    ],
)
def test_states_nothing_when_every_sentence_asks_or_speaks_of_the_document(text: str, expected: bool) -> None:
    assert states_nothing(text) is expected
