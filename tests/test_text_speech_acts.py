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
        ("", False),
    ],
)
def test_states_nothing_when_every_sentence_asks_or_speaks_of_the_document(text: str, expected: bool) -> None:
    assert states_nothing(text) is expected
