"""A claim that is its evidence sentence's words in another order (text/word_order.py)."""

import pytest

from veriground.text.word_order import scrambled_words

SENTENCE = "Speed is a description of how fast or slow an object moves."
SCRAMBLED = [
    ("Object moves is a of an its fast speed or slow how description.", SENTENCE),
    (
        "Velocity of zero effect marker more near will make acceleration obvious the the keeping.",
        "Keeping the marker near zero velocity will make the effect of acceleration more obvious.",
    ),
    # the unit is a window: the sentence holding most of the claim's words is the one compared
    ("Object moves is a of an its fast speed or slow how description.", f"Motion is relative. {SENTENCE}"),
]
NOT_SCRAMBLED = [
    # a restatement in another order keeps its phrases ("the theory of relativity", "in 1905")
    (
        "In 1905, Einstein developed the theory of relativity.",
        "The theory of relativity was developed by Einstein in 1905.",
    ),
    ("Kinetic energy depends on velocity and mass.", "Kinetic energy depends on mass and velocity."),
    (
        "Near Earth's surface, objects fall with an acceleration of about 9.80 m/s2.",
        "Near Earth's surface, all objects fall with an acceleration of about 9.80 m/s2.",
    ),
    # a short claim drawn from a long sentence is a summary, not a permutation of it
    (
        "Francis I of France was a king.",
        "Francis I (François Ier) was the first King of France from the Angoulême branch of the House of Valois, "
        "reigning from 1515 until his death.",
    ),
    ("Fast or slow speed.", SENTENCE),  # too short to tell
    ("Acceleration is the rate of change of velocity.", SENTENCE),  # another sentence's words
]  # fmt: skip


@pytest.mark.parametrize(("claim", "evidence"), SCRAMBLED)
def test_a_sentences_words_in_another_order_are_scrambled(claim, evidence):
    assert scrambled_words(claim, evidence)


@pytest.mark.parametrize(("claim", "evidence"), NOT_SCRAMBLED)
def test_restatements_summaries_short_and_other_claims_are_not(claim, evidence):
    assert not scrambled_words(claim, evidence)
