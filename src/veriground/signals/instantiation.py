"""A claim's counts put into an equation its evidence states over named counts: "A tree with 10 vertices has 9
edges." against "Let $T$ be a tree with $v$ vertices and $e$ edges. Then $e = v-1$." The evidence names v the
vertices and e the edges; the claim gives 10 vertices and 9 edges; 9 = 10 - 1 holds, so the claim is the evidence's
statement for one case. "... has 10 edges" fails it.

An evidence text names a variable by a noun in three ways: "$v$ vertices", "the number of vertices ($v$)" and "$v$ is
the number of vertices". An equation of the same text is instantiated only when
- each of its symbols (two at least) is named, and the claim gives a count of each one's noun ("10 vertices");
- each of the claim's numbers is one of those counts, none a bound ("at most 9 edges") and the claim negates nothing;
- every other content word of the claim is in the evidence sentences from the first naming to the equation, so "A
  forest with 10 vertices has 9 edges" is not read against a theorem about trees.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from veriground.signals.equation_check import LocatedEquation, evidence_equations
from veriground.text.content import content_stems
from veriground.text.memo import text_memo
from veriground.text.parameters import bound_before
from veriground.text.quantities import extract_quantities
from veriground.text.quantity_spans import normalise_with_offsets
from veriground.text.readable import readable_text
from veriground.text.sentences import sentence_spans
from veriground.text.terms import STOPWORDS, is_negation, stem_words, tokenize_words

_VARIABLE = r"\$\s*([A-Za-z])\s*\$"
_NAMINGS = (
    re.compile(_VARIABLE + r"\s+([A-Za-z]+)"),  # "$v$ vertices"
    re.compile(r"\bnumber\s+of\s+([A-Za-z]+)\s*(?:\(\s*|,\s*)" + _VARIABLE),  # "the number of vertices ($v$)"
    re.compile(_VARIABLE + r"\s+(?:is|be|denotes?)\s+the\s+number\s+of\s+([A-Za-z]+)"),  # "$v$ is the number of ..."
)
_NAME_FIRST = 1  # the naming whose noun comes before its variable
_NOT_NOUNS = STOPWORDS | {"denote", "denotes"}
# Words that restate what an equation over named counts already says: "every tree", "exactly 9 edges", "always".
_RESTATING_WORDS = frozenset(stem_words(["every", "any", "each", "exactly", "precisely", "always"]))


@dataclass(frozen=True)
class Instantiation:
    """An evidence equation with the claim's counts put in: whether it holds, and what was compared."""

    holds: bool
    equation: LocatedEquation  # spans index the evidence text
    values: tuple[tuple[str, str], ...]  # (symbol, the claim's value as written), in symbol order
    claim_span: tuple[int, int]  # from the claim's first count to its last


def instantiate(claim_text: str, evidence_text: str) -> Instantiation | None:
    """The first equation of `evidence_text` that the claim's counts instantiate (see the module's note), or None."""
    if "=" not in evidence_text:  # no equation to put the counts into
        return None
    counts = _claim_counts(claim_text)
    if counts is None:
        return None
    namings = _namings(evidence_text)
    if len(namings) < 2:
        return None
    for located in evidence_equations(evidence_text):
        symbols = sorted(set().union(*(side.free_symbols for side in located.equation.expressions)), key=str)
        names = [namings.get(str(symbol)) for symbol in symbols]
        if len(symbols) < 2 or None in names:
            continue
        nouns = {name.noun for name in names if name is not None}
        if len(nouns) < len(names) or nouns != set(counts.values_by_noun):
            continue
        named_at = min(name.start for name in names if name is not None)
        first = max((start for start, _ in sentence_spans(evidence_text) if start <= named_at), default=0)
        rest = counts.words - nouns
        if not rest <= content_stems(readable_text(evidence_text[first : located.end])):
            continue
        values = {symbol: counts.values_by_noun[name.noun] for symbol, name in zip(symbols, names, strict=True) if name}
        return Instantiation(
            _holds(located, values), located, tuple((str(s), str(v)) for s, v in values.items()), counts.span
        )
    return None


@dataclass(frozen=True)
class _Name:
    noun: str  # the noun's stem
    start: int  # where the naming starts in the evidence text


@dataclass(frozen=True)
class _Counts:
    values_by_noun: dict[str, int]  # noun stem -> the claim's count
    words: frozenset[str]  # the claim's content stems
    span: tuple[int, int]


def _claim_counts(claim_text: str) -> _Counts | None:
    """The claim's counts by noun stem ("10 vertices", "ten vertices"), when every number it states is such a count
    (none a bound) and it negates nothing; None otherwise."""
    if any(is_negation(word) for word in tokenize_words(claim_text)):
        return None
    normal, offsets = normalise_with_offsets(claim_text)
    found = extract_quantities(normal)
    if len(found) < 2:
        return None
    counts: dict[str, int] = {}
    for quantity in found:
        label = quantity.label or ""
        if quantity.unit is not None or not label.startswith("count:") or not float(quantity.value).is_integer():
            return None
        noun = label.removeprefix("count:")
        if noun in counts or bound_before(normal[: quantity.start]):
            return None
        counts[noun] = int(quantity.value)
    words = content_stems(readable_text(claim_text)) - _RESTATING_WORDS
    return _Counts(counts, words, (offsets[found[0].start], offsets[found[-1].end]))


@text_memo(maxsize=4096)
def _namings(text: str) -> dict[str, _Name]:
    """Variable -> the noun it counts, for variables named once (a letter named by two nouns is left out)."""
    named: dict[str, _Name] = {}
    clashes: set[str] = set()
    for index, pattern in enumerate(_NAMINGS):
        for match in pattern.finditer(text):
            noun, variable = (match.group(1), match.group(2)) if index == _NAME_FIRST else match.group(2, 1)
            if noun.lower() in _NOT_NOUNS:  # "$n$ be the number of vertices": the third naming reads it
                continue
            name = _Name(stem_words([noun.lower()])[0], match.start())
            if variable in named and named[variable].noun != name.noun:
                clashes.add(variable)
            named.setdefault(variable, name)
    return {variable: name for variable, name in named.items() if variable not in clashes}


def _holds(located: LocatedEquation, values: dict[object, int]) -> bool:
    sides = [
        side.subs({symbol: Fraction(value) for symbol, value in values.items()})
        for side in located.equation.expressions
    ]
    return all(side == sides[0] for side in sides[1:])
