"""The one-sentence fast path of claim segmentation gives exactly what pysbd gives, and is not taken where pysbd
would split (enumerations, list markers, sentence marks inside)."""

from __future__ import annotations

import pytest

from veriground.text import sentences
from veriground.text.sentences import one_sentence

ONE = [
    "Merge sort runs in O n log n time.",
    "  Kinetic energy depends on mass and speed",
    "“Quoted sentences end inside their quotes.”",
    "Objects fall with an acceleration of 98 m/s²!",
    "The heliocentric (sun-centered) model is simpler (and more accurate)",
    "The speed of light is 3.0 × 10^8 m/s.",  # a decimal point is not a sentence mark
    "It falls freely (i.e., air resistance is negligible) at 9.80 m/s2.",
    "Two clauses; one sentence mark inside",
    "Definition: a graph is a pair",
    "It has two forms: Kinetic energy and potential energy.",
]
NOT_ONE = [
    "Use it to (a) find the displacement and (b) the velocity.",
    "- (a) 34 s (b) 75 m",
    "Give the velocity at 5 s and (d) calculate the average velocity",
    "Steps (1) and (2) differ, as do (iv) and (v)",
    "1. First item of a list",
    "It rains. It pours.",
    "A ratio 3:4 is not a sentence mark either",  # a colon not followed by a space: left to pysbd
    "Line one\nline two",
    "Calculate a) the energy to melt 1 kg of ice and b) the energy to boil it",
    "(40.278200, -76.584149) It is the seat of the local government",
    "We compare f(x) and g(y) here.",  # pysbd reads (x) ... (y) as list items
    "It is O(n) and then O(m) here.",
    "Area A(r) and B(s) grow.",
]


@pytest.mark.parametrize("text", ONE)
def test_a_single_sentence_takes_the_fast_path_and_matches_pysbd(text, monkeypatch):
    assert one_sentence(text)
    fast = sentences._locate(text, 0, len(text))
    monkeypatch.setattr(sentences, "one_sentence", lambda window: False)  # pysbd's own reading
    assert sentences._locate(text, 0, len(text)) == fast


@pytest.mark.parametrize("text", NOT_ONE)
def test_text_pysbd_may_split_goes_to_pysbd(text):
    assert not one_sentence(text)
