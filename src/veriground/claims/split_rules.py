"""Seed 000 §2.3.2 split rules R2-R6: one piece of sentence text -> the parts it would split into.

Each finder gets the text with citations masked and a piece (start, end, subject) and returns its parts
as (start, end, subject) triples, or [] when its rule does not apply. Parts are trimmed and checked for
length by the caller (atomicity.py); a finder only decides where the cuts fall.
"""

from __future__ import annotations

import itertools
import re

from veriground.claims.claim_types import DEFINITION_CUE
from veriground.claims.clauses import (
    find_protected,
    first_verb_index,
    guessed_verb_index,
    is_subject,
    is_verb,
    opens_dependent_phrase,
    opens_subordinate_clause,
    words_of,
)
from veriground.claims.equations import find_equations

Part = tuple[int, int, str]

# R3 reads both sides of each and/or/but, so trying every one of a run of conjunctions with no clause around them
# (" but " x 1,000) was quadratic; a real sentence joins its clauses within its first few conjunctions.
MAX_CONJUNCTIONS_TRIED = 8

# R5: step markers; the first one must open the piece ("First, ...", "Step 1: ...").
_STEP_MARKER = re.compile(
    r"\b(?:step\s+\d+\s*[:.)]|(?:first(?:ly)?|second(?:ly)?|third(?:ly)?|next|then|after\s+that|afterwards|"
    r"finally|lastly)\b)",
    re.IGNORECASE,
)
_CONDITIONAL_IF = re.compile(r"\bif\b", re.IGNORECASE)  # "if x then y" is a condition, not a step
# R6: a definition cue, then a connector that introduces its application.
_APPLICATION_CONNECTOR = re.compile(
    r"[,;]?\s+(?:and\s+)?(?:so(?!\s+that)|thus|therefore|hence|consequently|"
    r"which\s+(?:means|implies)(?:\s+that)?|meaning(?:\s+that)?)\b,?",
    re.IGNORECASE,
)
# R2: where to cut between two equations, best first; the rightmost match in the gap wins, so the
# interpretation that follows an equation ("..., where m is mass") stays with it.
_EQUATION_GAP_CUTS = (
    re.compile(r";"),
    re.compile(r",?\s+(?:and|while|whereas|but|or)\s+", re.IGNORECASE),
    re.compile(r",\s*"),
    re.compile(r"\s+"),
)
# R3: a coordinating conjunction, with an optional comma before it.
_CONJUNCTION = re.compile(r"(?:,\s*)?\b(?:and|or|but)\s+", re.IGNORECASE)
# ", and" / ", but" with no comma earlier in the left side joins two independent clauses more often than two
# phrases, so there a verb outside the closed list may be guessed (clauses.guessed_verb_index). An earlier
# comma means a list ("energy, momentum, and ..."), and a left side that opens with "If", "Suppose" or a
# participle may still be inside its opening phrase: there only listed verbs count.
_CLAUSE_COMMA_CONJUNCTION = re.compile(r",\s*(?:and|but)\s+", re.IGNORECASE)
# "it" after the conjunction refers back to the left clause's subject; "they", "he" and "she" may not.
_LEADING_PRONOUN = re.compile(r"it\s+(?=\w)", re.IGNORECASE)


def split_steps(text: str, start: int, end: int, subject: str) -> list[Part]:
    """R5: "First, ... then ... finally ..." or "Step 1: ... Step 2: ..." -> one part per step."""
    local = text[start:end]
    protected = find_protected(local)
    markers: list[int] = []
    for match in _STEP_MARKER.finditer(local):
        if protected[match.start()]:
            continue
        if match.group().lower() == "then" and markers and _CONDITIONAL_IF.search(local, markers[-1], match.start()):
            continue
        markers.append(match.start())
    if len(markers) < 2 or local[: markers[0]].strip():
        return []
    bounds = [*markers, len(local)]
    return [
        (start + a, start + b, subject if index == 0 else "")
        for index, (a, b) in enumerate(zip(bounds, bounds[1:], strict=False))
    ]


def split_definition_application(text: str, start: int, end: int, subject: str) -> list[Part]:
    """R6: "X is defined as Y, so Z" -> the definition and its application."""
    local = text[start:end]
    cue = DEFINITION_CUE.search(local)
    if cue is None:
        return []
    protected = find_protected(local)
    for connector in _APPLICATION_CONNECTOR.finditer(local, cue.end()):
        if not protected[connector.start()]:
            return [(start, start + connector.start(), subject), (start + connector.end(), end, "")]
    return []


