"""Comparisons a sentence states ("The maximum static friction is usually greater than the kinetic friction"), and
whether a claim's comparison says one of them the other way round ("Kinetic friction is usually greater than static
friction"): a sentence -> its Comparisons; two Comparisons -> reversed or not.

A comparison is read as (left thing, scale, direction, right thing):
- the comparative sets the scale and its direction: "greater", "larger", "more" and "smaller", "less", "fewer" are
  one scale read up or down, as are "faster"/"slower", "heavier"/"lighter" and the rest of COMPARATIVES; a content
  word between the comparative and "than" names what is compared ("more energy", "greater mass", "more massive"), and
  two comparisons share a scale only when they name the same one;
- the right thing is what follows "than" up to the end of the clause; the left thing is a phrase between the
  comparative and "than" that opens with a preposition ("travels faster in steel than in air"), else what precedes
  the comparative in its clause ("static friction is usually");
- each thing is read as its content stems, hedges left out ("usually", "always", words in -ly). A thing is told
  from the other by its words the other lacks: "kinetic" and "static" tell the two frictions apart.
A claim reverses a sentence's comparison when they share a scale and the claim puts the sentence's left thing on its
right and its right thing on its left, reading the scale the same way ("A is greater than B" against "B is greater
than A"), or puts them where the sentence does, reading the scale the other way ("A is smaller than B" against "A is
greater than B"). A comparison that is negated ("is not greater than", "no more than"), a bound on a number ("more
than 3 kg", "faster than 10 m/s": the numeric signal reads those) and a question state no comparison.
One in an "if" or "when" clause is supposed, not stated.
"""

from __future__ import annotations

from dataclasses import dataclass

from veriground.text.clauses import (
    CONDITIONS,
    PREPOSITIONS,
    asserted,
    clause_after,
    clause_before,
    read_relations,
    thing,
    words,
)
from veriground.text.content import content_stems
from veriground.text.memo import text_memo
from veriground.text.terms import is_negation

# comparative -> (scale, direction)
COMPARATIVES: dict[str, tuple[str, int]] = {
    **dict.fromkeys(("greater", "larger", "bigger", "more"), ("size", 1)),
    **dict.fromkeys(("smaller", "less", "lesser", "fewer"), ("size", -1)),
    **dict.fromkeys(("higher", "taller"), ("height", 1)),
    "lower": ("height", -1),
    "longer": ("length", 1),
    "shorter": ("length", -1),
    **dict.fromkeys(("faster", "quicker"), ("speed", 1)),
    "slower": ("speed", -1),
    "heavier": ("weight", 1),
    "lighter": ("weight", -1),
    "stronger": ("strength", 1),
    "weaker": ("strength", -1),
    **dict.fromkeys(("hotter", "warmer"), ("temperature", 1)),
    **dict.fromkeys(("colder", "cooler"), ("temperature", -1)),
    "older": ("age", 1),
    "younger": ("age", -1),
    "earlier": ("time", -1),
    "later": ("time", 1),
    "better": ("quality", 1),
    "worse": ("quality", -1),
    "wider": ("width", 1),
    "narrower": ("width", -1),
    "thicker": ("thickness", 1),
    "thinner": ("thickness", -1),
    "deeper": ("depth", 1),
    "shallower": ("depth", -1),
    "louder": ("loudness", 1),
    "quieter": ("loudness", -1),
    "brighter": ("brightness", 1),
    "dimmer": ("brightness", -1),
    "cheaper": ("cost", -1),
    "denser": ("density", 1),
}
# A number (or a multiple) right after "than" makes a bound, not a comparison of two things.
_NUMBER_WORDS = frozenset(
    words(
        "one two three four five six seven eight nine ten hundred thousand million billion twice half double triple "
        "once thrice dozen"
    )
)


@dataclass(frozen=True, slots=True)
class Comparison:
    """One stated comparison: the content stems of the thing on each side, the scale and which way it reads."""

    left: frozenset[str]
    right: frozenset[str]
    scale: tuple[str, str]  # (COMPARATIVES scale, the stem of the word naming what is compared, or "")
    direction: int


def may_state_comparison(text: str) -> bool:
    """A cheap test a text must pass to state a comparison: it has a "than"."""
    return " than " in text.lower()


@text_memo(maxsize=16_384)
def stated_comparisons(sentence: str) -> tuple[Comparison, ...]:
    """The comparisons one sentence states (see the module's note); none for a question."""
    return read_relations(sentence, may_state_comparison, _comparison_at)


def _comparison_at(tokens: list[str], than: int) -> Comparison | None:
    """The comparison whose "than" is tokens[than], or None when it is no comparison of two things (or no "than")."""
    if tokens[than] != "than":
        return None
    start = next((i for i in range(than - 1, max(-1, than - 4), -1) if tokens[i] in COMPARATIVES), None)
    if start is None:
        return None
    scale, direction = COMPARATIVES[tokens[start]]
    if not asserted(tokens, start):
        return None
    between = tokens[start + 1 : than]
    prepositional = bool(between) and between[0] in PREPOSITIONS
    named = between[:1] if between and not prepositional else []
    before, opener = clause_before(tokens, start)
    if opener in CONDITIONS:  # "if the index of the second medium is less than the first, ...": supposed, not said
        return None
    left_words = between if prepositional else before
    right_words = clause_after(tokens, than)
    if not right_words or _bound(right_words):
        return None
    if any(is_negation(word) for word in (*before[-3:], *tokens[max(0, start - 2) : than])):
        return None
    left, right = thing(left_words), thing(right_words)
    if not left or not right:
        return None
    name = "".join(sorted(content_stems(" ".join(named)))) if named else ""
    return Comparison(left=left, right=right, scale=(scale, name), direction=direction)


def _bound(words: list[str]) -> bool:
    """Whether what follows "than" is a number, a multiple or a variable: a bound ("more than 3 kg", "smaller than
    $b-1$", "less than x"), not a thing."""
    first = words[0]
    return first in _NUMBER_WORDS or len(first) == 1 or any(char.isdigit() for word in words for char in word)


def reverses(claim: Comparison, stated: Comparison) -> bool:
    """Whether `claim` says `stated` the other way round (see the module's note)."""
    if claim.scale != stated.scale:
        return False
    ours_left, ours_right = claim.left - claim.right, claim.right - claim.left
    their_left, their_right = stated.left - stated.right, stated.right - stated.left
    if not (ours_left and ours_right and their_left and their_right):
        return False
    swapped = (
        bool(ours_right & their_left)
        and bool(ours_left & their_right)
        and ours_right <= stated.left
        and not ours_right & their_right
    )
    kept = (
        bool(ours_right & their_right)
        and bool(ours_left & their_left)
        and ours_right <= stated.right
        and not ours_right & their_left
        and not ours_left & their_right
    )
    if swapped and not kept:
        return claim.direction == stated.direction
    if kept and not swapped:
        return claim.direction != stated.direction
    return False
