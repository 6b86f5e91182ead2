"""Has a claim put another term of the same kind where its source has one: "Friday" for "Thursday", "blue" for
"red", "the fifth" for "the second", "Moscow" for "London"?

"The gunman was killed on Friday." against "Police said the gunman was caught and killed on Thursday." is the edit the
NLI models read worst: the sentence holds nearly all of the claim, and a weekday is one word among many (v3 read such
pairs as weak support, 0.47-0.60, on SummEdits' dev rows). A claim is read as swapping a term when
- a word of one closed kind (a weekday, a month, a colour, an ordinal, a season, a compass point) stands in the
  claim, no evidence passage uses it, and the evidence sentence that holds most of the claim's content words (at least
  MIN_ALIGNED_SHARE of them) uses another word of that kind that the claim does not: the sentence is about what the
  claim is about, and gives it another day, colour or place in a row. Words of one family are not two terms
  ("northern", "north"), nor is an ordinal written in digits ("5th" is "fifth"), nor "second" as a unit of time ("per
  second", "a second", "30 seconds"); "May", "March" and "August" are months only with their capital;
- or a name the claim writes with capitals, which no evidence passage uses, stands where the evidence sentence the
  claim copies nearly word for word (text/substitution.py: at least 70 % of its words, in order) has another name
  written with capitals: "Trump said ..." for "Biden said ...", "Melbourne" for "Sydney". Not a title or first name
  before the same surname ("President Biden" for "Joe Biden"), not an abbreviation of the other name's words, not a
  form of the same word ("Ricans", "Rico"), and not in a claim that capitalises most of its words (a headline).
On held-out rows of five benchmarks (3,158 rows; v3's reading), the closed kinds fired on 18 rows (FEVER-symmetric 13,
SummEdits 3, AttributionBench 2) and the names on 9 (SummEdits 5, FEVER-symmetric 4), every one labelled unsupported
or contradicted; on SummEdits' dev rows, 28 more, all unsupported. Family roles and units of time are not kinds here:
"John is the son of Mary" restates "Mary is the mother of John" (and "boyfriend" against "girlfriend" fired on a
supported FEVER-symmetric row about another couple), and "12 months" restates "a year".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from veriground.text.memo import text_memo
from veriground.text.sentences import SentenceBoundary, sentence_spans
from veriground.text.substitution import closest_swaps
from veriground.text.terms import STOPWORDS, stem_words, tokenize_words

KINDS: dict[str, tuple[str, ...]] = {
    "weekday": ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
    "month": (
        "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
        "november", "december",
    ),
    "colour": (
        "red", "orange", "yellow", "green", "blue", "purple", "violet", "pink", "brown", "black", "white", "gray",
        "grey", "silver", "gold",
    ),
    "ordinal": ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"),
    "season": ("spring", "summer", "autumn", "winter"),
    "compass point": ("north", "south", "east", "west", "northern", "southern", "eastern", "western"),
}  # fmt: skip
_KIND_OF = {word: kind for kind, words in KINDS.items() for word in words}
_CAPITAL_ONLY = frozenset({"may", "march", "august"})  # also a verb or an adjective in lower case
_DIGIT_ORDINALS = dict(
    zip(("1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th", "9th", "10th"), KINDS["ordinal"], strict=True)
)
# "second" of time: "per second", "one second", "30 second", "a second." ("a second term" is an ordinal)
_SECOND_OF_TIME = re.compile(r"\b(?:(?:per|one|each|every|split|\d[\d.,]*)\s+second|a\s+second(?!\s+[a-z]))\b", re.I)
MIN_ALIGNED_SHARE = 0.3  # of the claim's content words that the compared sentence holds
_FAMILY_PREFIX = 4  # "north" / "northern", "gray" / "grey" are not two terms
_HEADLINE_CAPITALS = 0.5  # a claim with more of its words capitalised than this is a headline: names are not told


class TermSwap(NamedTuple):
    """The claim's words, the sentence's words put where they stand, their kind ("weekday", ... or "name"), which
    evidence text holds the sentence and the sentence's offsets in it."""

    claim_words: str
    source_words: str
    kind: str
    evidence_index: int
    span: tuple[int, int]


def swapped_term(claim: str, evidence: Sequence[str]) -> TermSwap | None:
    """The first term the claim swaps for another of the same kind in its evidence (see the module's note), or None."""
    return _swapped_term(claim, tuple(evidence))


@text_memo(maxsize=4096)  # a claim is read against the same passages again in a rerun
def _swapped_term(claim: str, evidence: tuple[str, ...]) -> TermSwap | None:
    used = {word for text in evidence for word in _words_of(text)}
    kind_words = [word for word in _kind_words(claim) if word not in used]
    if kind_words and (found := _kind_swap(claim, kind_words, evidence)) is not None:
        return found
    names = [word for word in _capitalised(claim) if word.lower() not in used]
    return _name_swap(claim, names, evidence) if names else None


@text_memo(maxsize=8192)
def _words_of(text: str) -> frozenset[str]:
    words = frozenset(tokenize_words(text))
    return words | {_DIGIT_ORDINALS[word] for word in words & _DIGIT_ORDINALS.keys()}


