"""Clause heuristics for the atomicity rules: a closed verb list, subjects, and protected character spans.

A word group is a clause when it holds a word from VERBS, or a subject pronoun with a word after it;
the words before that verb are its subject. The list is closed on purpose: it is short enough to read,
and a verb missing from it leaves a compound claim unsplit, which is the safe way to fail.

Where the caller has stronger evidence of two clauses (a comma before "and", no list before it), it may also
ask `guessed_verb_index` for a verb outside the list, recognised by its shape and neighbours: an -s or -ed
word after a content word and before a preposition, determiner or object pronoun ("quantum mechanics deals
with", "the lens bends the light"); `loose=True` drops the condition on the word after it ("a magnet attracts
iron"), for a side whose partner clause already has a verb.
"""

from __future__ import annotations

import re

from veriground.claims.equations import find_math_spans

# Auxiliaries, copulas and modals: they mark a finite clause whatever the main verb is. "be", "been" and "being" do
# not: "the region and type of cider being consumed" is one phrase (a finite word comes with them: "can be").
_AUXILIARIES = """
am is are was were has have had do does did can could may might must shall should will would
cannot isn't aren't wasn't weren't doesn't don't didn't hasn't haven't hadn't can't couldn't won't wouldn't
"""
# Finite forms of verbs common in textbook claims; forms that are as often nouns ("results", "points",
# "works", "sorts") are left out.
_FINITE_VERBS = """
equals states stated means meant requires required runs ran takes took gives gave contains depends grows
increases decreases remains remained becomes became holds held occurs occurred produces produced returns
divides merges compares swaps causes caused leads led implies implied shows showed proves proved describes
represents consists includes included converges diverges exists existed satisfies ensures guarantees
stores visits finds keeps applies performs acts travels accelerates yields reaches reached doubles
lies goes went comes came flows falls rises moves moved says said uses introduced discovered
invented developed proposed published defines boils freezes melts expands absorbs emits converts
transfers conserves rotates orbits
"""
VERBS = frozenset((_AUXILIARIES + _FINITE_VERBS).split())
_DETERMINERS = frozenset(
    {"a", "an", "the", "this", "that", "these", "those", "its", "their", "his", "her", "our", "your", "some", "any"}
)
_SUBJECT_PRONOUNS = frozenset({"it", "they", "he", "she", "we", "you"})
# Words that open a subordinate clause; a conjunction after one may join parts of that clause only.
_SUBORDINATORS = frozenset(
    {"where", "which", "who", "whom", "whose", "that", "if", "when", "whenever", "because", "although", "though"}
    | {"while", "since", "unless", "until", "whereas"}
)
# What follows a finite verb's object slot: prepositions, determiners and object pronouns.
_OBJECT_OPENERS = frozenset(
    {"with", "to", "on", "in", "into", "onto", "at", "by", "for", "from", "about", "through", "over", "under"}
    | {"between", "across", "around", "toward", "towards", "against", "upon", "within", "without", "along"}
    | {"a", "an", "the", "this", "that", "these", "those", "its", "their", "each", "every", "all", "no", "most"}
    | {"it", "them", "him", "us", "itself", "themselves"}
)
# Words that cannot be the noun right before a verb: determiners, prepositions, conjunctions, subordinators.
_NOT_BEFORE_VERB = _DETERMINERS | _OBJECT_OPENERS | _SUBORDINATORS | {"of", "and", "or", "but", "nor", "as", "than"}
# -s / -ed words that are usually nouns or adjectives, not verbs ("mass", "status", "axis", "physics",
# "various", "thickness", "speed").
_NOT_VERB_ENDINGS = ("ss", "us", "is", "ics", "ous", "ness", "eed")
_MIN_GUESSED_VERB_LETTERS = 4  # "has", "was", "is" are in VERBS; shorter -s words are mostly nouns ("gas")
_SUPPOSITIONS = frozenset({"suppose", "assume", "imagine", "consider", "let", "given", "once", "after", "before"})
_MIN_PARTICIPLE = 5  # "knowing", "substituting"; not "thing", "king", "ring"
_WORD = re.compile(r"\S+")
_EDGE_PUNCTUATION = "\"'()[]{},;:.!?“”‘’"
_OPENERS, _CLOSERS = "([{", ")]}"


def words_of(text: str) -> list[re.Match[str]]:
    return list(_WORD.finditer(text))


def is_verb(word: str) -> bool:
    return _bare(word) in VERBS


def _bare(word: str) -> str:
    return word.strip(_EDGE_PUNCTUATION).lower().replace("’", "'")


def first_verb_index(words: list[re.Match[str]]) -> int | None:
    """The first word from VERBS, or the word right after a subject pronoun ("it freezes")."""
    for index, word in enumerate(words):
        if is_verb(word.group()):
            return index
        if index + 1 < len(words) and _bare(word.group()) in _SUBJECT_PRONOUNS:
            return index + 1
    return None


def guessed_verb_index(words: list[re.Match[str]], *, loose: bool = False) -> int | None:
    """The first word that looks like a finite verb outside VERBS (see the module docstring), or None."""
    for index in range(1, len(words) - 1):
        word, before, after = words[index].group(), words[index - 1].group(), words[index + 1].group()
        if not _looks_finite(word) or before.strip(_EDGE_PUNCTUATION) != before or _bare(before) in _NOT_BEFORE_VERB:
            continue  # "mechanics deals": a noun, then the -s word; not "the deals" or "mass, deals"
        if loose or _bare(after) in _OBJECT_OPENERS or after[:1].isdigit():
            return index
    return None


def _looks_finite(word: str) -> bool:
    """A lower-case word of letters ending in -s or -ed, not with a noun or adjective ending."""
    if not word.isalpha() or not word.islower() or len(word) < _MIN_GUESSED_VERB_LETTERS:
        return False
    return (word.endswith("s") or word.endswith("ed")) and not word.endswith(_NOT_VERB_ENDINGS)


def opens_subordinate_clause(word: str) -> bool:
    return _bare(word) in _SUBORDINATORS


def opens_dependent_phrase(word: str) -> bool:
    """A first word after which a ", and" may still be inside the opening phrase: a subordinator ("If A, and B,
    then ..."), a supposition ("Suppose A, and B ...") or a participle ("Knowing A, and B, we ...")."""
    bare = _bare(word)
    return bare in _SUBORDINATORS or bare in _SUPPOSITIONS or (bare.endswith("ing") and len(bare) > _MIN_PARTICIPLE)


def is_subject(words: list[str]) -> bool:
    """A subject needs a content word: "The" alone (from "The results show ...") is not one."""
    return any(word.strip(_EDGE_PUNCTUATION).lower() not in _DETERMINERS for word in words if word.strip(","))


def find_protected(text: str) -> list[bool]:
    """Per character: True inside brackets, parentheses, braces or LaTeX math, where no split may fall."""
    protected = [False] * len(text)
    depth = 0
    for index, char in enumerate(text):
        if char in _OPENERS:
            depth += 1
        elif char in _CLOSERS and depth:
            depth -= 1
            protected[index] = True
        if depth:
            protected[index] = True
    for start, end in find_math_spans(text):
        protected[start:end] = [True] * (end - start)
    return protected
