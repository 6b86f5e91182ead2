"""The lexical NLI backend: each cue on physics, algorithms and policy sentences, and valid probabilities always."""

from __future__ import annotations

import itertools
import math

import pytest

from veriground.backends.lexical_nli import LexicalNLIModel
from veriground.backends.protocols import NLIModel

MODEL = LexicalNLIModel()
LIGHT = "The speed of light in vacuum is 3.0 × 10⁸ m/s."
EINSTEIN = "Einstein's mass-energy equivalence is written E = mc²."
QUICKSORT = "Quicksort has a worst-case running time of O(n^2) when the pivot is always the smallest element."
MERGE_SORT = "Merge sort is a stable sorting algorithm that runs in O(n log n) time."
LEAVE = "Eligible employees receive 12 weeks of paid parental leave after the birth of a child."


def predict_one(premise: str, hypothesis: str):
    [scores] = MODEL.predict([(premise, hypothesis)])
    return scores


def cue_names(premise: str, hypothesis: str) -> list[str]:
    return [cue["cue"] for cue in MODEL.explain(premise, hypothesis)["cues"]]


def test_lexical_model_satisfies_the_nli_protocol():
    assert isinstance(MODEL, NLIModel)
    assert (MODEL.name, MODEL.model_id, MODEL.checksum) == ("lexical-nli.v1", "veriground/lexical-nli", None)


def test_seed_t1_order_of_magnitude_is_a_contradiction():
    scores = predict_one(LIGHT, "The speed of light in vacuum is 3.0 × 10⁹ m/s")
    assert cue_names(LIGHT, "The speed of light in vacuum is 3.0 × 10⁹ m/s") == ["number"]
    assert scores.contradict > 0.9 > scores.entail


def test_same_number_in_other_notation_is_support():
    scores = predict_one(LIGHT, "In vacuum, light has a speed of 3e8 m/s.")
    assert scores.entail == 1.0 and scores.contradict == 0.0


def test_seed_t4_wrong_exponent_is_an_equation_contradiction_not_entailment():
    hypothesis = "Einstein's equation: E = mc³"
    explained = MODEL.explain(EINSTEIN, hypothesis)
    assert [cue["cue"] for cue in explained["cues"]] == ["equation"]
    assert "E = mc^3" in explained["cues"][0]["detail"] and "mc^2" in explained["cues"][0]["detail"]
    assert explained["contradict"] > explained["entail"]


def test_correct_equation_has_no_contradiction():
    scores = predict_one(EINSTEIN, "Einstein's equivalence is E = mc^2")
    assert scores.contradict == 0.0 and scores.entail > 0.5


def test_antonym_best_vs_worst_case_is_a_contradiction():
    hypothesis = "Quicksort has a best-case running time of O(n^2)."
    assert cue_names(QUICKSORT, hypothesis) == ["antonym"]
    assert predict_one(QUICKSORT, hypothesis).contradict >= 0.75


