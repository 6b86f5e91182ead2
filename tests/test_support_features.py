"""Support features: the longest-common-run reading equals difflib's, on random word sequences and by hand."""

import random
from difflib import SequenceMatcher

import pytest

from veriground.schema import NLIScores
from veriground.signals.support_features import FEATURE_NAMES, _longest_common_run, _text_reading, support_features


def _difflib_run(claim: tuple[str, ...], unit: tuple[str, ...]) -> int:
    return SequenceMatcher(None, claim, unit, autojunk=False).find_longest_match(0, len(claim), 0, len(unit)).size


def test_longest_common_run_matches_difflib_on_random_sequences() -> None:
    rng = random.Random(7)
    vocabulary = [f"w{i}" for i in range(6)]  # a small vocabulary: many repeats, many partial runs
    for _ in range(3000):
        claim = tuple(rng.choice(vocabulary) for _ in range(rng.randint(1, 12)))
        unit = tuple(rng.choice(vocabulary) for _ in range(rng.randint(1, 40)))
        assert _longest_common_run(claim, _text_reading(" ".join(unit))) == _difflib_run(claim, unit), (claim, unit)


@pytest.mark.parametrize(
    ("claim", "unit", "expected"),
    [
        ("a b c", "x a b c y", 3),
        ("a b c", "c b a", 1),
        ("a b c d", "a b x c d", 2),
        ("a", "b", 0),
    ],
)
def test_longest_common_run_by_hand(claim: str, unit: str, expected: int) -> None:
    assert _longest_common_run(tuple(claim.split()), _text_reading(unit)) == expected


def test_contained_is_the_share_of_the_claim_quoted_in_order() -> None:
    scores = NLIScores(entail=0.5, neutral=0.3, contradict=0.2)
    features = support_features(
        "the kinetic energy of a body", "Here the kinetic energy of a body is defined.", 1.0, scores
    )
    assert list(features) == list(FEATURE_NAMES)
    assert features["contained"] == 1.0
    partial = support_features("the kinetic energy of a rock", "the kinetic energy of a body", 1.0, scores)
    assert partial["contained"] == pytest.approx(5 / 6, abs=1e-6)


def test_features_come_in_feature_names_order():
    """The aggregator reads values by name, the calibration data by position: one order, FEATURE_NAMES."""
    features = support_features("Merge sort runs in O(n log n) time.", "Merge sort runs in O(n log n) time.", 1.0,
                                NLIScores(entail=0.9, neutral=0.1, contradict=0.0))  # fmt: skip
    assert tuple(features) == FEATURE_NAMES


RED_BLACK = "The add(x) and remove(x) operations on a red-black tree run in $O(\\log n)$ worst-case time."
QUICKSORT_EXPECTED = "The quickSort(a,c) method runs in $O(n\\log n)$ expected time."


@pytest.mark.parametrize(
    ("claim", "unit", "bars_support", "bars_refutation"),
    [
        # another structure's bounds say nothing of quicksort's
        ("Quicksort runs in O(n^2) time in the worst case.", RED_BLACK, True, True),
        # the claim's bound given only for the expected case: no support; a pure bound claim: only the formal check
        # (same algorithm, case and resource) refutes it
        ("Quicksort runs in O(n log n) time in the worst case.", QUICKSORT_EXPECTED, True, True),
        ("Quicksort runs in O(n log n) expected time.", QUICKSORT_EXPECTED, False, True),
        # words beyond the bound ("on sorted arrays") are the model's to read, and the unit names quicksort
        ("Quicksort runs in O(n log n) expected time on sorted arrays.", QUICKSORT_EXPECTED, False, False),
        # a unit that names the claim's algorithm is about it, with or without a bound of its own
        ("Quicksort runs in O(n^2) time.", "Quicksort and merge-sort run in $O(n\\log n)$ time.", False, True),
        # a claim whose bound names no algorithm, and a claim with no bound: no rule of reading
        ("It runs in O(n^2) time.", RED_BLACK, False, False),
        ("Quicksort is a comparison sort.", RED_BLACK, False, False),
    ],
)
def test_complexity_bounds_bar_support_and_refutation(claim, unit, bars_support, bars_refutation) -> None:
    features = support_features(claim, unit, 1.0, NLIScores(entail=0.9, neutral=0.05, contradict=0.05))
    assert (features["bounds_bar_support"], features["bounds_bar_refutation"]) == (bars_support, bars_refutation)


