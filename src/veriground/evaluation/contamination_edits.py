"""Synthetic errors for the contamination study (seed 000 §6.1): a claim's text -> the same text with one error
injected, or None when the error does not apply to it. Every injector is deterministic in its input text.

The formal errors (issue 17: dimension, equation, complexity, out-of-range) edit the formal object a sentence holds,
found by the readers the formal checks use (signals/); whether a check then catches the edit is what is measured.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass

Injector = Callable[[str], str | None]

# A number that stands alone: not a subscript (v_0), an index (G2), a version (x.y.z) or part of a word.
_NUMBER = re.compile(r"(?<![\w.^_\\])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\d^_]|\.\d|(?:st|nd|rd|th)\b)")
_SIGNED_NUMBER = re.compile(r"(?<![\w)\]}])[-−](?=\d)")
# Units swapped without converting the value, so the quantity is off by orders of magnitude.
_UNIT_SWAPS = {
    "m/s": "km/h",
    "km/h": "m/s",
    "ms": "s",
    "s": "ms",
    "kg": "g",
    "g": "kg",
    "seconds": "milliseconds",
    "milliseconds": "seconds",
    "kilograms": "grams",
    "grams": "kilograms",
    "meters per second": "kilometers per hour",
    "kilometers per hour": "meters per second",
}
# A short unit counts only right after a number ("3.00 s"); spelled-out units count anywhere.
_UNIT = re.compile(
    r"(?:(?<=\d)|(?<=\d )|(?<=\d\u00a0))(m/s|km/h|ms|kg|s|g)(?![\w/^])"
    r"|\b(meters per second|kilometers per hour|milliseconds|seconds|kilograms|grams)\b",
    re.IGNORECASE,
)
_SIGN_WORDS = {"positive": "negative", "negative": "positive"}
_SIGN_WORD = re.compile(r"\b(positive|negative)\b", re.IGNORECASE)
# Pairs of terms that both occur in the demo corpus; each is swapped for the other (test_eval_contamination checks
# that they occur).
TERM_SWAPS = (
    ("velocity", "acceleration"),
    ("kinetic energy", "potential energy"),
    ("displacement", "distance"),
    ("mass", "weight"),
    ("vertices", "edges"),
    ("vertex", "edge"),
    ("merge sort", "quicksort"),
    ("mergesort", "quicksort"),
    ("subset", "element"),
)
_TERMS = {a: b for a, b in TERM_SWAPS} | {b: a for a, b in TERM_SWAPS}
_TERM = re.compile(r"\b(" + "|".join(sorted(map(re.escape, _TERMS), key=len, reverse=True)) + r")\b", re.IGNORECASE)
_NEGATION_REMOVALS = (
    (re.compile(r"\bcannot\b"), "can"),
    (re.compile(r"\b(does|do|is|are|was|were|has|have|will|can|should|must)n[’']t\b"), r"\1"),
    (re.compile(r"\b(\w+) not\b"), r"\1"),
    (re.compile(r"\bnever\b"), "always"),
)
# Word forms of text/cues.ANTONYM_PAIRS that read as their pair's opposite wherever they stand ("even", "over",
# "first", "more", "falls", "directed", "paid", "possible" are left out: "even if", "over time", "at first", "more or
# less", "Niagara Falls", "directed by", "paid attention", "whenever possible" are not one side of a pair). Not the
# training edits' list (training/synthetic_pairs._ANTONYMS, a layer above): that one keeps "first"/"last", "more" and
# "gain"/"lose", and changing it would change the shipped model's training mix.
_ANTONYM_FORMS = (
    ("increases", "decreases"), ("increase", "decrease"), ("increased", "decreased"), ("higher", "lower"),
    ("larger", "smaller"), ("greater", "smaller"), ("bigger", "smaller"), ("faster", "slower"),
    ("heavier", "lighter"), ("maximum", "minimum"), ("ascending", "descending"), ("inside", "outside"),
    ("internal", "external"), ("valid", "invalid"), ("finite", "infinite"), ("directly", "inversely"),
    ("sorted", "unsorted"), ("weighted", "unweighted"), ("connected", "disconnected"), ("cyclic", "acyclic"),
    ("attract", "repel"), ("attracts", "repels"), ("absorbs", "emits"), ("exothermic", "endothermic"),
    ("required", "optional"), ("mandatory", "optional"), ("allowed", "prohibited"), ("eligible", "ineligible"),
    ("legal", "illegal"), ("positive", "negative"), ("stable", "unstable"), ("before", "after"),
    ("earlier", "later"),
)  # fmt: skip
_NEGATED_BEFORE = re.compile(r"\b(?:not|no|never|neither|nor|cannot)\b|n't\b", re.I)
_ANTONYMS = {a: b for a, b in _ANTONYM_FORMS} | {b: a for a, b in reversed(_ANTONYM_FORMS)}
_ANTONYM = re.compile(r"\b(" + "|".join(sorted(map(re.escape, _ANTONYMS), key=len, reverse=True)) + r")\b", re.I)
_AUXILIARY = re.compile(r"\b(is|are|was|were|can|will|should|must|does|do|has|have)\b")
# Named results of the demo corpus, each attributed to a different one.
_MISATTRIBUTIONS = (
    (re.compile(r"\b(Newton[’']s) (first|second|third) (law)", re.IGNORECASE), None),
    (re.compile(r"\bwork[–-]?\s?energy theorem\b", re.IGNORECASE), "Pythagorean theorem"),
    (re.compile(r"\bPythagorean theorem\b", re.IGNORECASE), "work–energy theorem"),
    (re.compile(r"\bhandshake lemma\b", re.IGNORECASE), "pigeonhole principle"),
)
_NEXT_LAW = {"first": "second", "second": "third", "third": "first"}
# Fluent claims on topics the demo corpus (kinematics, Newton's laws, work and energy, sorting, trees, graphs, sets,
# US federal HR and travel policy) does not cover.
OUT_OF_SCOPE_CLAIMS = (
    "Mitochondria produce most of a cell's ATP through oxidative phosphorylation.",
    "The Treaty of Westphalia ended the Thirty Years' War in 1648.",
    "Photosynthesis converts carbon dioxide and water into glucose and oxygen.",
    "The Great Barrier Reef is the largest coral reef system in the world.",
    "Baroque music often relies on a continuous bass line called the basso continuo.",
    "Sourdough bread rises because wild yeast and lactic acid bacteria ferment the dough.",
    "The Mariana Trench is the deepest known part of the world's oceans.",
    "Impressionist painters tried to capture the changing effects of natural light.",
    "Insulin is a hormone made by the pancreas that lowers blood glucose.",
    "The French Revolution began with the storming of the Bastille in 1789.",
    "A haiku is a Japanese poem of three lines with five, seven and five syllables.",
    "Plate tectonics explains how continents drift across the Earth's mantle.",
    "The Rosetta Stone helped scholars decipher Egyptian hieroglyphs.",
    "Chess openings such as the Sicilian Defence are studied by competitive players.",
    "Vaccines train the immune system to recognise a specific pathogen.",
    "The Amazon River carries more water than any other river on Earth.",
    "Olive oil is pressed from the fruit of the olive tree.",
    "Shakespeare wrote the tragedy Hamlet around the year 1600.",
    "Monsoon winds bring heavy seasonal rains to South Asia.",
    "DNA is copied by DNA polymerase during cell division.",
)


@dataclass(frozen=True)
class ErrorType:
    """One kind of injected error: its name, its family (numeric, conceptual, out-of-scope) and its injector."""

    name: str
    family: str
    inject: Injector


def change_constant(text: str) -> str | None:
    """The first number scaled ×10 or /10, or increased by 1 (chosen by the text's checksum)."""
    match = _NUMBER.search(text)
    if match is None:
        return None
    raw = match.group(1).replace(",", "")
    decimals = len(raw.split(".")[1]) if "." in raw else 0
    value = float(raw)
    choice = zlib.crc32(text.encode()) % 3
    if choice == 0:
        changed, decimals = value * 10, max(decimals - 1, 0)
    elif choice == 1 and value != 0:
        changed, decimals = value / 10, decimals + 1
    else:
        changed = value + 1
    return text[: match.start(1)] + f"{changed:.{decimals}f}" + text[match.end(1) :]


def change_unit(text: str) -> str | None:
    """The first unit swapped for another of the same dimension (m/s ↔ km/h, s ↔ ms, kg ↔ g), value unchanged."""
    match = _UNIT.search(text)
    if match is None:
        return None
    unit = match.group(0)
    replacement = _UNIT_SWAPS[unit.lower()]
    if unit[:1].isupper():
        replacement = replacement[:1].upper() + replacement[1:]
    return text[: match.start()] + replacement + text[match.end() :]


def flip_sign(text: str) -> str | None:
    """A negative number made positive, else positive ↔ negative, else the first number negated."""
    signed = _SIGNED_NUMBER.search(text)
    if signed is not None:
        return text[: signed.start()] + text[signed.end() :]
    word = _SIGN_WORD.search(text)
    if word is not None:
        return text[: word.start()] + same_case(word.group(0), _SIGN_WORDS[word.group(0).lower()]) + text[word.end() :]
    number = _NUMBER.search(text)
    if number is None:
        return None
    return text[: number.start(1)] + "−" + text[number.start(1) :]


def swap_terms(text: str) -> str | None:
    """Every occurrence of a paired corpus term swapped with its partner (velocity ↔ acceleration, …)."""
    if _TERM.search(text) is None:
        return None
    return _TERM.sub(lambda m: same_case(m.group(0), _TERMS[m.group(0).lower()]), text)


def swap_antonym(text: str) -> str | None:
    """The first word of an unambiguous antonym pair (increases ↔ decreases, faster ↔ slower, …) replaced by its
    partner (`calibrate --antonym-rows`)."""
    match = _ANTONYM.search(text)
    if match is None or _NEGATED_BEFORE.search(text[: match.start()]):  # "not faster" -> "not slower" is no opposite
        return None
    word = match.group(0)
    return text[: match.start()] + same_case(word, _ANTONYMS[word.lower()]) + text[match.end() :]


def toggle_negation(text: str) -> str | None:
    """The first negation removed ("cannot" → "can", "is not" → "is"), else "not" after the first auxiliary."""
    for pattern, replacement in _NEGATION_REMOVALS:
        if pattern.search(text) is not None:
            return pattern.sub(replacement, text, count=1)
    auxiliary = _AUXILIARY.search(text)
    if auxiliary is None:
        return None
    return text[: auxiliary.end()] + " not" + text[auxiliary.end() :]


def misattribute(text: str) -> str | None:
    """A named law or theorem replaced by another (Newton's second law → third, work–energy → Pythagorean)."""
    for pattern, replacement in _MISATTRIBUTIONS:
        match = pattern.search(text)
        if match is None:
            continue
        if replacement is None:
            ordinal = match.group(2)
            new = f"{match.group(1)} {same_case(ordinal, _NEXT_LAW[ordinal.lower()])} {match.group(3)}"
        else:
            new = replacement
        return text[: match.start()] + new + text[match.end() :]
    return None


def replace_out_of_scope(text: str) -> str | None:
    """A fluent claim on a topic the corpus does not cover, chosen by the text's checksum."""
    return OUT_OF_SCOPE_CLAIMS[zlib.crc32(text.encode()) % len(OUT_OF_SCOPE_CLAIMS)]


ERROR_TYPES = (
    ErrorType("constant", "numeric", change_constant),
    ErrorType("unit", "numeric", change_unit),
    ErrorType("sign", "numeric", flip_sign),
    ErrorType("swapped-terms", "conceptual", swap_terms),
    ErrorType("negation", "conceptual", toggle_negation),
    ErrorType("misattribution", "conceptual", misattribute),
    ErrorType("out-of-scope", "out-of-scope", replace_out_of_scope),
)
ERROR_FAMILIES = tuple(dict.fromkeys(error.family for error in ERROR_TYPES))


# --- formal errors (issue 17) ----------------------------------------------------------------------------------

# Exponents swapped for a dimension error, in the order tried on the right side of an equation.
_EXPONENT_SWAPS = (("²", "³"), ("^{2}", "^{3}"), ("^2", "^3"), ("³", "²"), ("^{3}", "^{2}"), ("^3", "^2"))
_SYMBOL = re.compile(r"[A-Za-zα-ωΔ](?:_\{[^{}]*\}|_\(?\w+\)?)?")
# A unit of another dimension for a named quantity: a mass unit becomes a length, anything else a mass.
_WRONG_UNIT = {"[mass]": "m"}
_OTHER_UNIT = "kg"
# An order of growth replaced by a different one, by canonical order (signals/complexity.py spells them so).
WRONG_ORDERS = {"n log n": "n^2", "n^2": "n log n", "n": "n^2", "log n": "n", "1": "n", "n^3": "n^2"}
_FALLBACK_ORDER = "n^3"
# "O(x)" for "x is odd" (discrete mathematics): a predicate of a logic variable, not a bound.
_PREDICATE = re.compile(r"O\([xyz]\)")
# A stated constant moved well outside its tolerance (signals/constants.py allows a few per cent).
OUT_OF_RANGE_FACTOR = 10


def break_dimension(text: str) -> str | None:
    """A dimension error: in the first equation whose symbols all have a dimension (signals/dimensions.py), an
    exponent on the right side changed (v² → v³) or its last symbol squared; else the unit of a named quantity
    replaced by one of another dimension ("an acceleration of 9.8 m/s²" → "9.8 kg")."""
    from veriground.signals.dimensions import check_dimensions
    from veriground.signals.equation_check import find_parsed_equations
    from veriground.signals.unit_dimension import find_unit_dimension_findings

    for located in find_parsed_equations(text)[0]:
        verdict = check_dimensions(located.equation.expressions)
        if not (verdict.applies and verdict.consistent):
            continue
        wrong = _exponent_changed(text[located.start : located.end])
        if wrong is not None:
            return text[: located.start] + wrong + text[located.end :]
    for finding in find_unit_dimension_findings(text):
        if finding.consistent:
            quantity = finding.located
            written = text[quantity.start : quantity.end]
            unit = quantity.quantity.unit or ""
            if not written.endswith(unit):
                continue  # the unit was written with superscripts; its normalised spelling is not in the text
            other = _WRONG_UNIT.get(quantity.normal.dimension, _OTHER_UNIT)
            return text[: quantity.end - len(unit)] + other + text[quantity.end :]
    return None


def change_equation(text: str) -> str | None:
    """An equation error: the first equation's right side scaled, an integer on it (not an index or exponent) plus
    one, else the side doubled ("KE = 1/2 m v^2" → "KE = 1/3 m v^2", "F = ma" → "F = 2(ma)")."""
    from veriground.signals.equation_check import find_parsed_equations
    from veriground.signals.formal import has_written_unit

    for located in find_parsed_equations(text)[0]:
        written = text[located.start : located.end]
        if has_written_unit(written):
            continue  # "1 N = 0.225 lb", "g = 9.8 m/s^2": a value with a unit, not a formula
        sides = located.equation.sides
        right = next((side for side in sides[1:] if re.search(r"[A-Za-zα-ω]", side)), None)
        if right is None or (at := written.find(right, written.find(sides[0]) + len(sides[0]))) < 0:
            continue
        subscripts = [m.span() for m in re.finditer(r"_\{[^{}]*\}|_\w+|\^\{?[\d.]+\}?|\\[A-Za-z]+", right)]
        numbers = [
            m
            for m in re.finditer(r"(?<![\w.])(\d+)(?![\d.])", right)
            if not any(a <= m.start() < b for a, b in subscripts)
        ]
        if numbers:
            number = numbers[0]
            wrong = right[: number.start()] + str(int(number.group(1)) + 1) + right[number.end() :]
        else:
            wrong = f"2({right})"
        edited = written[:at] + wrong + written[at + len(right) :]
        return text[: located.start] + edited + text[located.end :]
    return None


def change_bound(text: str) -> str | None:
    """A complexity error: the first written bound (O(…), Θ(…), Ω(…)) of a named algorithm or operation given
    another order of growth (O(n log n) → O(n^2), O(n^2) → O(n log n), O(log n) → O(n))."""
    return _change_bound(text, named=True)


def change_unnamed_bound(text: str) -> str | None:
    """`change_bound` for a bound whose sentence names no algorithm or operation ("operations that run in O(log n)
    time"): the complexity check compares bounds of the same algorithm, so this measures what the NLI catches."""
    return _change_bound(text, named=False)


def _change_bound(text: str, *, named: bool) -> str | None:
    from veriground.signals.complexity import find_bounds

    for bound in find_bounds(text)[0]:
        if (bound.algorithm is not None) != named or _PREDICATE.fullmatch(bound.text):
            continue
        opening = bound.text.find("(")
        if opening < 0 or not bound.text.endswith(")"):
            continue  # a bound in words ("quadratic time")
        wrong = WRONG_ORDERS.get(bound.order, _FALLBACK_ORDER)
        edited = bound.text[: opening + 1] + wrong + ")"
        return text[: bound.start] + edited + text[bound.end :]
    return None


def push_out_of_range(text: str) -> str | None:
    """An out-of-range error: the first stated value of a physical constant (signals/constants.py) within its range
    multiplied by 10 ("g = 9.80 m/s²" → "g = 98.0 m/s²")."""
    from veriground.signals.constants import find_constant_findings

    for finding in find_constant_findings(text):
        if not finding.in_range:
            continue
        quantity = finding.located
        match = _NUMBER.search(text, quantity.start, quantity.end)
        if match is None:
            continue
        raw = match.group(1).replace(",", "")
        decimals = len(raw.split(".")[1]) if "." in raw else 0
        changed = float(raw) * OUT_OF_RANGE_FACTOR
        return text[: match.start(1)] + f"{changed:.{max(decimals - 1, 0)}f}" + text[match.end(1) :]
    return None


FORMAL_ERROR_TYPES = tuple(
    ErrorType(name, "formal", inject)
    for name, inject in (
        ("dimension", break_dimension),
        ("equation", change_equation),
        ("complexity", change_bound),
        ("complexity-unnamed", change_unnamed_bound),
        ("out-of-range", push_out_of_range),
    )
)


def _exponent_changed(equation: str) -> str | None:
    left, sep, right = equation.partition("=")
    for old, new in _EXPONENT_SWAPS:
        if old in right:
            return left + sep + right.replace(old, new, 1)
    last = max(_SYMBOL.finditer(right), key=lambda m: m.end(), default=None)
    if last is None or right[last.end() : last.end() + 1] == "(":
        return None
    return left + sep + right[: last.end()] + "^2" + right[last.end() :]


def same_case(original: str, replacement: str) -> str:
    """`replacement` capitalised when `original` is."""
    return replacement[:1].upper() + replacement[1:] if original[:1].isupper() else replacement
