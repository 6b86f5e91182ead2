"""The quantity a sentence names ("an acceleration of 9.8 kg") vs the dimension of the unit given to it.

A quantity word (QUANTITY_UNITS) counts only when the number follows it through linking words alone
("acceleration of", "speed is about", "force =") so "a speed of 30 m/s for 10 s" reads 30 m/s as the speed and
leaves 10 s alone. Compound names whose head word means something else ("energy density", "power of 10") are
skipped, never guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from veriground.signals.dimensions import dimensionality_of
from veriground.text.quantity_spans import LocatedQuantity, locate_quantities

# Quantity word → the SI unit of that quantity. Left out as too often used loosely: weight (said in kg), work
# ("40 hours of work"), heat, charge (fees), current (as in "current year"), time ("time of 5 pm" is a clock time),
# height and length (the "height" of a triangle under a velocity graph is in m/s; an arrow's length is a scale).
QUANTITY_UNITS: dict[str, str] = {
    "acceleration": "meter / second ** 2",
    "deceleration": "meter / second ** 2",
    "speed": "meter / second",
    "velocity": "meter / second",
    "force": "newton",
    "energy": "joule",
    "mass": "kilogram",
    "power": "watt",
    "pressure": "pascal",
    "momentum": "kilogram * meter / second",
    "density": "kilogram / meter ** 3",
    "frequency": "hertz",
    "distance": "meter",
    "displacement": "meter",
    "wavelength": "meter",
    "radius": "meter",
    "temperature": "kelvin",
    "voltage": "volt",
    "resistance": "ohm",
    "torque": "newton * meter",
    "impulse": "newton * second",
    "duration": "second",
    "period": "second",
}
# A word before the quantity word that makes it another quantity: "energy density", "angular velocity".
_OTHER_QUANTITY_MODIFIER_LIST = (
    "angular energy power charge current number flux probability linear surface area population optical spectral "
    "momentum heat sound radiation mass-energy rest specific thermal orbital"
)
_OTHER_QUANTITY_MODIFIERS = frozenset(_OTHER_QUANTITY_MODIFIER_LIST.split())
# Words allowed between the quantity word and its number. "at" is left out ("velocity at 5 s" is a time), and so
# are articles: in "the momentum of a 0.410 kg football" the number describes the football.
_LINKING_WORD_LIST = (
    "of is was were are be been equals equal to about approximately roughly around nearly almost exactly only "
    "just over under than more less constant average magnitude value measured given reaches reached has had "
    "will would must should can typically usually"
)
_LINKING_WORDS = frozenset(_LINKING_WORD_LIST.split())
_LINKING_SYMBOLS = frozenset("=:≈~")
_QUANTITY_WORD = re.compile(r"\b(?P<word>" + "|".join(QUANTITY_UNITS) + r")(?:s|es)?\b", re.IGNORECASE)
_GAP_TOKEN = re.compile(r"[A-Za-z]+|[=:≈~]|\S")
_PREVIOUS_WORD = re.compile(r"([A-Za-z-]+)\s*$")
# Pounds are a mass in pint, but "a force of 10 pounds" is everyday usage for pound-force.
POUND_UNITS = frozenset({"lb", "lbs", "pound", "pounds"})
MAX_LINKING_WORDS = 5
# A quantity followed by "of <something>" measures that thing, not the quantity word before it.
_OF_SUBSTANCE = re.compile(r"\s+of\b")
_DEFINITE = re.compile(r"\b(?:the|its|their|this|that|his|her)\s+$", re.IGNORECASE)
_WORD_AFTER = re.compile(r"\s+[A-Za-z]{2,}")


@dataclass(frozen=True)
class UnitDimensionFinding:
    """A named quantity, the number given for it and whether the unit has that quantity's dimension."""

    word: str
    located: LocatedQuantity
    word_start: int  # offsets into the original text
    expected_unit: str
    expected_dimension: str
    consistent: bool


