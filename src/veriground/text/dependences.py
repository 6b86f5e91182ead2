"""Dependences a sentence states ("mass does not depend on gravity"), and whether a claim's dependence says the
opposite of one of them ("Mass depends on gravity"): a sentence -> its Dependences; two Dependences -> denied or not.

A dependence is read as (subject, object, whether it holds): "X depends on Y", "X is dependent on Y", "X varies with
Y", "X is affected by Y" hold; the same negated, "X is independent of Y" and "X is unaffected by Y" do not. The object
runs on through a list of examples ("independent of other factors, such as mass or amplitude"). "X depends only on
Y" says nothing of anything else and is not read. A claim reverses a sentence's dependence when one holds and the
other does not, every word of the claim's object is in the sentence's, and the sentence's subject is the claim's: its
words are all the claim's, and the claim's are all in it or in the sentence before ("The period is completely
independent of other factors, such as mass", after a sentence about a simple pendulum, against "The period of a
simple pendulum depends on its mass"; not against "The period of a mass on a spring depends on its mass").
One in an "if" or "when" clause is supposed, not stated.
"""

from __future__ import annotations

from dataclasses import dataclass

from veriground.text.clauses import (
    CONDITIONS,
    HEDGES,
    asserted,
    clause_after,
    clause_before,
    read_relations,
    thing,
    words,
)
from veriground.text.memo import text_memo
from veriground.text.terms import is_negation


@dataclass(frozen=True, slots=True)
class Dependence:
    """One stated dependence: the content stems of its subject and its object, and whether it holds."""

    subject: frozenset[str]
    object: frozenset[str]
    holds: bool


_DEPEND = frozenset(("depend", "depends", "depended", "varies", "vary", "varied"))
_DEPEND_PREPOSITIONS = frozenset(("on", "upon", "with"))
_AUXILIARIES = frozenset(words("does do did is are was were be been remains remain can may might will would must"))
_EXCLUSIVE = frozenset(("only", "solely", "just", "entirely", "mainly", "mostly", "primarily"))
_EXAMPLES = frozenset(("such", "including", "like", "e.g"))


def may_state_dependence(text: str) -> bool:
    """A cheap test a text must pass to state a dependence: it has a word that can."""
    lowered = text.lower()
    return any(word in lowered for word in ("depend", "var", "affected"))


@text_memo(maxsize=16_384)
def stated_dependences(sentence: str) -> tuple[Dependence, ...]:
    """The dependences one sentence states (see the module's note); none for a question."""
    return read_relations(sentence, may_state_dependence, _dependence_at)


def _dependence_at(tokens: list[str], index: int) -> Dependence | None:
    """The dependence whose verb or adjective is tokens[index], or None."""
    word, after = tokens[index], tokens[index + 1 : index + 4]
    if word in _DEPEND or word == "dependent":
        holds = True
        skipped = [token for token in after if token not in _DEPEND_PREPOSITIONS][:2]
        if not any(token in _DEPEND_PREPOSITIONS for token in after[:3]) or _EXCLUSIVE & set(skipped):
            return None
        if word == "dependent" and not asserted(tokens, index):
            return None
    elif word in ("independent", "unaffected"):
        holds = False
        if not after or after[0] not in ("of", "by") or not asserted(tokens, index):
            return None
    elif word == "affected" and after[:1] == ["by"] and asserted(tokens, index):
        holds = True
    else:
        return None
    verb = index  # the first word of the verb: "does not depend", "is completely independent"
    while verb > 0 and _verb_word(tokens[verb - 1]):
        verb -= 1
    before, opener = clause_before(tokens, verb)
    if opener in CONDITIONS:
        return None
    if any(is_negation(token) for token in tokens[verb:index]):
        holds = not holds
    start = next(i for i in range(index + 1, len(tokens)) if tokens[i] in (*_DEPEND_PREPOSITIONS, "of", "by"))
    subject, object_ = thing(before), thing(_object_after(tokens, start))
    if not subject or not object_:
        return None
    return Dependence(subject=subject, object=object_, holds=holds)


def _verb_word(token: str) -> bool:
    """An auxiliary, a hedge or a negation: a word of the verb before "depend" or "independent"."""
    return token in _AUXILIARIES or token in HEDGES or token.endswith("ly") or is_negation(token)


def _object_after(tokens: list[str], preposition: int) -> list[str]:
    """The words after the preposition to the end of the clause, on through a list of examples (", such as ...")."""
    words = clause_after(tokens, preposition)
    end = preposition + 1 + len(words)
    listing = False
    while end + 1 < len(tokens) and (
        (tokens[end] == "," and tokens[end + 1] in _EXAMPLES) or (listing and tokens[end] in ("or", "and", ","))
    ):
        listing = True
        step = 2 if tokens[end] == "," and tokens[end + 1] in _EXAMPLES else 1
        more = clause_after(tokens, end + step - 1)
        words += more
        end += step + len(more)
    return words


def denies(claim: Dependence, stated: Dependence, context: frozenset[str]) -> bool:
    """Whether `claim` says the opposite of `stated`, read after a sentence whose content stems are `context` (see the
    module's note)."""
    return (
        claim.holds != stated.holds
        and claim.object <= stated.object
        and stated.subject <= claim.subject
        and claim.subject <= stated.subject | context
    )
