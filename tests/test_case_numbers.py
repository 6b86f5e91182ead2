"""Numbers that set up a case, and numbers a question asks about, are no values to compare (text/parameters.py,
text/sentences.py question_spans); the numeric signal and the lexical NLI read them so."""

from __future__ import annotations

import pytest

from veriground.backends.lexical_nli import LexicalNLIModel
from veriground.signals.numeric import compute_numeric
from veriground.text.parameters import case_quantities, expression_constants
from veriground.text.quantities import extract_quantities
from veriground.text.sentences import is_question, question_spans

QUIZ = "Is there a tree with exactly 7 vertices and 7 edges? Could a tree with 7 vertices have only 5 edges?"
EXAMPLE = "Consider trees with $v=2$ vertices: there is only one, and it has 1 edge."


@pytest.mark.parametrize(
    ("text", "cases"),
    [
        ("A tree with 10 vertices has 9 edges.", ["10"]),
        ("A tree with 10 vertices and 3 leaves has 9 edges.", ["10", "3"]),
        ("Any set with 3 elements has 8 subsets.", ["3"]),
        ("A connected planar graph with 8 vertices, 12 edges and 6 faces exists.", ["8", "12", "6"]),
        ("The complete graph on 5 vertices has 10 edges.", ["5"]),  # "on" after any subject
        # a definite subject with "with", or "of": a value, not a case
        ("The company has a budget of $10 million.", []),
        ("The tree with 10 vertices has 9 edges.", []),
        ("Merge sort sorts 8 elements in 24 steps.", []),
    ],
)
def test_case_numbers_follow_an_indefinite_subject_and_with(text, cases):
    assert [quantity.text for quantity in case_quantities(text)] == cases


def test_questions_are_found_with_their_spans():
    spans = question_spans(QUIZ + " There is a good reason.")
    assert len(spans) == 2
    assert is_question('He asked, "Why?"') and not is_question("It is 5 m long.")


def test_a_question_states_no_value_to_mismatch():
    signal = compute_numeric("A tree with 7 vertices has 6 edges.", [QUIZ])
    assert signal.outcome == "absent" and not signal.mismatches


def test_a_worked_example_of_another_case_holds_no_rival_values():
    # 9 edges against an example's 1 edge: the example is a tree with 2 vertices, the claim one with 10
    signal = compute_numeric("A tree with 10 vertices has 9 edges.", [EXAMPLE])
    assert signal.outcome == "absent" and not signal.mismatches


def test_evidence_of_the_same_case_still_mismatches():
    signal = compute_numeric("A tree with 10 vertices has 8 edges.", ["A tree with 10 vertices has 9 edges."])
    assert signal.outcome == "mismatch"
    assert signal.mismatches == ("claim 8 vs evidence 9",)


def test_the_same_number_of_another_noun_is_not_the_case():
    # "10 edges" is not the case "10 vertices": K_5's 5 vertices are no rival of the forest's 10
    signal = compute_numeric("A forest with 10 vertices has 9 edges.", ["$K_5$ has 5 vertices and 10 edges."])
    assert not signal.mismatches


def test_without_a_case_numbers_still_mismatch():
    signal = compute_numeric("The tree has 9 edges.", ["The tree has 7 edges."])
    assert signal.outcome == "mismatch"


@pytest.mark.parametrize(
    ("premise", "claim", "fires"),
    [
        (QUIZ, "A tree with 7 vertices has 6 edges.", False),
        (EXAMPLE, "A tree with 10 vertices has 9 edges.", False),
        ("A tree with 10 vertices has 9 edges.", "A tree with 10 vertices has 8 edges.", True),
        ("The tree has 7 edges.", "The tree has 9 edges.", True),
    ],
)
def test_lexical_number_cue_reads_questions_and_cases_alike(premise, claim, fires):
    _, cues = LexicalNLIModel().cue_reading(premise, claim)
    assert ("number" in cues) is fires


def test_a_formulas_constants_are_no_stated_values():
    text = "since $v = 6$, and the count is $$5^5 - {5 \\choose 1}4^5$$ in all."
    constants = expression_constants(text)
    assert [(quantity.text, quantity.start in constants) for quantity in extract_quantities(text)] == [
        ("6", False),  # stands alone after "=": a value
        ("5", True),
        ("1", True),
    ]
    signal = compute_numeric(
        "The number of ways to choose 2 items from 5 is 10.", ["It is $$5^5 - {5 \\choose 1}4^5$$."]
    )
    assert not signal.mismatches
