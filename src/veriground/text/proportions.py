"""Proportions a sentence states ("it increases in proportion to velocity squared"), and whether a claim's proportion
gives another power ("Kinetic energy is proportional to velocity"): a sentence -> its Proportions; two -> differ or not.

A proportion is read as (subject, object, power): "X is proportional to Y", "X is directly proportional to Y" and "X
increases (varies, grows) in proportion to Y" give power 1; "inversely proportional" negates it; "the square of Y",
"Y squared", "Y^2" or "Y²" double it, "the cube of Y" or "Y cubed" triple it, "the square root of Y" halves it. A
negated proportion ("is not proportional to"), one in an "if" or "when" clause, and a question are not read. A claim's
proportion differs from a sentence's when both name one object (one's content stems all the other's), their subjects
share a word (or the sentence's is "it") and the claim's subject words are all in the sentence or the one before it
("Recall that kinetic energy is the energy of motion, and that it increases in proportion to velocity squared"), and
the powers differ; "its momentum is proportional to velocity" says nothing of kinetic energy. The shipped model
read that sentence as entailing "Kinetic energy is proportional to velocity" (0.91).
"""

from __future__ import annotations

from dataclasses import dataclass

from veriground.text.clauses import (
    CONDITIONS,
    POINTING_PRONOUNS,
    clause_after,
    clause_before,
    read_relations,
    thing,
)
from veriground.text.memo import text_memo
from veriground.text.terms import is_negation


@dataclass(frozen=True, slots=True)
class Proportion:
    """One stated proportion: the content stems of its subject and of its object, and the object's power."""

    subject: frozenset[str]
    object: frozenset[str]
    power: float


_GROWS = frozenset(("increases", "increase", "varies", "vary", "grows", "grow", "changes", "change", "rises", "rise"))
_POWERS_BEFORE = {"square": 2.0, "cube": 3.0}  # "the square of Y"
# "Y squared", and "Y^2" or "Y²", which the sentence tokens read as "y", "2"
_POWERS_AFTER = {"squared": 2.0, "cubed": 3.0, "2": 2.0, "3": 3.0}
_VERB_WORDS = frozenset(("is", "are", "was", "were", "be", "being", "been", "directly", "inversely", "also", "always"))


def may_state_proportion(text: str) -> bool:
    """A cheap test a text must pass to state a proportion: it has the word."""
    return "proportion" in text.lower()


@text_memo(maxsize=16_384)
def stated_proportions(sentence: str) -> tuple[Proportion, ...]:
    """The proportions one sentence states (see the module's note); none for a question."""
    return read_relations(sentence, may_state_proportion, _proportion_at)


def _proportion_at(tokens: list[str], index: int) -> Proportion | None:
    """The proportion whose "proportional" (or "in proportion") is tokens[index], or None."""
    word = tokens[index]
    if word == "proportional" and tokens[index + 1 : index + 2] == ["to"]:
        verb = index
        while verb > 0 and tokens[verb - 1] in _VERB_WORDS:
            verb -= 1
        inverse = "inversely" in tokens[verb:index]
    elif word == "proportion" and tokens[index - 1 : index] == ["in"] and tokens[index + 1 : index + 2] == ["to"]:
        verb = index - 1
        while verb > 0 and (tokens[verb - 1] in _GROWS or tokens[verb - 1].endswith("ly")):
            verb -= 1
        if verb == index - 1:  # no verb of growing before "in proportion"
            return None
        inverse = False
    else:
        return None
    before, opener = clause_before(tokens, verb)
    if opener in CONDITIONS or any(is_negation(token) for token in tokens[max(0, verb - 2) : index]):
        return None
    after = clause_after(tokens, index + 1)
    power = 1.0
    while after and after[0] in (*_POWERS_BEFORE, "root", "of", "the"):
        power *= _POWERS_BEFORE.get(after[0], 1.0) if after[:2] != ["square", "root"] else 0.5
        after = after[2:] if after[:2] == ["square", "root"] else after[1:]
    ending = [token.rstrip(".") for token in after[1:] if token.rstrip(".") in _POWERS_AFTER]
    power *= _POWERS_AFTER[ending[0]] if ending else 1.0
    subject, object_ = thing(before), thing([token for token in after if token.rstrip(".") not in _POWERS_AFTER])
    if not object_ or not (subject or POINTING_PRONOUNS.intersection(before)):
        return None
    return Proportion(subject=subject, object=object_, power=-power if inverse else power)


def differs(claim: Proportion, stated: Proportion, context: frozenset[str]) -> bool:
    """Whether `claim` gives its object another power than `stated` does, read in a sentence whose content stems, with
    the one before it's, are `context`: the same object, a subject word in common (or a stated "it"), and the claim's
    subject words all in the sentence or the one before (see the module's note)."""
    shared = bool(claim.subject & stated.subject) or not stated.subject  # an empty subject: "it" names it before
    same_object = claim.object <= stated.object or stated.object <= claim.object  # "the distance (between them)"
    return claim.power != stated.power and same_object and shared and claim.subject <= context
