"""Evidence units: a claim and one evidence chunk -> the chunk's sentences and 2-3-sentence windows that carry most of
the claim's content, with exact offsets into the chunk text. The NLI reads these units, never whole passages, so a
long passage neither dilutes support nor lends contradiction from sentences about something else.

A unit's alignment is the share of the claim's content stems (read through readable_text, so a code name or inline
LaTeX counts as the words it spells) and numbers that it contains. Windows compete with
single sentences and win only when they add content (a tie goes to the shorter unit, then the earlier one), so a
claim that joins two neighbouring sentences is read against both, and one that repeats a sentence against it alone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import NamedTuple

from veriground.schema import EvidenceChunk
from veriground.text.content import content_stems, sentence_numbers
from veriground.text.continuation import statements
from veriground.text.memo import text_memo
from veriground.text.quantities import extract_quantities
from veriground.text.readable import readable_text
from veriground.text.sentences import SentenceBoundary, is_question, sentence_spans
from veriground.text.terms import stem_words

MAX_UNITS_PER_CHUNK = 2
# When a window of list items is a chunk's best unit, its best single sentence is read as well if it holds at least
# this share of the claim: a window may support, but only one sentence may refute (verdicts/aggregator.py may_refute),
# and "Credit hours cannot be converted to cash" must be read alone against "Credit hours can be converted to cash at
# any time", which the window that adds "at any given time" from the item before it wins. Items of a list stand each
# on its own; sentences of prose run on (a pronoun, a "but"), so a prose window is read whole: reading its best
# sentence beside it cost held-out SummEdits 0.609 -> 0.608 and AttributionBench 0.813 -> 0.807 (with
# settle_windows, 0.602 and 0.800). The aggregator's CONTRADICTION_MIN_ALIGNMENT.
SENTENCE_BESIDE_WINDOW = 0.6
_LIST_ITEM = re.compile(r"\n[ \t]*(?:[-*•]|\d{1,2}[.)])[ \t]")
MAX_WINDOW_SENTENCES = 3
# About 150 word pieces: an NLI encoder of 256 tokens keeps room for the claim.
MAX_UNIT_CHARS = 700
_SLICE_STEP = MAX_UNIT_CHARS // 2  # a sentence longer than a unit is cut into half-overlapping slices
_DECIMALS = 6


@dataclass(frozen=True)
class EvidenceUnit:
    """A span of one chunk's text (a sentence or a window of sentences) and its alignment with the claim."""

    chunk: EvidenceChunk
    char_start: int  # offsets into chunk.text
    char_end: int
    sentences: int
    alignment: float

    @property
    def text(self) -> str:
        return self.chunk.text[self.char_start : self.char_end]


@dataclass(frozen=True)
class ClaimContent:
    """What alignment counts in a claim: its content stems and its numbers."""

    stems: frozenset[str]
    numbers: frozenset[float]

    @property
    def size(self) -> int:
        return len(self.stems) + len(self.numbers)


def claim_content(text: str) -> ClaimContent:
    stems = content_stems(readable_text(text))
    numbers = frozenset(quantity.value for quantity in extract_quantities(text))
    return ClaimContent(stems, numbers)


def select_units(claim: ClaimContent, chunk: EvidenceChunk, limit: int = MAX_UNITS_PER_CHUNK) -> list[EvidenceUnit]:
    """The chunk's best-aligned units, best first (at most `limit`, overlapping units allowed). A chunk that shares
    nothing with the claim still yields its first unit with alignment 0, so every chunk is judged, never skipped."""
    return [
        EvidenceUnit(chunk, start, end, sentences, alignment)
        for alignment, sentences, start, end in _best_spans(claim, chunk.text, limit)
    ]


def aligned_texts(claim_text: str, text: str, limit: int = MAX_UNITS_PER_CHUNK) -> list[str]:
    """The texts of the units of `text` that the verifier's NLI reads for the claim (select_units), best first."""
    return [text[start:end] for _, _, start, end in _best_spans(claim_content(claim_text), text, limit)]


# Prepositions that count as claim content for alignment but say nothing a statement could lack on its own: "A complete
# graph has an edge between every pair of vertices" against "Vertices in a graph do not always have edges between
# them. If we add all possible edges, then the resulting graph is called complete. That is, a graph is complete if
# every pair of vertices is connected by an edge." takes only its "between" from the first statement.
_PLACE_WORDS = frozenset(stem_words(("between", "among", "amongst", "within", "across", "along", "toward", "via")))


def states_apart(claim: ClaimContent, text: str, start: int, end: int) -> bool:
    """Whether the unit text[start:end] holds the claim's content only across statements: the window's sentences fall
    into runs that go on from the sentence before (text/continuation.py statements), and no run holds all the
    claim's stems and numbers that the window holds. What such a window says together, none of its statements says."""
    slices = _slices(text)
    positions = [index for index, span in enumerate(slices.spans) if start <= span[0] and span[1] <= end]
    hits = _hits(claim, slices)
    held: list[set[object]] = []
    for run in statements(text, tuple(slices.spans[index] for index in positions)):
        shared: set[object] = set()
        for offset in run:
            stems, numbers = hits.get(positions[offset], (set(), set()))
            shared |= (stems - _PLACE_WORDS) | numbers
        held.append(shared)
    together = set().union(*held)
    return len(held) > 1 and not any(shared == together for shared in held)