def test_the_claim_context_reads_names_and_words_across_all_passages() -> None:
    from veriground.signals.support_features import claim_context

    passages = [
        "An Australian pleaded guilty to the manslaughter of an American who fell from a Sydney clifftop.",
        "The victim's family had campaigned for years.",
    ]
    edited = claim_context("An Australian pleaded guilty in the death of an Englishman in Sydney.", passages, 2)
    faithful = claim_context("An Australian pleaded guilty in the death of an American in Sydney.", passages)
    assert edited.corroborating == 2
    assert edited.entities_missing == pytest.approx(1 / 3)  # Englishman; Australian and Sydney are there
    assert faithful.entities_missing == 0.0
    assert 0.0 < faithful.words_missing < edited.words_missing  # "death" is nowhere; "Englishman" neither
    nameless = claim_context("The family campaigned.", passages)
    assert (nameless.entities_missing, nameless.words_missing) == (0.0, 0.0)
    scores = NLIScores(entail=0.5, neutral=0.3, contradict=0.2)
    features = support_features("An Englishman died.", passages[0], 0.5, scores, edited)
    assert (features["entities_missing"], features["words_missing"]) == (edited.entities_missing, edited.words_missing)


@pytest.mark.parametrize(
    ("claim", "speaker"),
    [
        ("I love that band too!", 1.0),
        ("Have you heard their first album?", 1.0),
        ("We reviewed the budget.", 1.0),
        ("The band formed in 1990 in Seattle.", 0.0),
        ("Iodine is an element.", 0.0),  # "I" only as a word of its own
    ],
)
def test_a_claim_about_its_speaker_or_listener_is_marked(claim: str, speaker: float) -> None:
    scores = NLIScores(entail=0.5, neutral=0.3, contradict=0.2)
    assert support_features(claim, "The band formed in 1990.", 0.5, scores)["speaker"] == speaker


@pytest.mark.parametrize(
    ("claim", "unit", "quoted"),
    [
        # each statement a sentence joins with ";", ", whereas", ", while" or a colon is quotable on its own
        ("Work is a scalar quantity.", "Work is a scalar quantity: it has magnitude but no direction.", True),
        ("Like charges repel each other.", "Like charges repel each other, whereas unlike charges attract.", True),
        ("Energy cannot be created or destroyed.", "Energy cannot be created or destroyed; it changes form.", True),
        # ", but" before a clause of its own joins two statements; ", but only" restricts what went before
        ("kinetic energy is not conserved.", "Momentum is conserved, but kinetic energy is not conserved.", True),
        ("Objects fall at the same rate.", "Objects fall at the same rate, but only in a vacuum.", False),
        ("Work is a vector quantity.", "Work is a scalar quantity: it has magnitude but no direction.", False),
    ],
)
def test_a_statement_of_a_joined_sentence_is_quoted(claim, unit, quoted) -> None:
    from veriground.signals.support_features import is_quoted

    assert is_quoted(claim, unit) is quoted


@pytest.mark.parametrize(
    ("claim", "unit", "conditional"),
    [
        ("Kinetic energy is not conserved.", "- If kinetic energy is conserved, the collision is elastic.", True),
        ("Kinetic energy is not conserved.", "When the net force is zero, momentum is conserved.", True),
        ("If kinetic energy is conserved, the collision is inelastic.",
         "If kinetic energy is conserved, the collision is elastic.", False),  # both conditional: comparable
        ("Kinetic energy is not conserved.", "Kinetic energy is conserved in elastic collisions.", False),
    ],
)  # fmt: skip
def test_a_unit_that_opens_with_a_condition_never_refutes_an_unconditional_claim(claim, unit, conditional) -> None:
    from veriground.schema import NLIScores
    from veriground.verdicts.aggregator import load_aggregator

    judged = load_aggregator("veriground-nli.v3").judge_unit(
        claim, unit, (0, len(unit)), 1.0, NLIScores(entail=0.02, neutral=0.02, contradict=0.96)
    )
    assert judged.features["conditional_unit"] == float(conditional)
    if conditional:
        assert judged.refute_prob == 0.0


GRAVITY = (
    "The force is directly proportional to the product of their masses and inversely proportional to the square of "
    "the distance between them."
)


@pytest.mark.parametrize(
    ("claim", "passage", "another"),
    [
        # the passage never says "impulse", and its sentence is about force, a word of the claim's: no support
        ("Impulse is the product of force and distance.", GRAVITY, True),
        # the passage names the claim's subject: its "the group" is the model's to read
        ("Fancy Bear is a group of hackers.", "Fancy Bear was named by a firm. The group hacks.", False),
        # a sentence about something the claim does not name is for the model too ("The film" for "Jackpot")
        ("Jackpot had 870 screens in India.", "The film released in 2013 with 870 screens in India.", False),
        ("Impulse is the product of force and time.", "Impulse equals the force multiplied by the time.", False),
    ],
)  # fmt: skip
def test_a_unit_about_another_thing_the_claim_names_in_a_passage_that_never_names_its_subject(claim, passage, another):
    from veriground.signals.support_features import claim_context, passage_context
    from veriground.verdicts.aggregator import load_aggregator

    context = passage_context(claim_context(claim, [passage]), claim, passage)
    unit = passage.split(". ")[-1]
    judged = load_aggregator("veriground-nli.v3").judge_unit(
        claim, unit, (0, len(unit)), 1.0, NLIScores(entail=0.82, neutral=0.02, contradict=0.16), context=context
    )
    assert judged.features["another_subject"] == float(another)
    if another:
        assert judged.support_prob == 0.0
