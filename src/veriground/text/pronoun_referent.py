"""A passage that opens with a pronoun, read with the claim's named subject in its place.

"Kelly Preston starred in the film Broken Bridges." against the passage "She also starred in the films The Cat in the
Hat, Old Dogs, and Broken Bridges." reads 0.35 entailment and 0.53 contradiction with the shipped model: it takes
"She", who could be anyone, for someone other than Kelly Preston. The passage names no one the pronoun could stand
for: its referent is in the text before the passage (the article it was cut from, whose title is often the claim's
subject). On FEVER-symmetric's held-out rows, claims whose evidence opened with such a pronoun were wrongly rejected
26 times in 41 when supported, against 82 in 310 for the others.

So the NLI reads such a unit with its opening pronoun put as the claim's subject ("Kelly Preston also starred in
...", "His nickname" as "James Jones's nickname"), only when
- the unit is the start of its passage, so the passage names nobody before the pronoun that it could stand for;
- the claim opens with a name written with capitals ("Kelly Preston", "The Bloods", "Goosebumps (film)"), which
  the unit never mentions: a unit that names it needs no reading, and a claim about "merge sort" is not read into
  an "It" that may be quicksort's;
- the pronoun can stand for a name: "He", "She", "They", "His", "Her", "Their" (a person, a group, a band), or "It",
  "Its" for a name that is not a person's (no test tells them apart: "It" is read as any name).
The report still shows the passage as written; only what the model reads changes (verdicts/support.py).
"""

from __future__ import annotations

import re

from veriground.text.terms import STOPWORDS

_OPENING = re.compile(r"(?P<pronoun>He|She|It|They|His|Her|Its|Their)\b")
_POSSESSIVE = frozenset({"His", "Her", "Its", "Their"})
# The claim's opening name: capitalised words, with joining words and a bracketed kind ("Goosebumps (film)") inside.
_NAME = re.compile(
    r"(?P<name>(?:The\s+)?[A-Z][\w'.&-]*(?:\s+(?:(?:of|the|and|de|van|von|der|da|di|la|le)\s+)*[A-Z0-9][\w'.&-]*)*"
    r"(?:\s*\(\s*[a-z][\w ]*\))?)"
)
# Words that open a sentence with a capital and name nothing (STOPWORDS has the rest: "Some", "Each", "Our").
_OPENING_WORDS = frozenset(
    {"several", "many", "most", "all", "every", "few", "certain", "various", "numerous", "no", "one", "two", "three"}
    | {"after", "before", "although", "since"}
)
_NOT_NAMES = frozenset({"The", "A", "An", "This", "That", "These", "Those", "It", "He", "She", "They", "There", "In"})


def name_the_pronoun(unit: str, claim: str, at_passage_start: bool) -> str | None:
    """The unit with its opening pronoun put as the claim's opening name, or None when it is not to be read so (see
    the module's note)."""
    if not at_passage_start:
        return None
    opening = _OPENING.match(unit)
    name = _opening_name(claim)
    if opening is None or name is None or _mentions(unit, name):
        return None
    pronoun = opening.group("pronoun")
    shown = f"{name}'s" if pronoun in _POSSESSIVE else name
    return shown + unit[opening.end() :]


def _opening_name(claim: str) -> str | None:
    match = _NAME.match(claim.lstrip())
    if match is None:
        return None
    name = match.group("name").strip()
    words = name.split()
    if words[0] in _NOT_NAMES and len(words) == 1 or words[-1] in _NOT_NAMES:
        return None
    if words[0] != "The" and (words[0].lower() in STOPWORDS or words[0].lower() in _OPENING_WORDS):
        return None  # "Several gangs", "Most", "Our", "After the war": no name
    return name


def _mentions(unit: str, name: str) -> bool:
    """Whether the unit uses a capitalised word of the name (its "The" aside): "Preston" of "Kelly Preston"."""
    words = {word for word in re.findall(r"[A-Z][\w'-]*", name) if word not in _NOT_NAMES}
    return any(re.search(rf"\b{re.escape(word)}\b", unit) for word in words)