def split_equations(text: str, start: int, end: int, subject: str) -> list[Part]:
    """R2: more than one equation -> one part per equation, each with the words around it."""
    local = text[start:end]
    equations = find_equations(local)
    if len(equations) < 2:
        return []
    parts: list[Part] = []
    part_start = 0
    for (_, left_end), (right_start, _) in zip(equations, equations[1:], strict=False):
        cut_start, cut_end = _cut_gap(local, left_end, right_start)
        parts.append((start + part_start, start + cut_start, subject if not parts else ""))
        part_start = cut_end
    parts.append((start + part_start, end, ""))
    return parts


def split_semicolons(text: str, start: int, end: int, subject: str) -> list[Part]:
    """R4: `;` outside brackets and math -> one part per clause."""
    local = text[start:end]
    protected = find_protected(local)
    cuts = [
        index
        for index, char in enumerate(local)
        if char == ";" and not protected[index] and not _opens_with_left_clause(local[index + 1 :])
    ]
    if not cuts:
        return []
    bounds = [-1, *cuts, len(local)]
    return [
        (start + a + 1, start + b, subject if index == 0 else "")
        for index, (a, b) in enumerate(zip(bounds, bounds[1:], strict=False))
    ]


def split_conjunctions(text: str, start: int, end: int, subject: str) -> list[Part]:
    """R3: and/or/but between two clauses -> two parts; a right side that opens with a verb gets the
    left side's subject ("Merge sort has ... and is stable" -> "Merge sort is stable")."""
    local = text[start:end]
    protected = find_protected(local)
    candidates = (match for match in _CONJUNCTION.finditer(local) if not protected[match.start()])
    for match in itertools.islice(candidates, MAX_CONJUNCTIONS_TRIED):
        left = local[: match.start()]
        if "," not in match.group() and _closes_between(words_of(left)):
            continue  # "to be between $11,100 million and $11,250 million, which is ...": one range, not two clauses
        if _dangles(left):
            continue  # "very similar to, and often aligned with X": the left side waits for its object
        if _inside_condition(left):
            continue  # "If A and B, then C": both are the condition (AttributionBench: "If A." was a claim)
        guess = (
            _CLAUSE_COMMA_CONJUNCTION.fullmatch(match.group()) is not None
            and "," not in left
            and not opens_dependent_phrase(left.split(maxsplit=1)[0] if left.strip() else "")
        )
        right_subject = _right_subject(left, local[match.end() :], subject, guess=guess)
        if right_subject is None:
            continue
        right_start = start + match.end()
        pronoun = _LEADING_PRONOUN.match(local, match.end())
        antecedent = _left_subject(left, subject, guess=guess) if right_subject == "" and pronoun else None
        if antecedent and pronoun:  # an antecedent is looked for only after a pronoun
            # "... and it is stable": the pronoun stands for the left subject, which replaces it.
            right_start, right_subject = start + pronoun.end(), antecedent
        return [(start, start + match.start(), subject), (right_start, end, right_subject)]
    return []


def _verb_index(words: list[re.Match[str]], *, guess: bool) -> int | None:
    found = first_verb_index(words)
    return guessed_verb_index(words) if found is None and guess else found


def _left_subject(left: str, inherited: str, *, guess: bool) -> str | None:
    left_words = words_of(left)
    left_verb = _verb_index(left_words, guess=guess)
    if left_verb is None:
        return None
    subject_words = [word.group() for word in left_words[:left_verb]] or inherited.split()
    return " ".join(subject_words).rstrip(",") if is_subject(subject_words) else None