def find_unit_dimension_findings(text: str) -> list[UnitDimensionFinding]:
    """Every "quantity word … number unit" pair in `text`, judged by dimension."""
    normal, offsets, located = locate_quantities(text)
    findings = []
    words = list(_QUANTITY_WORD.finditer(normal))
    for quantity in located:
        normal_start = quantity.quantity.start
        candidates = [word for word in words if word.end() <= normal_start]
        if not candidates:
            continue
        word = candidates[-1]
        if not _only_linking_words(normal[word.end() : normal_start]):
            continue
        previous = _PREVIOUS_WORD.search(normal, 0, word.start())
        if previous and previous.group(1).lower() in _OTHER_QUANTITY_MODIFIERS:
            continue
        if _OF_SUBSTANCE.match(normal, quantity.quantity.end):  # "the temperature of 1.00 kg of gold"
            continue
        if _DEFINITE.search(normal, 0, word.start()) and _WORD_AFTER.match(normal, quantity.quantity.end):
            continue  # "the temperature of 2 kg aluminum": the number describes the thing named after it
        if _symbol_reading(normal, quantity):
            continue  # "a truck with mass 30m … a sedan with mass m": 30m is 30 times the symbol m
        name = word.group("word").lower()
        expected_unit = QUANTITY_UNITS[name]
        expected = dimensionality_of(expected_unit)
        actual = quantity.normal.dimension
        unit = quantity.quantity.unit
        assert unit is not None  # locate_quantities keeps only quantities with a unit
        consistent = (
            actual == expected
            or (expected_unit == "newton" and unit.lower() in POUND_UNITS)
            or (name in {"acceleration", "deceleration"} and unit == "g")  # "45 g": multiples of standard gravity
        )
        word_start = offsets[word.start()]
        findings.append(UnitDimensionFinding(name, quantity, word_start, expected_unit, expected, consistent))
    return findings


def _symbol_reading(normal: str, quantity: LocatedQuantity) -> bool:
    unit = quantity.quantity.unit
    assert unit is not None  # locate_quantities keeps only quantities with a unit
    glued = normal[quantity.quantity.start : quantity.quantity.end].rstrip(unit)[-1:].isdigit()
    if len(unit) != 1 or not glued:
        return False
    return (
        re.search(rf"(?<![\w.]){re.escape(unit)}(?!\w)", normal[quantity.quantity.end :]) is not None
        or re.search(rf"(?<![\w.]){re.escape(unit)}(?!\w)", normal[: quantity.quantity.start]) is not None
    )


def _only_linking_words(gap: str) -> bool:
    tokens = _GAP_TOKEN.findall(gap)
    if len(tokens) > MAX_LINKING_WORDS:
        return False
    return all(token.lower() in _LINKING_WORDS or token in _LINKING_SYMBOLS for token in tokens)


# Named units without a number: "Work is measured in watts.", "The SI unit of force is the joule.", "The watt is the
# unit of energy." A student's slip a number-reading check never sees. These sentences name what they measure, so a
# few quantity words too loose beside a number ("40 hours of work") are read here.
NAMED_QUANTITY_UNITS: dict[str, str] = {
    **QUANTITY_UNITS,
    "work": "joule",
    "heat": "joule",
    "weight": "newton",
    "charge": "coulomb",
    "current": "ampere",
    "time": "second",
    "length": "meter",
}
_NAMED_WORD = "(?P<word>" + "|".join(NAMED_QUANTITY_UNITS) + r")(?:s|es)?"
# "the frequency of a wave", "the speed of sound in air": a quantity word of the strict list (QUANTITY_UNITS) with what
# it is of; the loose words stay bare ("the current of a river is measured in meters per second" is no electric current)
_STRICT_WORD_OF = (
    "(?P<word>"
    + "|".join(QUANTITY_UNITS)
    + r")(?:s|es)?\s+of\s+(?:(?:a|an|the)\s+)?[A-Za-z][\w'-]*(?:\s+[a-z][\w'-]*){0,3}"
)
_UNIT_PHRASE = r"(?P<unit>[A-Za-z][\w\-·/*^]*(?:\s+(?!and\b|or\b|but\b|while\b|which\b|that\b)[\w\-·/*^]+){0,3})"
# "... is usually measured in (units of) the ...", after the quantity
_MEASURED_IN = (
    rf"\s+(?:is|are)\s+(?:\w+ly\s+)?(?:measured|expressed|given|quoted|reported)\s+in\s+(?:units\s+of\s+)?(?:the\s+)?"
    rf"{_UNIT_PHRASE}"
)
_NAMED_UNIT_PATTERNS = (
    # "work is measured in watts", "speed is usually expressed in meters per second"
    re.compile(rf"\b{_NAMED_WORD}{_MEASURED_IN}", re.IGNORECASE),
    # "the frequency of a wave is measured in seconds"
    re.compile(rf"\b{_STRICT_WORD_OF}{_MEASURED_IN}", re.IGNORECASE),
    # "the SI unit of force is the newton", "the unit for power is called the watt", "the unit of electric charge is
    # the ampere" (the word before the quantity's is read as for the other patterns: "angular velocity" is not judged)
    re.compile(
        rf"\bunits?\s+(?:of|for)\s+(?:[a-z]+\s+)?{_NAMED_WORD}\s+(?:is|are)\s+(?:called\s+|named\s+)?(?:the\s+)?"
        rf"{_UNIT_PHRASE}",
        re.IGNORECASE,
    ),
    # "force has units of newtons"
    re.compile(rf"\b{_NAMED_WORD}\s+(?:has|have)\s+(?:the\s+)?(?:SI\s+)?units?\s+of\s+{_UNIT_PHRASE}", re.IGNORECASE),
    # "the watt is the unit of energy"
    re.compile(
        r"(?:^|(?<=[\s(]))(?:the\s+)?(?P<unit>[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*)?)\s+(?:is|are)\s+(?:the|a|an)\s+"
        rf"(?:SI\s+|standard\s+|metric\s+)?units?\s+(?:of|for)\s+{_NAMED_WORD}\b",
        re.IGNORECASE,
    ),
)
_UNIT_FILLER = frozenset({"a", "an", "the", "units", "unit", "of", "in", "its", "their", "some", "any"})