@pytest.mark.parametrize(
    ("premise", "hypothesis", "cues"),
    [
        (  # both poles, and the claim's ("less" for "smaller") stands among the claim's words ("left subtree")
            "For a node u, every value stored in the subtree rooted at u.left is less than u.x and every value "
            "stored in the subtree rooted at u.right is greater than u.x.",
            "Every value in the left subtree of a node is smaller than the node's value.",
            [],
        ),
        (  # ... and against the right subtree, the opposite pole does
            "For a node u, every value stored in the subtree rooted at u.left is less than u.x and every value "
            "stored in the subtree rooted at u.right is greater than u.x.",
            "Every value in the right subtree of a node is smaller than the node's value.",
            ["antonym"],
        ),
        (  # the other pole is about something else (memory), not the comparisons the claim counts
            "Insertion sort makes more comparisons than merge sort, although it uses less memory.",
            "Insertion sort makes fewer comparisons than merge sort.",
            ["antonym"],
        ),
        ("Mars is smaller than Earth, and its orbital period is greater.", "Mars is larger than Earth.", ["antonym"]),
        # kinds a textbook sets against each other
        ("Work is a scalar quantity: it has magnitude but no direction.", "Work is a vector quantity.", ["antonym"]),
        (
            "Two resistors connected in series carry the same current.",
            "Two resistors connected in parallel carry the same current.",
            ["antonym"],
        ),
        ("Velocity is a vector quantity.", "Velocity is a vector quantity, unlike speed.", []),
        (  # OpenStax: the period is independent of the mass (a misconception a teacher checks for)
            "The period is completely independent of other factors, such as mass or amplitude.",
            "The period of a pendulum depends on the mass of the bob.",
            ["antonym"],
        ),
        ("The period of a simple pendulum depends on its length.", "The period depends on the length.", []),
        # one opposite and one negation undo each other
        (
            "This SOP applies only to procurement actions over the micro-purchase threshold that will be executed.",
            "Procurement actions under the micro-purchase threshold are not executed under this SOP.",
            [],
        ),
        ("The price increased last year.", "The price did not decrease last year.", []),
        ("The price increased last year.", "The price decreased last year.", ["antonym"]),
        # a negating prefix, either way round (SummEdits' "changed" for "unchanged"); "unit" is no "un-it"
        ("The estimate is unchanged from the guidance.", "The estimate is changed from the guidance.", ["antonym"]),
        ("Consolidated sales rose to $441 million.", "Unconsolidated sales rose to $441 million.", ["antonym"]),
        ("The estimate is unchanged from the guidance.", "The estimate is not changed from the guidance.", []),
        ("The unit of force is the newton.", "The force is the newton.", []),
    ],
)
def test_an_antonym_counts_unless_the_premise_states_the_claims_pole_about_the_same_thing(premise, hypothesis, cues):
    assert cue_names(premise, hypothesis) == cues


def test_negation_on_one_side_is_a_contradiction():
    hypothesis = "Merge sort is not a stable sorting algorithm."
    assert cue_names(MERGE_SORT, hypothesis) == ["negation"]
    scores = predict_one(MERGE_SORT, hypothesis)
    assert scores.contradict > scores.entail


def test_policy_number_of_weeks_mismatch_is_a_contradiction():
    hypothesis = "Eligible employees receive 16 weeks of paid parental leave."
    assert cue_names(LEAVE, hypothesis) == ["number"]


def test_verbatim_support_is_entailment_with_no_cue():
    scores = predict_one(MERGE_SORT, "Merge sort is stable.")
    assert scores.entail == 1.0 and scores.contradict == 0.0 and scores.neutral == 0.0


def test_unrelated_text_is_neutral_and_fires_no_cue():
    hypothesis = "The French Revolution did not begin in 1789."
    assert cue_names(MERGE_SORT, hypothesis) == []
    assert predict_one(MERGE_SORT, hypothesis).neutral == 1.0


def test_cues_need_shared_context():
    # Negated but about something else: below CUE_MIN_OVERLAP, so no contradiction.
    assert predict_one(LEAVE, "Quicksort is not stable.").contradict == 0.0


def test_cue_is_read_against_the_best_aligned_sentence_of_a_passage():
    passage = "Quicksort is not stable. " + MERGE_SORT
    assert cue_names(passage, "Merge sort is a stable sorting algorithm.") == []
    assert cue_names(passage, "Merge sort is not a stable sorting algorithm.") == ["negation"]


def test_explain_lists_missing_terms_and_aligned_sentence():
    explained = MODEL.explain("Quicksort is fast. " + MERGE_SORT, "Merge sort is stable and adaptive.")
    assert explained["missing_terms"] == ["adaptive"]
    assert explained["aligned_sentence"] == MERGE_SORT
    assert explained["coverage"] == pytest.approx(3 / 4)  # merge, sort, stable of merge, sort, stable, adaptive


def test_predict_is_deterministic_and_keeps_order():
    pairs = [(LIGHT, "Light is slow."), (MERGE_SORT, "Merge sort is stable."), (LEAVE, "Leave is unpaid.")]
    assert MODEL.predict(pairs) == MODEL.predict(pairs)
    assert [scores.entail for scores in MODEL.predict(pairs)][1] == 1.0
    assert MODEL.predict([]) == []


EDGE_TEXTS = [
    "",
    " ",
    "the of and is",
    "42",
    "3.0 × 10⁹",
    "1/0",
    "10^999 m",
    "not",
    "no no no",
    "E = ",
    "= = =",
    "O(n^2)",
    "Δx λ",
    "[1] [2]",
    "...!!!",
    "$10,000",
    "99.9%",
    "\n\n\n",
    "x" * 3000,
    LIGHT,
    QUICKSORT,
]


