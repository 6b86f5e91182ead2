"""Discourse frames (claims/frames.py): "Yes,", "I think", "Based on the given context," are left out of a claim's
span and text; everything that states something, or may, stays."""

from __future__ import annotations

import pytest

from veriground.backends.lexical_nli import LexicalNLIModel
from veriground.claims import extract_claims
from veriground.claims.frames import frame_end, is_discourse
from veriground.config import load_config
from veriground.engine import verify_text
from veriground.evidence.gather import PackEvidence
from veriground.schema import EvidencePack, PackPassage


@pytest.mark.parametrize(
    ("sentence", "claim"),
    [
        ("Yes, Andrew Ng is one of the authors of the paper.", "Andrew Ng is one of the authors of the paper."),
        ("yes the offense is the team controlling the ball.", "the offense is the team controlling the ball."),
        ("Oh yes, I know that the singer was raised in Compton.", "the singer was raised in Compton."),
        ("Yes but there is no written rule against them playing.", "there is no written rule against them playing."),
        ("i think they were formed in the lehigh valley.", "they were formed in the lehigh valley."),
        ("I can tell you that Kurt Cobain was an American singer.", "Kurt Cobain was an American singer."),
        ("I'm pretty sure that water boils at 100 degrees.", "water boils at 100 degrees."),
        ("Well, the Southern Ocean is the most southern ocean.", "the Southern Ocean is the most southern ocean."),
        (
            "Based on the given contexts, cider alcohol content varies widely.",
            "cider alcohol content varies widely.",
        ),
        ("According to the sources, the bridge opened in 1932.", "the bridge opened in 1932."),
        ("Based on the textbook, kinetic energy is the energy of motion.", "kinetic energy is the energy of motion."),
        # BEGIN: a hedge that goes on to assert, and what the writer learned
        ("i am not sure, but in some countries it is a protected title.", "in some countries it is a protected title."),
        ("I'm not sure but the bridge opened in 1932.", "the bridge opened in 1932."),
        ("i also learned that the oregon trail was laid by fur traders.", "the oregon trail was laid by fur traders."),
    ],
)
def test_a_frame_is_left_out_of_the_claim_and_its_span(sentence: str, claim: str) -> None:
    (found,) = extract_claims(sentence, answer_id="a")
    assert found.text == claim
    start, end = found.answer_char_span
    assert sentence[start:end] == claim  # the span is exact: it starts where the statement does


@pytest.mark.parametrize(
    "sentence",
    [
        "No one knows how old the bridge is.",  # "No" opens the statement: no mark after it
        "No, the bridge is not that old.",  # an answer's polarity is part of what it claims
        "According to NASA, the telescope orbits the Sun.",  # a named source is part of the claim
        "Yes, Paris.",  # too little left after the frame to state anything: its words stay
        "Well, I've heard that.",  # nothing but a frame: its words stay
        "So many students fail the exam every year.",
        "Indeed the theorem holds for every graph.",  # "indeed" without a mark may be an adverb of the statement
        "From the source code the function returns zero.",  # a generic source ends with a comma
        "I'm not sure that the bridge opened in 1932.",  # doubt, not "not sure, but": the writer does not assert it
    ],
)
def test_words_that_may_state_something_stay(sentence: str) -> None:
    (found,) = extract_claims(sentence, answer_id="a")
    assert found.answer_char_span[0] == 0
    assert frame_end(sentence, 0, len(sentence)) == 0


def test_frames_false_keeps_every_word() -> None:
    (found,) = extract_claims("I think they were formed in 1980.", answer_id="a", frames=False)
    assert found.text == "I think they were formed in 1980."


def test_the_verification_config_switch_reaches_the_claims() -> None:
    pack = EvidencePack(
        passages=(PackPassage(passage_id="p1", text="Shadow Gallery was formed in the Lehigh Valley."),)
    )
    text = "I think they were formed in the Lehigh Valley."
    framed = {}
    for frames in (True, False):
        config = load_config(None, {"models.nli": "lexical", "verification.frames": frames}, environ={})
        report = verify_text(text, config=config, source=PackEvidence(pack, config.retrieval), nli=LexicalNLIModel())
        framed[frames] = report.claims[0].claim.text
    assert framed == {True: "they were formed in the Lehigh Valley.", False: text}