@dataclass(frozen=True)
class NamedUnitFinding:
    """A quantity said to be measured in a named unit, and whether the unit has that quantity's dimension."""

    word: str
    unit: str  # as written: "watts"
    start: int  # the span of the quantity word and the unit, whichever comes first
    end: int
    expected_unit: str
    expected_dimension: str
    dimension: str
    consistent: bool


def find_named_unit_findings(text: str) -> list[NamedUnitFinding]:
    """Every "<quantity> is measured in <unit>" (or "the unit of <quantity> is <unit>", ...) whose unit pint reads."""
    findings: dict[int, NamedUnitFinding] = {}
    for pattern in _NAMED_UNIT_PATTERNS:
        for match in pattern.finditer(text):
            previous = _PREVIOUS_WORD.search(text, 0, match.start("word"))
            if previous and previous.group(1).lower() in _OTHER_QUANTITY_MODIFIERS:
                continue  # "angular velocity is measured in radians per second"
            read = _read_unit(match.group("unit"))
            if read is None:
                continue
            unit, dimension = read
            if dimension == "dimensionless":
                continue  # "degrees", "percent": an angle, a temperature or a share; pint cannot tell which
            name = match.group("word").lower()
            expected_unit = NAMED_QUANTITY_UNITS[name]
            expected = dimensionality_of(expected_unit)
            consistent = dimension == expected or (expected_unit == "newton" and unit.lower() in POUND_UNITS)
            unit_end = match.start("unit") + len(unit)
            start, end = min(match.start("word"), match.start("unit")), max(match.end("word"), unit_end)
            finding = NamedUnitFinding(name, unit, start, end, expected_unit, expected, dimension, consistent)
            findings.setdefault(match.start("word"), finding)
    return [findings[start] for start in sorted(findings)]


def _read_unit(phrase: str) -> tuple[str, str] | None:
    """The longest leading run of the phrase's words that pint reads as a unit, and its dimension."""
    words = phrase.split()
    for count in range(len(words), 0, -1):
        written = " ".join(words[:count])
        if words[0].lower() in _UNIT_FILLER or len(words[0]) < 2 and not words[0].isupper():
            return None
        spelled = re.sub(r"\s+per\s+", " / ", written, flags=re.IGNORECASE)
        spelled = re.sub(r"\s+squared\b", " ** 2", spelled, flags=re.IGNORECASE)
        spelled = re.sub(r"\s+cubed\b", " ** 3", spelled, flags=re.IGNORECASE)
        for candidate in (spelled, spelled.replace(" ", "_")):
            try:
                return written, dimensionality_of(candidate)
            except Exception:  # pint raises its own errors, and others, for what is not a unit
                continue
    return None
