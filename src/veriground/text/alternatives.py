"""Alternatives a sentence states ("it uses a stack instead of a queue"), and whether a claim takes the one it rejects
("Depth-first search uses a queue"): a sentence -> its Alternatives; a claim and an Alternative -> taken or not.

An alternative is read as (subject, verb, chosen, rejected) from "S V X instead of Y" and "S V X rather than Y". X is
at most three words, back to a determiner or a verb; the verb is the word before X; Y is the noun phrase after "of" or
"than", up to a preposition. When S is a pronoun ("it", "they"), the sentence's words before its first pronoun stand
for it: in "Another way to think of depth-first-search is by saying that it is similar to breadth-first search except
that it uses a stack instead of a queue", "it" is depth-first search, not breadth-first search. A claim takes the
rejected alternative when it has the sentence's verb (the same stem), its object holds what the sentence rejects and
not what it chose, and its subject's words are all the sentence's subject's. A claim that states an alternative of its
own, a negated verb, and a clause that only supposes ("if ...") are not read. The shipped model read that sentence as
entailing "Depth-first search uses a queue" (0.95).
"""

from __future__ import annotations

from dataclasses import dataclass

from veriground.text.clauses import (
    ASSERTING_VERBS,
    CLAUSE_MARKS,
    CLAUSE_WORDS,
    CONDITIONS,
    POINTING_PRONOUNS,
    PREPOSITIONS,
    clause_after,
    clause_before,
    read_relations,
    sentence_tokens,
)
from veriground.text.content import content_stems
from veriground.text.memo import text_memo
from veriground.text.terms import STOPWORDS, is_negation, stem_words


@dataclass(frozen=True, slots=True)
class Alternative:
    """One stated choice: the content stems of its subject, its verb's stem, and the stems of what is chosen and of
    what is rejected."""

    subject: frozenset[str]
    verb: str
    chosen: frozenset[str]
    rejected: frozenset[str]


_DETERMINERS = frozenset(("a", "an", "the", "its", "their", "some", "each"))
_MAX_PHRASE = 3


def may_state_alternative(text: str) -> bool:
    """A cheap test a text must pass to state an alternative: it has one of the phrases."""
    lowered = text.lower()
    return "instead of" in lowered or "rather than" in lowered


@text_memo(maxsize=16_384)
def stated_alternatives(sentence: str) -> tuple[Alternative, ...]:
    """The alternatives one sentence states (see the module's note); none for a question."""
    return read_relations(sentence, may_state_alternative, _alternative_at)


def _alternative_at(tokens: list[str], marker: int) -> Alternative | None:
    """The alternative whose "instead" or "rather" is tokens[marker], or None."""
    if tokens[marker : marker + 2] not in (["instead", "of"], ["rather", "than"]):
        return None
    start = marker
    while start > 0 and marker - start < _MAX_PHRASE and _in_phrase(tokens[start - 1]):
        start -= 1
        if tokens[start] in _DETERMINERS:  # "a stack": the phrase opens with its determiner
            break
    verb = start - 1
    if verb < 1 or start == marker or not _may_be_verb(tokens[verb]):
        return None
    before, opener = clause_before(tokens, verb)
    if opener in CONDITIONS or any(is_negation(token) for token in tokens[max(0, verb - 2) : verb]):
        return None
    chosen, rejected = (
        content_stems(" ".join(tokens[start:marker])),
        content_stems(" ".join(_phrase_after(tokens, marker + 1))),
    )
    subject = content_stems(" ".join(before))
    if not subject and POINTING_PRONOUNS.intersection(before):
        first = next(index for index, token in enumerate(tokens) if token in POINTING_PRONOUNS)
        subject = content_stems(" ".join(token for token in tokens[:first] if token not in CLAUSE_MARKS))
    if not (subject and chosen and rejected) or chosen & rejected:
        return None
    return Alternative(subject=subject, verb=stem_words([tokens[verb]])[0], chosen=chosen, rejected=rejected)


def _phrase_after(tokens: list[str], of: int) -> list[str]:
    """The noun phrase after tokens[of] ("a queue" of "instead of a queue to hold ..."): at most _MAX_PHRASE words,
    up to a preposition, "to" or a word that is no phrase word."""
    words: list[str] = []
    for token in tokens[of + 1 : of + 1 + _MAX_PHRASE]:
        if not _in_phrase(token) or token in PREPOSITIONS or token == "to":
            break
        words.append(token)
    return words


def _may_be_verb(token: str) -> bool:
    """A word that may be the verb before the chosen phrase: not a function word ("as", "to", "and", "that")."""
    return token in ASSERTING_VERBS or (
        token.isalpha() and len(token) > 2 and token not in STOPWORDS and token not in PREPOSITIONS
    )


def _in_phrase(token: str) -> bool:
    """A word of the chosen phrase: not a verb ("uses stacks instead of queues"), a clause word or a negation."""
    return token.isalpha() and token not in ASSERTING_VERBS and token not in CLAUSE_WORDS and not is_negation(token)


def takes_rejected(claim: str, stated: Alternative) -> bool:
    """Whether the claim says its subject does with the rejected alternative what the sentence says it does with the
    chosen one (see the module's note)."""
    if may_state_alternative(claim):
        return False
    tokens = sentence_tokens(claim)
    stems = stem_words(tokens)
    for index, stem in enumerate(stems):
        if stem != stated.verb or index == 0 or any(is_negation(token) for token in tokens[max(0, index - 2) : index]):
            continue
        subject = content_stems(" ".join(tokens[:index]))
        taken = content_stems(" ".join(clause_after(tokens, index)))
        if subject and subject <= stated.subject and stated.rejected <= taken and not stated.chosen & taken:
            return True
    return False
