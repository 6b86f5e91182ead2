"""Text → sentences with character spans: every sentence boundary in veriground is found here.

- `iter_sentences`: pysbd over prose blocks, in document order, for claims and critic drafts (and a sentence also
  ends at "!" before a lower-case word, where pysbd runs on: "i have! it is an island"). Each sentence has a text
  span (first to last non-space character) and a region that runs to the next sentence, so a citation right after a
  sentence's final period falls in that sentence's region.
- `sentence_spans` / `split_sentences`: a light regular-expression splitter (no parser) where pysbd would cost
  too much or read differently from the records it pins. A sentence ends at . ! or ? and the whitespace after
  it; what may follow is the `SentenceBoundary` option, one reading per set of records that depends on it, so
  changing one reading changes only those records. The prose readings (PROSE, ITEMS) also end a sentence where
  scraped text lost the space after it ("term.The Bank"), and not after an abbreviation a number or name follows
  ("Jan. 18", "Dr. Smith"). PROSE (the default): evidence sentences, units, windows,
  cues and extractive answers; CAPITALISED and ANY_SPACE: the NLI training mix.
- `sentence_cut_offsets`: where ingest may cut a long passage (the PASSAGE reading); it pins passage ids.
- `question_spans` / `is_question`: the sentences of a text that ask rather than state (PROSE reading).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from itertools import chain
from typing import TYPE_CHECKING

from veriground.text.memo import text_memo

if TYPE_CHECKING:
    import pysbd

# pysbd's rules look far behind a candidate boundary, so its time grows faster than linearly with the
# text it is given (5,000 sentences in one call: ~30 s); long blocks go in overlapping windows.
WINDOW_CHARS = 3000
# A window with no sentence boundary grows (one long sentence) up to this many characters; a run longer than
# that is cut at a safe boundary (_SAFE_CUTS) and each part segmented on its own, so pysbd never sees more
# than MAX_PYSBD_CHARS at once and the cost per character stays bounded (" and ".join(["x is y"] * 5000):
# 55 KB in one call took > 10 s).
MAX_PYSBD_CHARS = 2 * WINDOW_CHARS
# Where to cut a run with no sentence boundary, best first: after a semicolon, after a comma, before a
# coordinating conjunction, at any space. Only the window's second half is searched, so parts stay long.
_SAFE_CUTS = (
    re.compile(r";\s+"),
    re.compile(r",\s+"),
    re.compile(r"\s+(?=(?:and|or|but)\b)", re.IGNORECASE),
    re.compile(r"\s+"),
)
_WORD_CHAR = re.compile(r"\w")


class SentenceBoundary(StrEnum):
    """What the regular-expression splitter takes for the end of a sentence: . ! or ? then whitespace, and
    then (the lookahead) the start of a next sentence."""

    PROSE = "prose"  # an upper-case, Greek or digit character, a quote or a bracket; or a blank line
    # PROSE, and a new line that starts a list item ("- ", "* ", "• ", "1. "), whatever ends the line before it: the
    # items of "- Average speed is a scalar quantity ...\n- Velocity is a vector quantity ..." one by one. Only the
    # search for a near copy with a swapped word reads it (text/substitution.py): as evidence units, lists read whole
    # measured better (held-out SummEdits 0.607 vs 0.590, WiCE 0.611 vs 0.592).
    ITEMS = "items"
    PASSAGE = "passage"  # after the mark or a closing quote or bracket: an upper-case letter, digit, $, \\ or bracket
    CAPITALISED = "capitalised"  # an upper-case Latin letter
    ANY_SPACE = "any-space"  # anything: every . ! or ? followed by whitespace


# Scraped text often loses the space between two sentences ("... over the medium term.The Bank of Japan said ..."):
# read as one sentence, a claim that copies the second is scored against both, and on SummEdits' news the model called
# such exact copies Contradictory. The prose readings also end a sentence there: after a mark that follows two
# lower-case letters, a digit or % (and maybe a closing quote), before a capitalised word that ends at a space, comma
# or 's ("Japan's"). Abbreviations ("U.S.Army", "Ph.D"), decimals and code ("Math.Sqrt(x)", "java.util.ArrayList")
# do not match.
_GLUED = r"(?:(?<=[a-z]{2}[.!?])|(?<=[0-9%][.])|(?<=[a-z]{2}[.!?][\"\u201d]))(?=[A-Z][a-z]+(?:'s)?[\s,])"
# The whitespace between two sentences; the mark stays with the sentence before it, so "3.0" and "e.g. the"
# stay inside one sentence in every reading but ANY_SPACE.
_BOUNDARIES: dict[SentenceBoundary, re.Pattern[str]] = {
    SentenceBoundary.PROSE: re.compile(r"(?<=[.!?])\s+(?=[\"'(\[A-Z0-9Α-Ωα-ω])|\n\s*\n"),
    SentenceBoundary.ITEMS: re.compile(
        r"(?<=[.!?])\s+(?=[\"'(\[A-Z0-9Α-Ωα-ω])|\n\s*\n|[ \t]*\n[ \t]*(?=(?:[-*•]|\d{1,2}[.)])[ \t])"
    ),
    SentenceBoundary.PASSAGE: re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"')\]]))\s+(?=[A-Z0-9$\\(\[])"),
    SentenceBoundary.CAPITALISED: re.compile(r"(?<=[.!?])\s+(?=[A-Z])"),
    SentenceBoundary.ANY_SPACE: re.compile(r"(?<=[.!?])\s+"),
}


def split_sentences(text: str, boundary: SentenceBoundary = SentenceBoundary.PROSE) -> list[str]:
    """Non-empty sentences in order (a light splitter, not a parser)."""
    return [text[start:end] for start, end in sentence_spans(text, boundary)]


def sentence_spans(text: str, boundary: SentenceBoundary = SentenceBoundary.PROSE) -> list[tuple[int, int]]:
    """(start, end) of each non-empty sentence, stripped of surrounding whitespace."""
    return list(_spans_of(text, boundary))


# A question mark, then only closing quotes or brackets: "Could a tree with 7 vertices have only 5 edges?"
_QUESTION_END = re.compile(r"\?[\"'\u201d\u2019)\]]*$")


def is_question(sentence: str) -> bool:
    """Whether the sentence asks rather than states (it ends with a question mark)."""
    return _QUESTION_END.search(sentence.rstrip()) is not None


# A query typed without its question mark still opens as a question does: "who sponsored the phoenix open".
_ASKING_OPENING = re.compile(
    r"\s*(?:who|whom|whose|what|when|where|which|why|how|is|are|was|were|do|does|did|can|could|will|would|should|"
    r"has|have|had)\b",
    re.IGNORECASE,
)


def asks(query: str) -> bool:
    """Whether a query a text answers is a question: it ends with a question mark or opens as a question does. A
    remark a reply follows ("yeah i know and yet we are glued to the tv for hours") asks nothing: the reply's "yes."
    answers no question, and its short sentences are no answers to read in its context."""
    return is_question(query) or _ASKING_OPENING.match(query) is not None


@text_memo(maxsize=16_384)  # every claim reads the same passages
def question_spans(text: str) -> tuple[tuple[int, int], ...]:
    """(start, end) of each sentence of `text` that asks: its numbers and words are no statement of the text's. A
    textbook asks "Is there a tree with exactly 7 vertices and 7 edges?" before proving that there is none."""
    return tuple(span for span in _spans_of(text, SentenceBoundary.PROSE) if is_question(text[span[0] : span[1]]))


def inside(spans: tuple[tuple[int, int], ...], offset: int) -> bool:
    """Whether `offset` falls inside one of `spans`."""
    return any(start <= offset < end for start, end in spans)


def sentence_cut_offsets(text: str) -> list[int]:
    """Offsets where a sentence starts after a sentence end (the PASSAGE reading): where a long passage may be
    cut. A regular expression, not pysbd: on the OpenStax physics folder pysbd over each cut window added ~1 s to
    an ingest of 1.5 CPU-seconds and moved 21 of its 34 cut points, so passage ids would change."""
    return [boundary.end() for boundary in _BOUNDARIES[SentenceBoundary.PASSAGE].finditer(text)]


# The prose readings do not end a sentence after an abbreviation that a number or a name follows: "the highest level
# since Jan. 18." is one sentence (split there, a claim copying it read as pieced together from two), and so are
# "Fig. 3 shows", "Dr. Smith said" and "Smith et al. (2019) found".
_ABBREVIATION_BEFORE_NUMBER = re.compile(
    r"\b(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|No|Nos|Fig|Figs|Eq|Eqs|Sec|Ch|Vol|pp?|Ref|approx)\.$"
)
_ABBREVIATION_BEFORE_ANY = re.compile(r"\b(?:Mr|Mrs|Ms|Dr|Prof|St|vs|cf|al)\.$")
_ABBREVIATION_LOOKBACK = 8
_PROSE_READINGS = (SentenceBoundary.PROSE, SentenceBoundary.ITEMS)
# The prose readings with the glued boundary too, for the few texts that hold one (found by _GLUE_HINT): its
# look-behinds at every position made splitting every text ~6 % slower.
_GLUED_BOUNDARIES = {reading: re.compile(_BOUNDARIES[reading].pattern + "|" + _GLUED) for reading in _PROSE_READINGS}
_GLUE_HINT = re.compile(r"[a-z0-9%][.!?][\"\u201d]?[A-Z][a-z]")


def _after_abbreviation(text: str, found: re.Match[str]) -> bool:
    """Whether this boundary follows an abbreviation that does not end a sentence there (see above); a line break
    always ends one."""
    if "\n" in found.group():
        return False
    before = text[max(0, found.start() - _ABBREVIATION_LOOKBACK) : found.start()]
    if _ABBREVIATION_BEFORE_ANY.search(before):
        return True
    return found.end() < len(text) and text[found.end()].isdigit() and bool(_ABBREVIATION_BEFORE_NUMBER.search(before))


@text_memo(maxsize=16_384)  # every claim reads the same passages' sentences
def _spans_of(text: str, boundary: SentenceBoundary) -> tuple[tuple[int, int], ...]:
    spans, start = [], 0
    glued = boundary in _PROSE_READINGS and _GLUE_HINT.search(text) is not None
    found_all = (_GLUED_BOUNDARIES if glued else _BOUNDARIES)[boundary].finditer(text)
    if boundary in _PROSE_READINGS:
        found_all = (found for found in found_all if not _after_abbreviation(text, found))
    for found in [*found_all, None]:
        end = len(text) if found is None else found.start()
        piece = text[start:end]
        if piece.strip():
            lead = len(piece) - len(piece.lstrip())
            spans.append((start + lead, start + len(piece.rstrip())))
        if found is not None:
            start = found.end()
    return tuple(spans)


@dataclass(frozen=True)
class Sentence:
    """`start..end` is the sentence text; `region_start..region_end` also holds the spaces around it."""

    start: int
    end: int
    region_start: int
    region_end: int


@cache
def _segmenter() -> pysbd.Segmenter:
    import pysbd  # ~60 ms to import: only claims and critic drafts need it, not ingest or evidence

    return pysbd.Segmenter(language="en", clean=False, char_span=False)


def iter_sentences(segment_text: str, blocks: tuple[tuple[int, int], ...]) -> Iterator[Sentence]:
    """Sentences of each block of `segment_text`, lazily; a piece with no letter or digit joins the one
    before (or, first in its block, is dropped)."""
    for block_start, block_end in blocks:
        region_start: int | None = None
        for next_start in chain(_sentence_starts(segment_text, block_start, block_end), [block_end]):
            if region_start is not None and next_start > region_start:
                start, end = _strip(segment_text, region_start, next_start)
                if _WORD_CHAR.search(segment_text, start, end):
                    yield Sentence(start, end, region_start, next_start)
            region_start = next_start


def _sentence_starts(text: str, block_start: int, block_end: int) -> Iterator[int]:
    """Offsets where pysbd starts a sentence inside the block, from `block_start` on."""
    window_start = block_start
    while window_start < block_end:
        window_end = min(block_end, window_start + WINDOW_CHARS)
        found = _locate(text, window_start, window_end)
        if window_end < block_end and len(found) < 2:  # one sentence longer than the window
            window_end = min(block_end, window_start + MAX_PYSBD_CHARS)
            found = _locate(text, window_start, window_end)
        if window_end == block_end:
            yield from found
            return
        if len(found) < 2:
            # No boundary in MAX_PYSBD_CHARS: not a sentence a reader could check; cut it where it is safe.
            yield window_start
            window_start = _safe_cut(text, window_start, window_end)
            continue
        # The window's last sentence may be cut by the window edge: segment it again in the next window.
        yield from found[:-1]
        window_start = found[-1]


def _safe_cut(text: str, window_start: int, window_end: int) -> int:
    """Where the next part of an over-long run starts: after the last safe boundary in the window's second
    half (window_end when there is none)."""
    middle = window_start + (window_end - window_start) // 2
    for pattern in _SAFE_CUTS:
        cuts = [match.end() for match in pattern.finditer(text, middle, window_end) if match.end() < window_end]
        if cuts:
            return cuts[-1]
    return window_end


def _locate(text: str, window_start: int, window_end: int) -> list[int]:
    """Start offsets of pysbd's sentences in text[window_start:window_end], the first at `window_start`;
    a piece pysbd changed (so it cannot be found) stays inside the sentence before it."""
    window = text[window_start:window_end]
    if one_sentence(window):  # pysbd costs ~1 ms a call; it would find no boundary here
        lead = len(window) - len(window.lstrip())
        return [window_start] + ([window_start + lead] if lead and _WORD_CHAR.search(window) else [])
    starts = [window_start]
    cursor = 0
    # pysbd reads a one-letter unit after a number as a name's initial ("a kinetic energy of 9 J. A 2 kg ball", as in
    # "J. Smith") and runs the sentences together; a full stop there ends the sentence, so pysbd is shown a "!"
    # (the same length: offsets hold).
    window = _UNIT_FULL_STOP.sub("!", window)
    for sentence in _segmenter().segment(window):
        piece = sentence.strip()
        found = window.find(piece, cursor) if piece else -1
        if found < 0:
            continue
        if found > 0 and _WORD_CHAR.search(piece) and not _TOKENISED_INITIALS.search(window, max(0, found - 40), found):
            starts.append(window_start + found)
        cursor = found + len(piece)
    exclaimed = [window_start + match.end() for match in _EXCLAMATION_END.finditer(window)]
    return sorted({*starts, *exclaimed}) if exclaimed else starts


def one_sentence(window: str) -> bool:
    """Whether pysbd can find no sentence boundary inside `window`: no sentence mark before its end (a decimal point,
    "i.e.," / "e.g.," and a colon or semicolon before a space are none: pysbd ends sentences only at . ! ?), nothing
    pysbd's list-item rules read as an enumeration marker ("(c) give … and (d) calculate …", "a) … b) …", and also
    "f(x) and g(y)": any lower-case word in parentheses), no closing parenthesis before a capital and no list marker
    at its start. Checked against pysbd's own reading on the sentences of the domain corpora and the JSONL and
    SummEdits sets that take this path (parentheses, decimals, colons and "i.e.," among them): it split none."""
    body = _NOT_A_SENTENCE_MARK.sub("", window.rstrip().rstrip(_CLOSERS).rstrip(".!?…"))
    return _SPLITTABLE.search(body) is None and _ENUMERATION.search(window) is None and not _LIST_START.match(window)


# Initials whose last full stop a tokeniser split off ("A.J . Styles", "West Ham United F.C . has"), as FEVER and other
# Penn-Treebank-tokenised sets write them: pysbd ends a sentence there, so a claim would be "A.J ." alone.
# pysbd ends no sentence at "!" before a lower-case letter, as it does at "." and "?": "i have! it is an island in the
# north atlantic." was one claim, which the shipped model read as contradicted by "ireland is an island in the north
# atlantic". After a word of two letters or more ("n! subsets" is a factorial).
_EXCLAMATION_END = re.compile(r"(?<=[A-Za-z]{2}!)\s+(?=[a-z])")
_UNIT_FULL_STOP = re.compile(r"(?<=\d [JNWVKΩ])\.(?=\s+[A-Z])")
_TOKENISED_INITIALS = re.compile(r"(?:^|\s)(?:[A-Za-z]\.)+[A-Za-z]{1,2} \.\s*$")
_SPLITTABLE = re.compile(r"[.!?…\n\r;:]")
_NOT_A_SENTENCE_MARK = re.compile(r"(?<=\d)\.(?=\d)|\b(?:i\.e|e\.g)\.(?=,)|[;:](?=\s)")
_LIST_START = re.compile(r"\s*(?:[-*+•]|\d+[.)]|[A-Za-z][.)])\s")
_ENUMERATION = re.compile(
    r"\((?:[a-z]+|[A-Z]|\d{1,2}|[IVX]{1,4})\)"  # "(c)", "(iv)", "(x)" of f(x) and g(y): pysbd's list items
    r"|(?:^|\s)(?:[A-Za-z]|\d{1,2}|[ivxIVX]{1,4})\)"  # "a) … b)"
    r"|\)\s+[A-Z]"  # a parenthesis closing before a capital
)
_CLOSERS = "\"'”’)]»"


def _strip(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