def _best_spans(claim: ClaimContent, text: str, limit: int) -> list[tuple[float, int, int, int]]:
    """(alignment, sentences counted, start, end) of select_units' units of `text`."""
    slices = _slices(text)
    spans = slices.spans
    if not spans:
        return []
    hits = _hits(claim, slices)
    # A window shares the union of its sentences' shares; one that shares nothing is never chosen over one that does.
    scored: list[tuple[float, int, int, int, int]] = []  # (-alignment, sentences, start, end, first sentence)
    for first in range(len(spans)):
        shared_stems: set[str] = set()
        shared_numbers: set[float] = set()
        for last in range(first, min(first + MAX_WINDOW_SENTENCES, len(spans))):
            start, end = spans[first][0], spans[last][1]
            if last > first and end - start > MAX_UNIT_CHARS:
                break
            if last in hits:
                shared_stems |= hits[last][0]
                shared_numbers |= hits[last][1]
            shared = len(shared_stems) + len(shared_numbers)
            if shared:
                scored.append((-round(shared / claim.size, _DECIMALS), last - first + 1, start, end, first))
    if not scored:  # nothing shared: the first sentence, with alignment 0
        return [(0.0, 1, spans[0][0], spans[0][1])]
    scored.sort()
    best = scored[:limit]
    if best[0][1] > 1 and _LIST_ITEM.search(text, best[0][2], best[0][3]):  # a window of list items is best
        sentence = next((row for row in scored if row[1] == 1), None)
        if sentence is not None and -sentence[0] >= SENTENCE_BESIDE_WINDOW and sentence not in best:
            best.append(sentence)
    return [
        (-negative, _counted(text, start, end, sentences), start, end) for negative, sentences, start, end, _ in best
    ]


def _counted(text: str, start: int, end: int, sentences: int) -> int:
    """A unit's sentences, each table row one: a table of SkiplistSSet, Treap and BinaryHeap bounds reads as one
    sentence but states a bound a row, and, like a window, may lend a cue but never contradict on its own
    (verdicts/aggregator.py may_refute). (List items are sentences of their own already: _slices.)"""
    rows = sum(1 for line in text[start:end].splitlines() if line.count("|") >= 2)
    return max(sentences, rows)


def _hits(claim: ClaimContent, slices: _Slices) -> dict[int, tuple[set[str], set[float]]]:
    """Per sentence (slice) that shares something with the claim: the stems and numbers it shares."""
    hits: dict[int, tuple[set[str], set[float]]] = {}
    for stem in claim.stems:
        for position in slices.stems.get(stem, ()):
            hits.setdefault(position, (set(), set()))[0].add(stem)
    for number in claim.numbers:
        for position in slices.numbers.get(number, ()):
            hits.setdefault(position, (set(), set()))[1].add(number)
    return hits


class _Slices(NamedTuple):
    """A text's sentences, a sentence longer than a unit cut into half-overlapping slices, and which of them hold each
    content stem (as a reader sees it: `mergeSort` is "merge sort", `$n\\log n$` is "n log n", as in readable_text)
    and each number (as written)."""

    spans: tuple[tuple[int, int], ...]
    stems: Mapping[str, tuple[int, ...]]
    numbers: Mapping[float, tuple[int, ...]]


@text_memo(maxsize=16_384)  # a passage is retrieved for many claims: its sentences are read once
def _slices(text: str) -> _Slices:
    spans: list[tuple[int, int]] = []
    # Each list item is a sentence of its own ("You work 5 days a week.\n- The maximum number of hours you can work
    # in a single day is 12."): a unit is one item, or a window of items that, like any window, never refutes alone.
    for start, end in sentence_spans(text, SentenceBoundary.ITEMS):
        while end - start > MAX_UNIT_CHARS:
            spans.append((start, start + MAX_UNIT_CHARS))
            start += _SLICE_STEP
        spans.append((start, end))
    stems: dict[str, list[int]] = {}
    numbers: dict[float, list[int]] = {}
    for position, (start, end) in enumerate(spans):
        piece = text[start:end]
        for stem in content_stems(readable_text(piece)):
            stems.setdefault(stem, []).append(position)
        if is_question(piece):  # a question's numbers are no values of the text's (text/sentences.py)
            continue
        for number in sentence_numbers(piece):
            numbers.setdefault(number, []).append(position)
    return _Slices(
        tuple(spans),
        MappingProxyType({stem: tuple(found) for stem, found in stems.items()}),
        MappingProxyType({number: tuple(found) for number, found in numbers.items()}),
    )
