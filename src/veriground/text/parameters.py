"""Numbers that set up the case a sentence speaks of rather than state a value of it: "A tree with 10 vertices has 9
edges." speaks of any tree with 10 vertices; 10 is the case, 9 the value claimed for it.

A worked example with another case ("trees with $v=2$ vertices ... it has $e = 1$ edge") states values of that case,
not rivals of the claim's: the numeric signal and the lexical NLI compare a claim's values only with evidence that
holds its case numbers too, and never call a case number itself a mismatch. A case number follows an indefinite
subject and "with", "on", "having" or "containing" ("a graph on 6 vertices", "any set with 3 elements"), after any
subject "on" ("the complete graph on 5 vertices"), or joins one with "and" ("a tree with 10 vertices and 3 leaves").

A number inside a formula ("$5^5 - {5 \\choose 1}4^5$") is a constant of the expression, no value stated of
anything: only a number standing alone after "=" ("$v = 6$") states one (`expression_constants`). A question states
none ("Could a tree with 7 vertices have only 5 edges?"): `stated_quantities` is what a text states, for the numeric
signal and the lexical NLI alike. A number after "less than", "at most", "over" ... is a bound, not a value
(`bound_before`).
"""

from __future__ import annotations

import re

from veriground.text.memo import text_memo
from veriground.text.quantities import Quantity, extract_quantities
from veriground.text.sentences import inside, question_spans
from veriground.text.terms import normalise_text

# The words before a number that make it a bound, and the bound's name; the "no more than" kinds are tried first.
BOUNDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(?:at\s+most|no\s+more\s+than|not\s+more\s+than|up\s+to)\s*$", re.IGNORECASE), "at most"),
    (
        re.compile(r"\b(?:at\s+least|no\s+(?:less|fewer)\s+than|not\s+(?:less|fewer)\s+than)\s*$", re.IGNORECASE),
        "at least",
    ),
    (re.compile(r"\b(?:(?:less|fewer|lower)\s+than|under|below)\s*$", re.IGNORECASE), "under"),
    (re.compile(r"\b(?:(?:more|greater|higher)\s+than|over|above|exceeding)\s*$", re.IGNORECASE), "over"),
)
_BOUND_LOOK_BACK = 40

_CASE_BEFORE = re.compile(
    r"\b(?:a|an|any|every|each|some)\s+(?:[\w-]+\s+){1,3}(?:with|on|having|containing)\s+(?:exactly\s+|only\s+)?$"
    r"|\bthe\s+(?:[\w-]+\s+){1,3}on\s+$",
    re.IGNORECASE,
)
_MATH_SPAN = re.compile(r"\$\$.+?\$\$|\$[^$]+\$|\\\[.+?\\\]|\\\(.+?\\\)", re.DOTALL)
_STATED_IN_MATH = re.compile(r"=\s*$")
# What may stand between one case number and the next: its noun, then "and" or a comma.
_CASE_JOIN = re.compile(r"\s*[A-Za-z-]+\s*(?:,\s*and|,|and)\s+(?:exactly\s+|only\s+)?", re.IGNORECASE)
_LOOK_BACK = 80


@text_memo(maxsize=16_384)
def case_quantities(text: str) -> tuple[Quantity, ...]:
    """The quantities of `text` that set up its case (offsets into the normalised text, as extract_quantities gives)."""
    normal = normalise_text(text)
    cases: list[Quantity] = []
    for quantity in extract_quantities(text):
        joined = bool(cases) and _CASE_JOIN.fullmatch(normal, cases[-1].end, quantity.start) is not None
        if joined or _CASE_BEFORE.search(normal, max(0, quantity.start - _LOOK_BACK), quantity.start):
            cases.append(quantity)
    return tuple(cases)


@text_memo(maxsize=16_384)
def expression_constants(text: str) -> frozenset[int]:
    """Where the numbers of `text` that are constants of a formula start (offsets into the normalised text, as
    extract_quantities gives): those inside math that do not stand alone after "=" at the end of their formula."""
    normal = normalise_text(text)
    spans = [(match.start(), match.end()) for match in _MATH_SPAN.finditer(normal)]
    if not spans:
        return frozenset()
    constants = set()
    for quantity in extract_quantities(text):
        span = next(((a, b) for a, b in spans if a <= quantity.start < b), None)
        if span is None:
            continue
        rest = normal[quantity.end : span[1]].strip().strip("$").strip("\\])").strip()
        if not (_STATED_IN_MATH.search(normal, span[0], quantity.start) and not rest):
            constants.add(quantity.start)
    return frozenset(constants)


def bound_before(before: str) -> str | None:
    """The bound a number is when the words before it make it one ("less than": "under"), else None."""
    tail = before[-_BOUND_LOOK_BACK:]
    return next((name for pattern, name in BOUNDS if pattern.search(tail)), None)


@text_memo(maxsize=16_384)
def stated_quantities(text: str) -> tuple[tuple[Quantity, bool], ...]:
    """The quantities `text` states (none inside a question), each with whether it is a formula's constant (offsets
    into the normalised text, as extract_quantities gives)."""
    asked, constants = question_spans(normalise_text(text)), expression_constants(text)
    return tuple(
        (quantity, quantity.start in constants)
        for quantity in extract_quantities(text)
        if not inside(asked, quantity.start)
    )
