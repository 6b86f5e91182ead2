"""A window and the sentence in it that states the claim's content: the sentence is read beside the window
(evidence/units.py), and a window supports no more than such a sentence that refutes the claim
(verdicts/aggregator.py settle_windows)."""

from __future__ import annotations

from veriground.evidence.units import claim_content, select_units
from veriground.schema import EvidenceChunk, UnitJudgement
from veriground.verdicts.aggregator import SENTENCE_REFUTES, settle_windows

CREDIT = (
    "* You can have up to 24 credit hours accrued, at any given time.\n\n"
    "* The hours will rollover from one pay period to the next, and they never expire.\n\n"
    "* Credit hours cannot be converted to cash, unless you leave GSA (then they will be paid out)."
)


def chunk(text: str) -> EvidenceChunk:
    return EvidenceChunk(
        doc_id="d", sent_id=0, passage_id="d#000000000001", text=text, char_start=0, char_end=len(text),
        rank=1, source="s", version="d@v1",
    )  # fmt: skip


def judged(start: int, end: int, sentences: int, support: float, refute: float) -> UnitJudgement:
    return UnitJudgement(
        char_start=start, char_end=end, alignment=0.8, sentences=sentences, shared_terms=4,
        entailment_prob=support, contradiction_prob=refute, support_prob=support, refute_prob=refute,
    )  # fmt: skip


def test_the_sentence_that_says_most_of_the_claim_is_read_beside_the_window_that_wins():
    units = select_units(claim_content("Credit hours can be converted to cash at any time."), chunk(CREDIT), 1)
    assert [unit.sentences for unit in units] == [3, 1]  # the window adds "time"; the item says the rest
    assert units[1].text.startswith("* Credit hours cannot be converted to cash")


def test_a_best_single_sentence_is_read_alone():
    units = select_units(claim_content("Credit hours cannot be converted to cash."), chunk(CREDIT), 1)
    assert [unit.sentences for unit in units] == [1]


def test_a_window_supports_no_more_than_a_sentence_in_it_that_refutes():
    window, sentence = judged(0, 200, 3, 0.76, 0.0), judged(150, 200, 1, 0.25, 0.67)
    settled_window, settled_sentence = settle_windows([window, sentence])
    assert settled_window.support_prob == 0.25 and settled_window.features == {SENTENCE_REFUTES: 1.0}
    assert settled_sentence == sentence


def test_a_window_keeps_its_support_when_its_sentence_agrees_or_lies_outside():
    window = judged(0, 200, 3, 0.76, 0.0)
    assert settle_windows([window, judged(150, 200, 1, 0.70, 0.10)])[0] == window  # the sentence supports
    assert settle_windows([window, judged(250, 300, 1, 0.20, 0.60)])[0] == window  # another part of the passage
