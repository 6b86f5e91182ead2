"""What a question asks for and whether a sentence states it (answering/question_fit.py), table by table, and the
extractive draft that quotes first the sentence stating it when B3 asks."""

from __future__ import annotations

import pytest

from veriground.answering.extractive import draft_extractive_answer
from veriground.answering.question_fit import Asked, asked_for, names_missing, states
from veriground.config import AnswerConfig
from veriground.schema import EvidenceChunk


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("What is the formula for kinetic energy?", Asked.FORMULA),
        ("What is the kinematic equation for velocity under constant acceleration?", Asked.FORMULA),
        ("How is the average speed of an object calculated?", Asked.FORMULA),
        ("How many edges does the complete graph K_n have?", Asked.QUANTITY),
        ("How soon after a trip must I file my travel voucher?", Asked.QUANTITY),
        ("What percentage of the budget goes to travel?", Asked.QUANTITY),
        ("What is the M&IE per diem rate for a trip to Chicago?", Asked.QUANTITY),
        ("What is the POV mileage reimbursement rate per mile?", Asked.QUANTITY),
        ("What is the rate of change of velocity called?", None),  # a name, not a number
        ("What is the exchange rate mechanism?", None),  # terms with "rate", "cost", "limit" in them
        ("What is the opportunity cost of a choice?", None),
        ("What is the limit of a function?", None),
        ("What is kinetic energy?", None),
        ("What does the handshake lemma say?", None),
        ("Why is merge sort stable?", None),
    ],
)
def test_what_a_question_asks_for(question: str, asked: Asked | None):
    assert asked_for(question) is asked


@pytest.mark.parametrize(
    ("sentence", "asked", "expected"),
    [
        ("The net work equals the change in the quantity 1/2mv^2 .", Asked.FORMULA, True),
        ("Velocity equals initial velocity plus acceleration multiplied by time.", Asked.FORMULA, True),
        ("The average speed is $\\bar{v} = d / t$.", Asked.FORMULA, True),
        ("Kinetic energy is also called energy of motion.", Asked.FORMULA, False),
        # a formula in words: "is A divided by B", "is the sum of"
        ("Average speed, vavg, is the distance traveled divided by the time of the motion.", Asked.FORMULA, True),
        ("The degree sum is the sum of the degrees of all vertices.", Asked.FORMULA, True),
        ("The force is applied over a distance of two metres.", Asked.FORMULA, False),
        ("The video also reviews how to convert km/h to m/s.", Asked.FORMULA, False),
        ("Thus there are $n(n-1)/2$ edges in $K_n$.", Asked.QUANTITY, True),
        ("You must file the voucher within 5 business days.", Asked.QUANTITY, True),
        ("We give these a special name: $K_n$ is the complete graph on $n$ vertices.", Asked.QUANTITY, False),
        ("Two sets are equal when they have the same elements.", Asked.QUANTITY, False),
        ("A car going twice as fast does not stop in twice the distance.", Asked.QUANTITY, False),
        ("Each of add, remove and find takes O(n) time.", Asked.QUANTITY, True),  # "how long" in algorithms
    ],
)
def test_whether_a_sentence_states_it(sentence: str, asked: Asked, expected: bool):
    assert states(sentence, asked) is expected


def _chunk(passage_id: str, text: str, rank: int) -> EvidenceChunk:
    return EvidenceChunk(
        doc_id="graphs", sent_id=0, passage_id=passage_id, text=text, char_start=0, char_end=len(text), rank=rank,
        source="graphs.md", version="1",
    )  # fmt: skip


CHUNKS = [
    _chunk("g#1", "The complete graph $K_n$ joins every pair of its $n$ vertices by an edge.", 1),
    _chunk("g#2", "Each vertex has degree $n-1$. Thus there are $n(n-1)/2$ edges in $K_n$.", 2),
]
WEIGHTS = {"edg": 2.0, "complet": 1.0, "graph": 1.0, "k_n": 1.0}
QUESTION = "How many edges does the complete graph K_n have?"


