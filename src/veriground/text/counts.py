"""Counts a sentence states after "has" or "contains" ("contains no cycles", "has exactly one root"), and whether a
claim's count says otherwise where one of the two is none ("A tree has exactly one cycle" against "A tree is a
connected graph containing no cycles"): a sentence -> its Counts; two -> contradict or not.

A count is read as (what is counted, how many, the sentence's other content): "no X", "zero X" and "not any X" count
0; "one X", "a single X", "exactly one X", "only one X" and "two" to "ten X" count that many, after a verb of having
("has", "have", "contains", "containing", "includes", ...). Bounds ("at least one", "at most two", "more than one")
and numbers in digits are not read (the numeric signal compares digits), nor a count in an "if" or "when" clause or a
question. A claim's count contradicts a sentence's when they count the same thing, one of them is none and the other
is not, and the claim's other content words are all in the sentence or the one before it. The shipped model read
"A tree has exactly one cycle." as entailed (0.91) by a sentence about decision trees.
"""

from __future__ import annotations

from dataclasses import dataclass

from veriground.text.clauses import (
    CLAUSE_WORDS,
    CONDITIONS,
    PREPOSITIONS,
    clause_before,
    read_relations,
    sentence_tokens,
    words,
)
from veriground.text.content import content_stems
from veriground.text.memo import text_memo
from veriground.text.terms import STOPWORDS, stem_words


@dataclass(frozen=True, slots=True)
class Count:
    """One stated count: what is counted (its stems: "vertices" is also read as "vertex") and how many."""

    counted: frozenset[str]
    value: int


_HAVING = frozenset(words("has have had having contains contain contained containing includes include including"))
_NUMBERS = dict(
    zip(
        words("no zero one single two three four five six seven eight nine ten"),
        (0, 0, 1, 1, *range(2, 11)),
        strict=True,
    )
)
_BEFORE_NUMBER = frozenset(words("exactly only just precisely a"))  # "exactly one", "a single"
_BEFORE_NUMBER_STEMS = frozenset(stem_words(sorted(_BEFORE_NUMBER)))
_BOUNDS = frozenset(words("least most than fewer more less up over under"))
_NOT_COUNTED = frozenset(words("longer more less matter doubt way one other such"))  # "no longer", "no one", "no other"
_MAX_PHRASE_WORDS = 3
_ENDS_PHRASE = PREPOSITIONS | CLAUSE_WORDS | frozenset(words("after before about per each left"))


def may_state_count(text: str) -> bool:
    """A cheap test a text must pass to state a count: a verb of having."""
    return any(word in _HAVING for word in text.lower().split())


@text_memo(maxsize=16_384)
def stated_counts(sentence: str) -> tuple[Count, ...]:
    """The counts one sentence states after a verb of having (see the module's note); none for a question."""
    return read_relations(sentence, may_state_count, _count_at)


def _count_at(tokens: list[str], index: int) -> Count | None:
    """The count whose verb of having is tokens[index], or None."""
    if tokens[index] not in _HAVING:
        return None
    _, opener = clause_before(tokens, index)
    if opener in CONDITIONS:
        return None
    after = tokens[index + 1 : index + 8]
    while after and after[0] in _BEFORE_NUMBER and after[1:2] and after[1] in _NUMBERS:
        after = after[1:]
    if after[:2] == ["not", "any"]:
        after = ["no", *after[2:]]
    if len(after) < 2 or after[0] not in _NUMBERS or (after[0] == "single" and tokens[index + 1] != "a"):
        return None
    head = _head_noun(after[1:])
    return None if head is None else Count(counted=_noun_stems(head), value=_NUMBERS[after[0]])


def _head_noun(phrase: list[str]) -> str | None:
    """The last word of the noun phrase that opens `phrase` ("net external force" of "net external force acting upon
    it"), at most three words, or None when it opens with a bound, a function word or no word."""
    nouns: list[str] = []
    for word in phrase[:_MAX_PHRASE_WORDS]:
        if not word.isalpha() or word in STOPWORDS or word in _NOT_COUNTED or word in _BOUNDS or word in _ENDS_PHRASE:
            break
        if nouns and word.endswith(("ing", "ed")):  # "force acting upon it", "children needed"
            break
        nouns.append(word)
    return nouns[-1] if nouns else None


def _noun_stems(word: str) -> frozenset[str]:
    """The word's stem, and for a Latin plural in -ices the stems of its singulars ("vertices": "vertex", "vertix")."""
    forms = [word, word[:-4] + "ex", word[:-4] + "ix"] if word.endswith("ices") else [word]
    return frozenset(stem_words(forms))


def contradicts(claim: str, stated: tuple[Count, ...], context: frozenset[str]) -> bool:
    """Whether a count the claim states says otherwise than one of a sentence's `stated` counts, read in a sentence
    whose content stems, with the one before it's, are `context` (see the module's note); not when the sentence also
    states the claim's count ("It contains four elements: ..., the set containing no elements")."""
    for ours in stated_counts(claim):
        same = [count for count in stated if ours.counted & count.counted]
        if not any((ours.value == 0) != (count.value == 0) for count in same):
            continue
        if any(count.value == ours.value for count in same):
            continue
        rest = content_stems(" ".join(token for token in sentence_tokens(claim) if token not in _NUMBERS))
        if rest - ours.counted - _BEFORE_NUMBER_STEMS <= context:
            return True
    return False
