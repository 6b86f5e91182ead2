"""Citation markers in answer text -> (cited id, start, end) triples, and the text with markers masked.

Three forms, each a whole bracket: numeric `[1]`, `[1, 3]`, `[2-4]` (ids "1", "3", "2", "3", "4"),
`[CITATION: <id>]` and passage ids `[<doc_id>#<hash>]`. A bracket followed by `(` is a Markdown link,
not a citation; a bracket glued to a word (`A[1]`) is an index, not a citation.

A numeric bracket is a list of numbers, not citations, when
- it names one number twice (`[1, 1, 2]`): a citation list never repeats a source;
- it holds a 0 (`[0, 1]`): citation numbers count passages from 1;
- it sits inside another bracket (`[[1, 2], [3, 4]]`); inside parentheses it may cite ("(see [1])");
- it follows `=`, `≈`, `≠`, `≤`, `≥` or `∈` (`x = [1, 2]`): it is a value;
- it holds two or more numbers, follows a word naming a mathematical object (vector, matrix, set, list, array,
  tuple, sequence, point, coordinates, components, entries, elements, values, interval) and the sentence goes on
  after it: "the vector [1, 2] has norm ..." is a value, "... is a vector [1, 2]." cites two passages.
"""

from __future__ import annotations

import re

MAX_RANGE_IDS = 20  # "[1-20]" expands; a wider range is more likely a typo than twenty sources
_NUMBER_ITEM = r"\d{1,4}(?:\s*[-\u2013]\s*\d{1,4})?"
_PASSAGE_ID = r"[a-z0-9._/-]+#[A-Za-z0-9_-]+"
_CITATION = re.compile(
    r"(?<!\w)\["
    r"(?:\s*(?P<numbers>" + _NUMBER_ITEM + r"(?:\s*,\s*" + _NUMBER_ITEM + r")*)"
    r"|(?i:CITATION):\s*(?P<explicit>[\w/#.-]+(?:\s*[,;]\s*[\w/#.-]+)*)"
    r"|(?P<passages>" + _PASSAGE_ID + r"(?:\s*[,;]\s*" + _PASSAGE_ID + r")*)"
    r")\s*\](?!\()"
)
_ID_SEPARATOR = re.compile(r"\s*[,;]\s*")
_MATH_OBJECT_BEFORE = re.compile(
    r"\b(?:vectors?|matri(?:x|ces)|sets?|lists?|arrays?|tuples?|sequences?|points?|coordinates|components|"
    r"entries|elements|values|intervals?)\s*$",
    re.IGNORECASE,
)
_OPERATOR_BEFORE = re.compile(r"[=≈≠≤≥∈]\s*$")  # not * - < >: emphasis, dashes and HTML tags end words
_LOOK_BEHIND_CHARS = 24  # enough for the longest math-object word and the spaces before the bracket
_PROSE_AFTER = re.compile(r"\s*[\w(]")
_CLOSER_AFTER = re.compile(r"\s*\]")
_RANGE = re.compile(r"(\d+)\s*[-\u2013]\s*(\d+)")


def parse_citations(text: str) -> list[tuple[str, int, int]]:
    """Every cited id with the span of the bracket that holds it, in text order."""
    found: list[tuple[str, int, int]] = []
    for match in _CITATION.finditer(text):
        if match.group("numbers") is not None and _is_number_list(text, match):
            continue
        found.extend((cited_id, match.start(), match.end()) for cited_id in _split_ids(match))
    return found


def mask_citations(text: str, citations: list[tuple[str, int, int]]) -> str:
    """`text` with each citation bracket replaced by spaces of the same length."""
    pieces: list[str] = []
    cursor = 0
    for _, start, end in citations:
        if start < cursor:
            continue  # the second id of a bracket already masked
        pieces.append(text[cursor:start])
        pieces.append(" " * (end - start))
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)


def _is_number_list(text: str, match: re.Match[str]) -> bool:
    """True when a numeric bracket is a list of numbers rather than citations (rules in the module docstring)."""
    numbers = [int(number) for number in re.findall(r"\d+", match.group("numbers"))]
    if len(set(numbers)) < len(numbers) or 0 in numbers:
        return True
    before = text[max(0, match.start() - _LOOK_BEHIND_CHARS) : match.start()]
    if before.rstrip().endswith("[") or _CLOSER_AFTER.match(text, match.end()):
        return True
    if _OPERATOR_BEFORE.search(before):
        return True
    listed = len(_ID_SEPARATOR.split(match.group("numbers"))) >= 2
    math_word = _MATH_OBJECT_BEFORE.search(before) is not None
    return listed and math_word and _PROSE_AFTER.match(text, match.end()) is not None


def _split_ids(match: re.Match[str]) -> list[str]:
    if match.group("numbers") is not None:
        ids: list[str] = []
        for item in _ID_SEPARATOR.split(match.group("numbers")):
            ids.extend(_expand_range(item))
        return ids
    listed = match.group("explicit") if match.group("explicit") is not None else match.group("passages")
    return [cited_id for cited_id in _ID_SEPARATOR.split(listed) if cited_id]


def _expand_range(item: str) -> list[str]:
    bounds = _RANGE.fullmatch(item)
    if bounds is None:
        return [str(int(item))]
    low, high = int(bounds.group(1)), int(bounds.group(2))
    if low < high and high - low < MAX_RANGE_IDS:
        return [str(number) for number in range(low, high + 1)]
    return [str(low), str(high)]