def _right_subject(left: str, right: str, inherited: str, *, guess: bool) -> str | None:
    """The subject to copy onto the right clause ("" when it has its own), or None when the conjunction
    does not join two clauses. `guess`: verbs outside the closed list count too."""
    left_words, right_words = words_of(left), words_of(right)
    left_verb = first_verb_index(left_words)
    if left_verb is None and guess and _verb_index(right_words, guess=True):
        left_verb = guessed_verb_index(left_words, loose=True)  # the right clause's verb backs a looser guess
    # The left verb needs a word after it: in "X compares and swaps Y" the two verbs share the object.
    if left_verb is None or left_verb == len(left_words) - 1 or len(left_words) + len(inherited.split()) < 3:
        return None
    if any(opens_subordinate_clause(word.group()) for word in left_words[left_verb + 1 :]):
        return None  # "... where m is the mass and v is the speed": the "and" is inside the where-clause
    if len(right_words) >= 2 and is_verb(right_words[0].group()):
        subject_words = [word.group() for word in left_words[:left_verb]]
        if not subject_words:
            subject_words = inherited.split()
        if not is_subject(subject_words):
            return None
        return " ".join(subject_words).rstrip(",")
    right_verb = _verb_index(right_words, guess=guess)
    if right_verb is None or right_verb == 0 or len(right_words) < 3:
        return None
    if _stands_for_left_clause(right_words, right_verb):
        return None  # "..., but this does not hold for open systems": "this" is the left clause, no claim without it
    if any(word.group().lower() in _COORDINATORS for word in right_words[:right_verb]):
        return None  # "oil, coal, and tar deposits, and are produced": the conjunction is the list's, not a clause's
    if any(word.group().lower() == "where" for word in right_words[:right_verb]):
        return None  # "inertial and viscous forces, where ρ is the density": the verb is the where-clause's
    return ""


# Words a clause cannot end with: they wait for what follows ("similar to", "made of", "the").
_DANGLING = frozenset(
    {"to", "of", "with", "from", "for", "by", "at", "in", "on", "into", "onto", "about", "than", "as", "the", "a", "an"}
)
_COORDINATORS = frozenset({"and", "or", "but"})
# A right clause whose subject is one of these alone stands for the whole left clause ("Merge sort runs in O(n log n)
# time, and that is why it is popular"): split off, it was checked as a claim of its own ("that is why it is popular.")
# that no source can support, since no source says what "that" is.
_WHOLE_CLAUSE_PRONOUNS = frozenset({"this", "that", "these", "those"})


# Words that open a condition or a concession whose clause runs to the first comma: "If the family does not want it
# and the physician agrees, then ...".
_CONDITION_OPENERS = frozenset(
    {"if", "when", "whenever", "unless", "although", "though", "because", "since", "while", "whereas", "once"}
    | {"suppose", "assuming", "provided"}
)


def _opens_with_left_clause(right: str) -> bool:
    """The clause opens with a demonstrative that stands for the clause before it ("...; this is the first law")."""
    words = words_of(right)
    return len(words) >= 2 and _stands_for_left_clause(words, first_verb_index(words) or 0)


def _stands_for_left_clause(right_words: list[re.Match[str]], right_verb: int) -> bool:
    """The right clause's subject is a demonstrative alone: its verb comes next ("this does not hold", "that is why";
    after "this" or "that", a word ending in one "s" is taken for its verb: "this makes it memory efficient")."""
    pronoun, following = right_words[0].group().lower(), right_words[1].group()
    if pronoun not in _WHOLE_CLAUSE_PRONOUNS:
        return False
    third_person = pronoun in {"this", "that"} and following.islower() and re.fullmatch(r"\w+[^s]s", following)
    return right_verb == 1 or bool(third_person)


def _inside_condition(left: str) -> bool:
    """The left side of a conjunction opens a condition (or a concession) that no comma has closed yet."""
    words = left.split(maxsplit=1)
    return bool(words) and words[0].lower().strip("\"'(") in _CONDITION_OPENERS and "," not in left


def _dangles(left: str) -> bool:
    """The left side of a conjunction ends with a word that waits for its object: it is no clause of its own."""
    words = left.split()
    return bool(words) and words[-1].lower() in _DANGLING


def _closes_between(left_words: list[re.Match[str]]) -> bool:
    """The conjunction ends "between A": the left side's last "between" has no verb, comma or "and" after it (one
    "and" closes it: "between 0 and 1 and it equals ..." joins two clauses at the second)."""
    bare = [word.group().lower() for word in left_words]
    if "between" not in bare:
        return False
    after = left_words[len(bare) - bare[::-1].index("between") :]
    return not any(
        is_verb(word.group()) or word.group().endswith((",", ";")) or word.group().lower() == "and" for word in after
    )


def _cut_gap(local: str, gap_start: int, gap_end: int) -> tuple[int, int]:
    for pattern in _EQUATION_GAP_CUTS:
        found = list(pattern.finditer(local, gap_start, gap_end))
        if found:
            return found[-1].span()
    return gap_start, gap_start
