"""Claim extraction stays linear in its input: the work pysbd is given is counted (characters per call and in
all), and CPU time is compared between an input and one four times its size. No test reads a wall clock."""

from __future__ import annotations

import re
import time

import pytest

from veriground.claims import extract_claims
from veriground.errors import InputTextError
from veriground.text import sentences

LINEAR_RATIO_BOUND = 7.0  # 4x the input: linear work gives ~4x the CPU time, quadratic ~16x
REPEATS = 3  # the least CPU time of a few runs, so one scheduling hiccup does not decide


class CountingSegmenter:
    """Wraps pysbd's segmenter and records the length of every text it is given."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.calls: list[int] = []

    def segment(self, text: str) -> list[str]:
        self.calls.append(len(text))
        return self.inner.segment(text)


@pytest.fixture
def pysbd_calls(monkeypatch) -> list[int]:
    counting = CountingSegmenter(sentences._segmenter())
    monkeypatch.setattr(sentences, "_segmenter", lambda: counting)
    # Every window goes to pysbd: these tests bound pysbd's work (the one-sentence fast path is tested on its own).
    monkeypatch.setattr(sentences, "one_sentence", lambda window: False)
    return counting.calls


def conjunction_run(count: int) -> str:
    """One "sentence" of `count` clauses joined by "and": no boundary pysbd could find."""
    return " and ".join(["x is y"] * count) + "."


def test_max_claims_stops_segmentation_early(pysbd_calls: list[int]) -> None:
    text = "The acceleration due to gravity on Earth is 9.8 m/s² [1]. " * 50_000
    with pytest.raises(InputTextError, match=r"max_claims=2000 claims \(about 50000 sentences\)"):
        extract_claims(text, answer_id="a")
    assert sum(pysbd_calls) < len(text) / 10  # only the first ~2,000 sentences were segmented


def test_5000_sentences_in_one_paragraph_are_segmented_in_windows(pysbd_calls: list[int]) -> None:
    text = " ".join(f"Sample {index} of the gas has a pressure of {index} kPa." for index in range(5000))
    claims = extract_claims(text, answer_id="a", max_claims=5000)
    assert len(claims) == 5000  # no sentence lost or merged at a window edge
    assert all(text[slice(*claim.answer_char_span)] == claim.text for claim in claims)
    assert max(pysbd_calls) <= sentences.MAX_PYSBD_CHARS
    assert sum(pysbd_calls) < 1.2 * len(text)  # windows overlap by one sentence only


def test_a_run_with_no_sentence_boundary_is_cut_before_pysbd_sees_it(pysbd_calls: list[int]) -> None:
    text = conjunction_run(5000)  # 55 KB
    claims = extract_claims(text, answer_id="a", max_claims=10_000)
    assert max(pysbd_calls) <= sentences.MAX_PYSBD_CHARS
    assert sum(pysbd_calls) < 2 * len(text)
    spans = [claim.answer_char_span for claim in claims]
    assert spans == sorted(spans) and all(start < end for start, end in spans)
    assert all(text[start:end].strip() == text[start:end] for start, end in spans)
    assert all(re.fullmatch(r"x is y(?: and x is y)*\.?", text[start:end]) for start, end in spans)


def test_pysbd_work_grows_linearly_with_a_run_without_boundaries(pysbd_calls: list[int]) -> None:
    extract_claims(conjunction_run(1000), answer_id="a", max_claims=10_000)
    small = sum(pysbd_calls)
    pysbd_calls.clear()
    extract_claims(conjunction_run(4000), answer_id="a", max_claims=10_000)
    assert 3.5 < sum(pysbd_calls) / small < 4.5


def test_extraction_cpu_time_grows_linearly_with_a_run_without_boundaries() -> None:
    def cpu_seconds(text: str) -> float:
        best = float("inf")
        for _ in range(REPEATS):
            started = time.process_time()
            extract_claims(text, answer_id="a", max_claims=10_000)
            best = min(best, time.process_time() - started)
        return best

    extract_claims("Warm up the segmenter here.", answer_id="a")
    ratio = cpu_seconds(conjunction_run(2000)) / cpu_seconds(conjunction_run(500))
    assert ratio < LINEAR_RATIO_BOUND, f"4x the input cost {ratio:.1f}x the CPU time"