def _kind_words(text: str) -> list[str]:
    """The words of a closed kind the text uses as such, lower-cased, in order."""
    found = []
    for match in re.finditer(r"[A-Za-z]+", text):
        word = match.group().lower()
        if word not in _KIND_OF or (word in _CAPITAL_ONLY and not match.group()[0].isupper()):
            continue
        if word == "second" and any(time.end() == match.end() for time in _SECOND_OF_TIME.finditer(text)):
            continue
        found.append(word)
    return found


def _kind_swap(claim: str, kind_words: list[str], evidence: Sequence[str]) -> TermSwap | None:
    content = _content_stems(claim)
    if not content:
        return None
    best: tuple[float, int, int, int] | None = None  # (share, evidence index, start, end): the first best on a tie
    for index, text in enumerate(evidence):
        for start, end in sentence_spans(text, SentenceBoundary.PROSE):
            share = len(content & _content_stems(text[start:end])) / len(content)
            if best is None or share > best[0]:
                best = (share, index, start, end)
    if best is None or best[0] < MIN_ALIGNED_SHARE:
        return None
    _, index, start, end = best
    sentence = evidence[index][start:end]
    claim_words = set(_kind_words(claim))
    for word in kind_words:
        others = [
            other
            for other in _kind_words(sentence)
            if _KIND_OF[other] == _KIND_OF[word]
            and other not in claim_words
            and other[:_FAMILY_PREFIX] != word[:_FAMILY_PREFIX]
        ]
        if others:
            kind = _KIND_OF[word]
            return TermSwap(_as_written(claim, word), _as_written(sentence, others[0]), kind, index, (start, end))
    return None


@text_memo(maxsize=16_384)
def _content_stems(text: str) -> frozenset[str]:
    return frozenset(stem_words([word for word in tokenize_words(text) if word not in STOPWORDS and word.isalpha()]))


def _as_written(text: str, word: str) -> str:
    match = re.search(rf"\b{re.escape(word)}\b", text, re.IGNORECASE)
    return match.group() if match else word


def _capitalised(text: str) -> list[str]:
    """The words the text capitalises past its first word, unless it capitalises most of its words (a headline)."""
    words = list(re.finditer(r"[A-Za-z][\w'-]*", text))
    capitalised = [match.group() for match in words[1:] if match.group()[0].isupper()]
    if len(capitalised) > _HEADLINE_CAPITALS * len(words):
        return []
    return capitalised


def _name_swap(claim: str, names: list[str], evidence: Sequence[str]) -> TermSwap | None:
    unused = {name.lower() for name in names}
    for index, text in enumerate(evidence):
        for start, end in sentence_spans(text, SentenceBoundary.PROSE):
            sentence = text[start:end]
            for ours, theirs in closest_swaps(claim, sentence):
                if _swaps_a_name(ours, theirs, unused, claim, sentence):
                    written = (_as_written(claim, ours), _as_written(sentence, theirs))
                    return TermSwap(*written, "name", index, (start, end))
    return None


def _swaps_a_name(ours: str, theirs: str, unused: set[str], claim: str, sentence: str) -> bool:
    """Both runs name something with capitals (articles aside: "an American"), the claim's names unused by the
    evidence, neither abbreviating or a form of the other, and no shared capitalised word right after them (a first
    name or title before the same surname)."""
    mine, other = _name_words(ours), _name_words(theirs)
    if not mine or not other or not (_capital(claim, mine[0]) and _capital(sentence, other[0])):
        return False
    if not {word for word in mine if _capital(claim, word)} <= unused:
        return False
    if any(a[:5] == b[:5] for a in mine for b in other) or _initials(mine, other) or _initials(other, mine):
        return False
    after = _next_capitalised(claim, ours)
    return after is None or after != _next_capitalised(sentence, theirs)


def _name_words(run: str) -> list[str]:
    return [word for word in run.split() if word not in STOPWORDS]


def _capital(text: str, word: str) -> bool:
    """Whether the text writes the word with a capital (its first use)."""
    match = re.search(rf"\b{re.escape(word)}\b", text, re.IGNORECASE)
    return match is not None and match.group()[0].isupper()


def _next_capitalised(text: str, words: str) -> str | None:
    pattern = r"\W+".join(re.escape(word) for word in words.split())
    match = re.search(rf"\b{pattern}\W+([A-Z][\w'-]*)", text, re.IGNORECASE)
    return match.group(1) if match and match.group(1)[0].isupper() else None


def _initials(short: list[str], long: list[str]) -> bool:
    """The one run abbreviates the other's words: "EU" or "E U" (U.S. read as two words) for "European Union"."""
    letters = "".join(short) if all(len(word) == 1 for word in short) else short[0] if len(short) == 1 else ""
    if len(letters) < 2 or len(long) < 2:
        return False
    return any(
        initials.startswith(letters)
        for initials in ("".join(word[0] for word in long), "".join(word[0] for word in long if word not in STOPWORDS))
    )