def test_b3_quotes_first_the_sentence_that_states_the_count_and_b2_does_not():
    config = AnswerConfig(max_claims_brief=1)
    naive = draft_extractive_answer(QUESTION, CHUNKS, WEIGHTS, config, "brief")
    assert [claim.cited_ids for claim in naive.claims] == [("g#1",)]
    fitted = draft_extractive_answer(QUESTION, CHUNKS, WEIGHTS, config, "brief", asked_for(QUESTION))
    assert [claim.text for claim in fitted.claims] == ["Thus there are $n(n-1)/2$ edges in $K_n$."]


def test_a_draft_that_found_nothing_about_the_question_still_abstains():
    """A sentence with a number that holds a quarter of the question's words is quoted only to replace a draft."""
    chunks = [_chunk("s#1", "A complete graph is drawn here in 3 colours.", 1)]
    weights = {**WEIGHTS, "edg": 5.0}  # the sentence holds 2 of 8: 0.25
    draft = draft_extractive_answer(QUESTION, chunks, weights, AnswerConfig(), "brief", Asked.QUANTITY)
    assert draft.abstained


def test_a_sentence_about_a_numbered_sibling_is_never_quoted():
    """ "Newton's second law" holds most of a question about the third law and answers none of it."""
    laws = [_chunk("n#1", "Newton's second law of motion states that force equals mass times acceleration.", 1)]
    weights = {"newton": 1.0, "law": 1.0, "motion": 1.0, "state": 1.0, "third": 1.0, "second": 1.0}
    third = draft_extractive_answer(
        "What does Newton's third law of motion state?", laws, weights, AnswerConfig(), "brief"
    )
    assert third.abstained
    second = draft_extractive_answer(
        "What does Newton's second law of motion state?", laws, weights, AnswerConfig(), "brief"
    )
    assert [claim.cited_ids for claim in second.claims] == [("n#1",)]


def test_a_question_asking_for_a_number_that_no_sentence_states_is_not_answered():
    """Cited or silent: sentences about the topic that state no number do not answer "what is the rate"."""
    question = "What is the POV mileage reimbursement rate per mile?"
    chunks = [
        _chunk("t#1", "Reimbursement for POV mileage at the POV mileage rates can be approved if advantageous.", 1)
    ]
    weights = {"pov": 2.0, "mileag": 2.0, "reimburs": 1.0, "rate": 1.0, "mile": 1.0}
    draft = draft_extractive_answer(question, chunks, weights, AnswerConfig(), "brief", asked_for(question))
    assert draft.abstained and "asks for a number" in draft.abstain_reason
    in_words = [_chunk("t#3", "The POV mileage reimbursement rate is sixty-seven cents for each mile.", 1)]
    worded = draft_extractive_answer(question, in_words, weights, AnswerConfig(), "brief", asked_for(question))
    assert not worded.abstained  # an amount in words may answer; the verifier reads it
    stated = [_chunk("t#2", "The POV mileage reimbursement rate is $0.67 per mile.", 1)]
    answered = draft_extractive_answer(question, stated, weights, AnswerConfig(), "brief", asked_for(question))
    assert [claim.cited_ids for claim in answered.claims] == [("t#2",)]


TRAVEL = ["This reduced rate is always 75% of normal M&IE, regardless of how much of the day was spent traveling."]


@pytest.mark.parametrize(
    ("question", "texts", "missing"),
    [
        ("What is the M&IE per diem rate for a trip to Chicago?", TRAVEL, ["Chicago"]),
        ("What is the M&IE rate on a travel day?", TRAVEL, []),  # M&IE is there, as a whole word
        ("Who won the 1998 World Cup?", ["Forces act on the ball."], ["1998", "World", "Cup"]),
        ("What does Newton's second law say?", ["Newton's second law: F = ma."], []),  # possessive read as the name
        ("How does TTS approve travel?", ["TTS staff book travel in Concur."], []),  # an acronym, even first
        ("TTS rules for travel?", ["Travel rules."], ["TTS"]),
        ("What Is The Speed Of Light In A Vacuum?", ["Light is fast."], []),  # title case names nothing this way
        ("What is kinetic energy?", ["Kinetic energy is the energy of motion."], []),  # no name at all
        ("Does Chicago's rate differ?", ["chicago has its own rate"], []),  # case-blind
        ("Is the GSA rate used?", ["the GSAR applies"], ["GSA"]),  # whole words only
    ],
)
def test_names_the_question_asks_about_must_be_in_the_evidence(question, texts, missing):
    assert names_missing(question, texts) == missing