@pytest.mark.parametrize(
    ("sentence", "without_question", "with_question"),
    [
        ("Here is a summary of the travel policy.", True, True),
        ("I hope this helps!", True, True),
        ("Hope this helps!", True, True),
        ("Great question!", True, True),
        ("Let me know if you have other questions.", True, True),
        ("Thank you for asking.", True, True),
        ("Sure!", True, False),  # a bare particle answers a question when there is one
        ("Yes.", True, False),
        ("No.", True, False),
        ("Of course!", True, False),
        ("Yes, it is.", True, False),  # a reply that names nothing, unless it answers a question
        ("Sure, merge sort is stable.", False, False),
        ("Here are the results of the experiment.", False, False),
        ("Here is why objects fall.", False, False),
        ("Great Britain is an island.", False, False),
        ("Thanks to gravity, objects fall.", False, False),
        ("In summary, merge sort is fast.", False, False),
    ],
)
def test_a_sentence_that_only_talks_to_the_reader_is_no_claim(sentence, without_question, with_question) -> None:
    assert is_discourse(sentence, 0, len(sentence)) is without_question
    assert is_discourse(sentence, 0, len(sentence), answers_a_question=True) is with_question
    claims = extract_claims(f"{sentence} Merge sort is stable.", answer_id="a")
    assert [claim.text for claim in claims][-1] == "Merge sort is stable."
    assert len(claims) == (1 if without_question else 2)


def test_sure_is_no_claim_of_a_note_but_yes_answers_a_question() -> None:
    pack = EvidencePack(passages=(PackPassage(passage_id="p1", text="Before you start, be sure you understand work."),))
    config = load_config(None, {"models.nli": "lexical"}, environ={})
    source = PackEvidence(pack, config.retrieval)
    note = verify_text("Sure! Work is energy.", config=config, source=source, nli=LexicalNLIModel())
    assert [item.claim.text for item in note.claims] == ["Work is energy."]
    answer = verify_text("Yes.", config=config, source=source, nli=LexicalNLIModel(), query="Is work energy?")
    assert [item.claim.text for item in answer.claims] == ["Yes."]


@pytest.mark.parametrize(
    ("text", "claims"),
    [
        ("Have you ever had an Irish coffee? They are a type of cocktail.", ["They are a type of cocktail."]),
        ("What type of weight training do you use?", []),
        ("So, did you like the Appalachian Mountains?", []),
        ("Ever heard of The Godfather? It was released for the PS2.", ["It was released for the PS2."]),
        ("Why does the ball fall? Gravity pulls it down.", ["Gravity pulls it down."]),
        # a question that presupposes a statement states it
        ("Did you know that light travels at 3.00 x 10^8 m/s?", ["light travels at 3.00 x 10^8 m/s?"]),
        ("Hi. Are you aware his career began in 1954 at Sun Records?", ["his career began in 1954 at Sun Records?"]),
        ("Have you heard of them?", []),  # too little follows the frame to state anything
        ("Hello there! The sun is a star.", ["The sun is a star."]),  # a greeting talks to the reader
    ],
)
def test_a_question_makes_no_claim_unless_it_presupposes_one(text: str, claims: list[str]) -> None:
    assert [claim.text for claim in extract_claims(text, answer_id="a")] == claims


def test_with_frames_off_a_question_is_claimed_as_written() -> None:
    (claim,) = extract_claims("What type of weight training do you use?", answer_id="a", frames=False)
    assert claim.text == "What type of weight training do you use?"


@pytest.mark.parametrize(
    ("text", "claims"),
    [
        # a reply that names nothing says nothing a source could hold; what follows it does
        (
            "yes it does. historically archery has been used for hunting.",
            ["historically archery has been used for hunting."],
        ),
        (
            "It really is. It is between blue and yellow on the spectrum.",
            ["It is between blue and yellow on the spectrum."],
        ),
        ("I believe it was.", []),
        ("that's right. it may be machine-knitted.", ["it may be machine-knitted."]),  # no question: no answer either
        ("I do.", []),
        # an exclamation ends its sentence before a lower-case word too (pysbd's does not): BEGIN's "i have! it is an
        # island in the north atlantic." was one claim, Contradictory against "ireland is an island in the north
        # atlantic."; a factorial ends none
        ("i have! it is an island in the north atlantic.", ["it is an island in the north atlantic."]),
        ("There are n! subsets of it.", ["There are n! subsets of it."]),
        # a sentence that names something, or holds a number or a formula, stays a claim
        ("He won.", ["He won."]),
        ("It is 5.", ["It is 5."]),
        ("x < y.", ["x < y."]),
    ],
)
def test_a_reply_that_names_nothing_makes_no_claim(text: str, claims: list[str]) -> None:
    assert [claim.text for claim in extract_claims(text, answer_id="a")] == claims


def test_after_a_question_a_bare_reply_is_the_answer() -> None:
    (claim,) = extract_claims("Yes, it does.", answer_id="a", answers_a_question=True)
    assert claim.text == "Yes, it does."
