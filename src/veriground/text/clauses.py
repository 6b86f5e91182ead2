"""A sentence read as the relation readers (comparisons.py, dependences.py) need it: lower-cased word and mark tokens,
the clause around a word, and a phrase as the content stems of what it names, hedges and negations left out."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from veriground.text.content import content_stems
from veriground.text.sentences import is_question
from veriground.text.terms import is_negation, normalise_text

T = TypeVar("T")


def words(text: str) -> list[str]:
    return text.split()


PREPOSITIONS = frozenset(words("in on at for with during under inside near through by from to within among"))
# Words that end a clause: a phrase read as a thing never runs past them.
CLAUSE_WORDS = frozenset(
    words(
        "and but or because while whereas although though since which that if when whenever whether so unless "
        "whereby where"
    )
)
RELATIVE_PRONOUNS = frozenset(("that", "which", "who"))
# Where a sentence joins two statements of its own: "Like charges repel each other, whereas unlike charges attract.",
# "...; ...". Substitution compares a claim with each side (substitution.py), and the training swaps take a clause's
# word from the other side (training/passage_swaps.py).
STATEMENT_JOINT = re.compile(r",\s+(?:whereas|while|but)\s+|;\s+")
# ", and" joins two statements too ("Like charges repel each other, and unlike charges attract each other."), but more
# often closes a list ("displacement, velocity, and acceleration"): it counts where the words since the last comma and
# those up to the next are enough for a statement on each side.
_COORDINATED_JOINT = re.compile(r",\s+(?:and|or|so|yet)\s+")
MIN_STATEMENT_WORDS = 3


def statement_joints(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Where text[start:end] joins two statements (STATEMENT_JOINT, or a coordinated joint between two clauses of at
    least MIN_STATEMENT_WORDS words each), as (start, end) of each joint, in order."""
    end = len(text) if end is None else end
    joints = [(joint.start(), joint.end()) for joint in STATEMENT_JOINT.finditer(text, start, end)]
    for joint in _COORDINATED_JOINT.finditer(text, start, end):
        before = text[max(start, text.rfind(",", start, joint.start()) + 1) : joint.start()]
        after_end = text.find(",", joint.end(), end)
        after = text[joint.end() : end if after_end < 0 else after_end]
        if len(before.split()) >= MIN_STATEMENT_WORDS and len(after.split()) >= MIN_STATEMENT_WORDS:
            joints.append((joint.start(), joint.end()))
    return sorted(joints)


# A subject that points back: what it names stands earlier in the sentence or in the one before.
POINTING_PRONOUNS = frozenset(("it", "they", "this", "these"))
CONDITIONS = frozenset(("if", "unless", "when", "whenever", "whether"))
CLAUSE_MARKS = frozenset(",;:()[]—–")
# A relation is asserted by a verb before its word ("is greater", "travels faster", "has more moons"); after a
# bare noun it only picks things out ("nodes with keys smaller than r.x are stored in the left subtree").
ASSERTING_VERBS = frozenset(
    words(
        "is are was were be been being am becomes become became remains remain remained stays stay seems seem "
        "appears appear gets get grows grow has have had travels travel traveled travelled moves move moved runs run "
        "ran falls fall fell costs cost weighs weigh weighed lasts last takes take took holds hold contains contain "
        "carries carry uses use requires require needs need produces produce reaches reach rises rise"
    )
)
HEDGES = frozenset(words("always often usually generally typically much far even still slightly somewhat lot times"))
TOKEN = re.compile(r"[^\W\d_][\w'’-]*|\d[\d.,]*|[,;:()\[\]—–]")
MAX_THING_WORDS = 8


def sentence_tokens(sentence: str) -> list[str]:
    """The sentence's words, numbers and clause marks, lower-cased."""
    return [token.lower() for token in TOKEN.findall(normalise_text(sentence))]


def read_relations(
    sentence: str, may_state: Callable[[str], bool], read_at: Callable[[list[str], int], T | None]
) -> tuple[T, ...]:
    """What `read_at` reads at each token of a sentence that `may_state` lets through; nothing of a question."""
    if not may_state(sentence) or is_question(sentence.strip()):
        return ()
    tokens = sentence_tokens(sentence)
    return tuple(found for index in range(len(tokens)) if (found := read_at(tokens, index)) is not None)


def asserted(tokens: list[str], index: int) -> bool:
    """Whether a verb stands before tokens[index], hedges and negations aside ("is usually greater", "must be even
    taller", "is not affected")."""
    for token in reversed(tokens[max(0, index - 4) : index]):
        if token in ASSERTING_VERBS:
            return True
        if token not in HEDGES and not token.endswith("ly") and not is_negation(token):
            return False
    return False


def clause_before(tokens: list[str], end: int) -> tuple[list[str], str | None]:
    """The words of the clause before tokens[end], and the word that opens the clause (None at a mark or the
    sentence's start); past a relative pronoun when only the verb follows it ("an image that is larger than the
    object": "an image")."""
    words: list[str] = []
    for token in reversed(tokens[max(0, end - MAX_THING_WORDS) : end]):
        if token in CLAUSE_MARKS or token in CLAUSE_WORDS:
            if token in RELATIVE_PRONOUNS and all(word in ASSERTING_VERBS or word in HEDGES for word in words):
                continue
            return words, token if token in CLAUSE_WORDS else None
        words.insert(0, token)
    return words, None


def clause_after(tokens: list[str], than: int) -> list[str]:
    """The words after tokens[than] to the end of its clause, a leading article or "of" left out."""
    words: list[str] = []
    for token in tokens[than + 1 : than + 1 + MAX_THING_WORDS]:
        if token in CLAUSE_MARKS or token in CLAUSE_WORDS or token == "than":
            break
        words.append(token)
    while words and words[0] in {"a", "an", "the", "in", "on", "at", "for", "with", "that", "those", "of"}:
        if words[0] in PREPOSITIONS:
            break
        words.pop(0)
    return words


# Verbs a subject ends at, besides the asserting ones: modals and auxiliaries.
_SUBJECT_ENDS = ASSERTING_VERBS | frozenset(
    words("can cannot could does do did will would must may might should shall")
)
MAX_SUBJECT_TOKENS = 16


def subject(sentence: str) -> frozenset[str] | None:
    """The content stems of what a sentence is about: its words before its first verb, past the last comma before it
    ("In an elastic collision, kinetic energy is lost": "kinetic energy"); None when no verb opens the sentence's
    first MAX_SUBJECT_TOKENS tokens."""
    tokens = sentence_tokens(sentence)[:MAX_SUBJECT_TOKENS]
    for index, token in enumerate(tokens):
        if token in _SUBJECT_ENDS or token.endswith(("n't", "n’t")):
            opening = tokens[:index]
            start = max((position + 1 for position, word in enumerate(opening) if word == ","), default=0)
            return content_stems(" ".join(word for word in opening[start:] if word not in CLAUSE_MARKS))
    return None


def thing(phrase: list[str]) -> frozenset[str]:
    """What a phrase names: the content stems of its words, hedges, -ly words and negations left out."""
    kept = [word for word in phrase if word not in HEDGES and not word.endswith("ly") and not is_negation(word)]
    return content_stems(" ".join(kept))