@pytest.mark.parametrize("premise", EDGE_TEXTS)
def test_probabilities_are_valid_for_edge_inputs(premise: str):
    for hypothesis in EDGE_TEXTS:
        scores = predict_one(premise, hypothesis)
        values = (scores.entail, scores.neutral, scores.contradict)
        assert all(math.isfinite(value) and 0.0 <= value <= 1.0 for value in values), (premise, hypothesis)
        assert sum(values) == pytest.approx(1.0, abs=1e-5), (premise, hypothesis)


def test_probabilities_are_valid_for_mixed_fragments():
    fragments = ["not", "3 m/s", "30 m/s", "stable", "unstable", "E = mc^2", "E = mc^3", "the", "Quicksort"]
    for left, right in itertools.product(itertools.combinations(fragments, 2), repeat=2):
        scores = predict_one(" ".join(left), " ".join(right))
        assert sum((scores.entail, scores.neutral, scores.contradict)) == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize(
    ("premise", "hypothesis", "negation_cue"),
    [
        # The negation is about something the claim does not mention: no cue.
        (
            "When air resistance is not a factor, all objects near Earth's surface fall with an acceleration of "
            "about 9.80 m/s^2.",
            "Objects near Earth's surface fall with an acceleration of 9.80 m/s^2.",
            False,
        ),
        # "nothing but" affirms.
        ("Graphs are nothing but a pair of two sets.", "A graph is a pair of two sets.", False),
        # The negated predicate is the claim's own: a cue.
        ("Kinetic energy depends on the mass and the speed.", "Kinetic energy does not depend on the speed.", True),
        ("Merge sort is not a stable sorting algorithm.", "Merge sort is a stable sorting algorithm.", True),
        # "failed to" / "refused to" / "unable to" negate what follows "to" (FEVER-Symmetric's wording) ...
        ("Cadet Kelly was released in 2002.", "Cadet Kelly failed to be released.", True),
        ("Cadet Kelly was never released.", "Cadet Kelly failed to be released.", False),
        (
            "The bank said it could not provide further assistance.",
            "The bank refused to provide further assistance.",
            False,
        ),
        # ... and nothing without "to".
        ("The algorithm works on empty input.", "The algorithm fails on empty input.", False),
        # "ruled out" negates like "not".
        (
            "The bank said it could not provide further financial assistance.",
            "The bank ruled out providing further financial assistance.",
            False,
        ),
        ("The bank provided further financial assistance.", "The bank ruled out providing further assistance.", True),
        # A word the premise negates in one place and asserts in another is not negated: the claim's is true.
        (
            "The telescope is not in orbit around the Earth - it actually orbits the Sun, 1.5 million km away.",
            "The telescope orbits the Sun, 1.5 million km from Earth.",
            False,
        ),
        (
            "The telescope is not in orbit around the Earth - it actually orbits the Sun, 1.5 million km away.",
            "The telescope is in orbit around the Earth.",
            True,
        ),
    ],
)
def test_a_negation_counts_only_when_its_scope_holds_shared_content(premise, hypothesis, negation_cue):
    assert ("negation" in cue_names(premise, hypothesis)) is negation_cue


VELOCITY = (
    "Furthermore, the variable v for velocity is bold because it is a vector, which is in contrast to the variable v "
    "for speed which is italicized because it is a scalar quantity."
)


@pytest.mark.parametrize(
    ("claim", "unit", "opposite"),
    [
        ("Velocity is a scalar.", VELOCITY, "Velocity is a vector."),  # the unit states both poles
        ("Velocity is a vector.", VELOCITY, "Velocity is a scalar."),
        ("Work is a scalar quantity.", "Work is a scalar quantity.", None),  # one way only: the antonym cue's case
        ("Prices rose more than costs, not less.", "Prices rose more, costs less.", None),  # the claim has both
        # the unit states the claim's word next to the same word: about the same thing
        (
            "It came 100 years before Sheridan's recipe.",
            "It came 100 years before Sheridan's recipe, after a war.",
            None,
        ),
    ],
)
def test_the_opposite_of_a_claim_is_put_only_for_a_word_the_unit_states_both_ways(claim, unit, opposite):
    from veriground.text.cues import opposite_statement

    assert opposite_statement(claim, unit) == opposite
