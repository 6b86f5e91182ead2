"""The change a sentence shows with its own numbers, and the change a claim names in words.

- `shown_change(text)`: "net income was $94.8 million, that compares to $106.6 million last year" shows "down". The
  quantities before a comparison cue ("compared to", "compares with", "versus", "vs.") pair, in order, with those
  after it, up to the sentence's end or the next cue, when there are as many on each side: "$94.8 million or $0.91 a
  share, compared to $106.6 million or $1.04" pairs millions with millions and per-share figures with per-share
  figures, and "$106.6 million, or $1.04 a share, compared to $94.8 million" pairs nothing. A comparison with a
  forecast ("versus analyst estimates of $4.3 billion") shows no change. A pair counts
  only when its quantities are in the same role (text/quantities.py comparable_quantities: dimension, currency or
  counted noun) and neither is a year ("2020 compared to 2019" orders dates, not amounts). A sentence whose pairs
  point both ways shows no change (None).
- `named_change(text)`: "up" for a word of increase (increase, rise, grow, gain, climb, ...), "down" for a word of
  decrease, None for neither, both, or a negated sentence.

NLI models read such sentences poorly: "a decrease in net income compared to last year" against the sentence above
scored contradiction 0.97. The aggregator (verdicts/aggregator.py) reads the two together.
"""

from __future__ import annotations

import re

from veriground.errors import UnitConversionError
from veriground.text.memo import text_memo
from veriground.text.quantities import (
    NormalQuantity,
    comparable_quantities,
    extract_quantities,
    is_year,
    normalise_quantity,
)
from veriground.text.sentences import sentence_spans
from veriground.text.terms import is_negation, tokenize_words

UP, DOWN = "up", "down"
_COMPARISON_CUE = re.compile(r"\bcompar(?:ed|es|ing)\s+(?:to|with)\b|\bversus\b|\bvs\b\.?", re.IGNORECASE)
# "versus analyst estimates of $4.3 billion": a comparison with a forecast, not with an earlier value.
_FORECAST = re.compile(
    r"\s*(?:the\s+|an?\s+|our\s+|their\s+|its\s+)?(?:\w+\s+)?(?:estimates?|expectations?|forecasts?|consensus|"
    r"guidance|targets?|budget(?:ed)?|plan(?:ned)?|projections?|predictions?)\b",
    re.IGNORECASE,
)
# Words that name a direction whatever is measured: not "improve" (lower unemployment is an improvement), "higher" or
# "lower" ("higher education", "a lower bound"), "fall" or "falls" (a season, a waterfall).
_UP = """
increase increased increases increasing rise rises rose risen rising grow grows grew grown growing growth gain gains
gained climb climbs climbed jump jumped jumps surge surged surges expand expanded expands boost boosted
"""
_DOWN = """
decrease decreased decreases decreasing decline declined declines declining fell fallen falling drop dropped drops
lowered reduce reduced reduces reduction shrink shrank shrinks dip dipped dips slump slumped slumps
"""
_UP_WORDS, _DOWN_WORDS = frozenset(_UP.split()), frozenset(_DOWN.split())
_WORD = re.compile(r"[a-z]+")
_YEAR = re.compile(r"1\d{3}|20\d{2}")


@text_memo(maxsize=4096)  # a claim is read against each of its evidence units
def named_change(text: str) -> str | None:
    """The direction the text's words name: UP, DOWN, or None for neither, both, or a negated sentence ("net income did
    not decrease")."""
    if any(is_negation(word) for word in tokenize_words(text)):
        return None
    words = set(_WORD.findall(text.lower()))
    up, down = bool(words & _UP_WORDS), bool(words & _DOWN_WORDS)
    return UP if up and not down else DOWN if down and not up else None


@text_memo(maxsize=16_384)  # every claim that reads a unit asks again
def shown_change(text: str) -> str | None:
    """The direction the text's compared quantities show (current before the cue, reference after it), or None."""
    if not _COMPARISON_CUE.search(text):
        return None
    found: set[str] = set()
    for start, end in sentence_spans(text) or [(0, len(text))]:
        sentence = text[start:end]
        cues = list(_COMPARISON_CUE.finditer(sentence))
        if not cues:
            continue
        quantities = _quantities(sentence)
        bounds = [0, *(cue.start() for cue in cues), len(sentence)]
        for index, cue in enumerate(cues):
            before = [q for q in quantities if bounds[index] <= q[0] < cue.start()]
            after = [q for q in quantities if cue.end() <= q[0] < bounds[index + 2]]
            if len(before) != len(after) or _FORECAST.match(sentence, cue.end()):
                continue  # which figure answers which cannot be told; a forecast is no earlier value
            for (_, current), (_, reference) in zip(before, after, strict=True):
                if comparable_quantities(current, reference) and current.base_value != reference.base_value:
                    found.add(UP if current.base_value > reference.base_value else DOWN)
    return found.pop() if len(found) == 1 else None


def _quantities(sentence: str) -> list[tuple[int, NormalQuantity]]:
    located = []
    for quantity in extract_quantities(sentence):
        if is_year(quantity) or _YEAR.fullmatch(sentence[quantity.start : quantity.end]):
            continue  # "in 2020 compared to ..." reads 2020 as a count of what follows
        try:
            located.append((quantity.start, normalise_quantity(quantity)))
        except UnitConversionError:
            continue
    return located
