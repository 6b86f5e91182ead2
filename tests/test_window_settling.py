"""A window supports no more than a sentence in it that refutes the claim (verdicts/aggregator.py settle_windows); the
sentence is read beside a window of list items in tests/test_evidence_units.py."""

from __future__ import annotations

from veriground.schema import UnitJudgement
from veriground.verdicts.aggregator import SENTENCE_REFUTES, settle_windows


def judged(start: int, end: int, sentences: int, support: float, refute: float) -> UnitJudgement:
    return UnitJudgement(
        char_start=start, char_end=end, alignment=0.8, sentences=sentences, shared_terms=4,
        entailment_prob=support, contradiction_prob=refute, support_prob=support, refute_prob=refute,
    )  # fmt: skip


def test_a_window_supports_no_more_than_a_sentence_in_it_that_refutes():
    window, sentence = judged(0, 200, 3, 0.76, 0.0), judged(150, 200, 1, 0.25, 0.67)
    settled_window, settled_sentence = settle_windows([window, sentence])
    assert settled_window.support_prob == 0.25 and settled_window.features == {SENTENCE_REFUTES: 1.0}
    assert settled_sentence == sentence


def test_a_window_keeps_its_support_when_its_sentence_agrees_or_lies_outside():
    window = judged(0, 200, 3, 0.76, 0.0)
    assert settle_windows([window, judged(150, 200, 1, 0.70, 0.10)])[0] == window  # the sentence supports
    assert settle_windows([window, judged(250, 300, 1, 0.20, 0.60)])[0] == window  # another part of the passage
