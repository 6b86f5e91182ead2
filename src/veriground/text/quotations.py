"""Quotations: the words a text puts in quotation marks, and where a source holds them word for word or nearly.

A quotation says more than its words' meaning: that the source used those words. So it is checked as words, not read
by a model. The NLI models read "a specific battery issue that could result in a loss of propulsion" as a restatement
of the recall notice's "specific electrical connection issue that could result in a loss of propulsion", one word in
nine being different. On the held-out rows of SummEdits, WiCE, AttributionBench and BEGIN (evaluation/heldout.py), a
quotation of four words or more that its evidence does not hold word for word stood in an unsupported text 77 times in
81; one it does hold, in a supported text 56 times in 92 (FEVER's claims quote nothing).

- `quotations`: the text's quotations of QUOTATION_MIN_WORDS words or more, in straight or curly double quotes or
  curly single ones. A quotation mark opens after a space, a bracket or a dash and is followed by a letter or digit,
  and closes before a space, punctuation or the end: a tokenised text's `" sweet child of mine "`, an apostrophe and
  the stretch between two quotations are no quotation. An ellipsis or a bracketed insertion splits one into pieces.
- `find_quotation`: the span of a text that holds a quotation's pieces word for word and in order (case, punctuation,
  spacing and contractions aside: "they're" is "they are"), or failing that the span whose words are closest to the
  quotation's (difflib's ratio), with how close, and whether the two differ only in filler words (articles, "as",
  "that", forms of "be"...): "they are considered as exceptional fighters" quotes "they're considered exceptional
  fighters" well enough, while "specific battery issue" misquotes "specific electrical connection issue".
- `holds_quotation`: whether a text holds a quotation word for word, or but for filler words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

QUOTATION_MIN_WORDS = 4  # fewer words in quotes are a name or a term more often than a quotation
# A source's words this close to a quotation it does not hold are what was misquoted (difflib ratio; the dev rows'
# misquotations of this closeness were all an edit of one to three words of the source's, 27 of 28 in unsupported texts)
MISQUOTED_SIMILARITY = 0.8
_QUOTATION = re.compile(
    r"(?:(?<=^)|(?<=[\s(\[{—–-]))"  # opens at the start, or after a space, a bracket or a dash
    r"(?P<open>[\"“‘])(?P<body>\w(?:[^\"“”‘’\n]|(?<=\w)’(?=\w)){0,598}?[\w.,!?)%])"  # ’ inside a word: "it’s"
    r"(?P<close>[\"”’])(?=$|[\s.,;:!?)\]}—–-])"  # closes before a space, punctuation or the end
)
_CLOSES = {'"': '"', "“": "”", "‘": "’"}
_PIECE_BREAK = re.compile(r"\.\s*\.\s*\.|…|\[[^\]]*\]")  # an ellipsis or a bracketed insertion
_WORD = re.compile(r"\w+")
_SPELT_OUT = {"re": "are", "ve": "have", "ll": "will", "m": "am"}  # the word after an apostrophe
_STEMS_BEFORE_NOT = {"can": "can", "won": "will"}  # "can't" -> "can not", "won't" -> "will not", "isn't" -> "is not"
# Words whose change leaves what a quotation says as it was, so a quotation that differs from its source only in them
# is no misquotation: articles, "as", relative "that"/"which"/"who", "of", "to", "and" and forms of "be".
_FILLER = frozenset(
    {"a", "an", "the", "as", "that", "which", "who", "of", "to", "and", "is", "are", "was", "were", "be", "been"}
    | {"being"}
)
_LENGTH_SLACK = 2  # a near match may have this many words more or fewer than the quotation


@dataclass(frozen=True)
class Quotation:
    text: str  # the quoted words, without the quotation marks
    start: int  # offsets of `text` in the text it was found in
    end: int
    pieces: tuple[tuple[str, ...], ...]  # lower-cased words of each piece (split at an ellipsis or a [...] insertion)

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(word for piece in self.pieces for word in piece)


@dataclass(frozen=True)
class QuotationMatch:
    start: int  # offsets, in the searched text, from the first to the last matching word
    end: int
    similarity: float  # 1.0 when the text holds the quotation word for word, else difflib's ratio of the words
    filler_only: bool  # the two differ only in _FILLER words (true when word for word)


def quotations(text: str) -> tuple[Quotation, ...]:
    """The quotations of QUOTATION_MIN_WORDS words or more in `text`, in order."""
    found = []
    for match in _QUOTATION.finditer(text):
        if _CLOSES[match["open"]] != match["close"] and match["open"] != "“":
            continue  # a straight quote closed by a curly one, or ‘...”: not one quotation
        body = match["body"]
        pieces = tuple(piece for piece in (_words(part) for part in _PIECE_BREAK.split(body)) if piece)
        if sum(len(piece) for piece in pieces) >= QUOTATION_MIN_WORDS:
            found.append(Quotation(body, match.start("body"), match.end("body"), pieces))
    return tuple(found)


def find_quotation(quotation: Quotation, text: str) -> QuotationMatch | None:
    """Where `text` holds the quotation word for word (similarity 1.0), else the stretch of words closest to it;
    None when the text shares no word with it."""
    spans, words = _word_spans(text)
    exact = _verbatim(quotation.pieces, words)
    if exact is not None:
        return QuotationMatch(spans[exact[0]][0], spans[exact[1] - 1][1], 1.0, True)
    near = _closest(quotation.words, words)
    if near is None:
        return None
    (first, last), similarity = near
    filler_only = _content(words[first:last]) == _content(quotation.words)
    return QuotationMatch(spans[first][0], spans[last - 1][1], similarity, filler_only)


def holds_quotation(quotation: Quotation, text: str) -> bool:
    """Whether `text` holds the quotation word for word, or but for filler words (find_quotation)."""
    if not set(_content(quotation.words)) <= set(_words(text)):
        return False  # most passages lack a word of it: no need to look for where
    match = find_quotation(quotation, text)
    return match is not None and match.filler_only


def _content(words: Sequence[str]) -> list[str]:
    return [word for word in words if word not in _FILLER]


def _words(text: str) -> tuple[str, ...]:
    return tuple(_word_spans(text)[1])


def _word_spans(text: str) -> tuple[list[tuple[int, int]], list[str]]:
    """The words of `text`, lower-cased, with a contraction spelt out ("they're" -> "they", "are"), and each one's
    offsets in `text` (a spelt-out word has its contraction's)."""
    spans, words = [], []
    for match in _WORD.finditer(text):
        spans.append((match.start(), match.end()))
        words.append(match[0].lower())
    for index in range(len(words) - 1):
        start, end = spans[index][1], spans[index + 1][0]
        if text[start:end] in ("'", "’") and words[index + 1] in _SPELT_OUT:
            words[index + 1] = _SPELT_OUT[words[index + 1]]
    for index, word in enumerate(words):
        if word.endswith("n") and index + 1 < len(words) and words[index + 1] == "t":
            gap = text[spans[index][1] : spans[index + 1][0]]
            if gap in ("'", "’"):
                words[index] = _STEMS_BEFORE_NOT.get(word, word[:-1])
                words[index + 1] = "not"
    return spans, words


def _verbatim(pieces: tuple[tuple[str, ...], ...], words: list[str]) -> tuple[int, int] | None:
    """The word range [first, last) holding each piece unbroken, in order; None when the pieces are not there."""
    position, first = 0, None
    for piece in pieces:
        at = _find_run(piece, words, position)
        if at is None:
            return None
        first = at if first is None else first
        position = at + len(piece)
    return None if first is None else (first, position)


def _find_run(run: tuple[str, ...], words: list[str], start: int) -> int | None:
    size = len(run)
    for index in range(start, len(words) - size + 1):
        if words[index] == run[0] and tuple(words[index : index + size]) == run:
            return index
    return None


def _closest(quoted: tuple[str, ...], words: list[str]) -> tuple[tuple[int, int], float] | None:
    """The word range of `words` most like `quoted`, among those of about its length that start with one of its words:
    the one that matches most of its words, then the one with the highest difflib ratio (the closer length); with that
    ratio. None when no word is shared."""
    vocabulary = set(quoted)
    matcher = SequenceMatcher(autojunk=False)
    matcher.set_seq2(list(quoted))
    best: tuple[int, float, tuple[int, int]] | None = None
    size = len(quoted)
    for first, word in enumerate(words):
        if word not in vocabulary:
            continue
        for length in range(max(1, size - _LENGTH_SLACK), size + _LENGTH_SLACK + 1):
            last = min(len(words), first + length)
            matcher.set_seq1(words[first:last])
            total = last - first + size
            if best is not None and round(matcher.quick_ratio() * total / 2) < best[0]:
                continue  # it cannot match as many words
            matched = sum(block.size for block in matcher.get_matching_blocks())
            key = (matched, 2 * matched / total, (first, last))
            if best is None or key[:2] > best[:2]:
                best = key
    return None if best is None else (best[2], best[1])
