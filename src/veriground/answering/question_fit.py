"""What a question asks for, and whether a sentence states it: "How many edges does K_n have?" is answered by a
count, "What is the formula for kinetic energy?" by an expression, and a sentence that only names the topic
("Kinetic energy is also called energy of motion") answers neither, however true it is.

The full pipeline (B3) reads its draft against this before verifying it (answer.question_fit): when no drafted
sentence states what the question asks and an evidence sentence about the question does, that sentence is quoted
first. B2, naive RAG, quotes the best-covering sentences as they come. Verification cannot catch the difference:
a quoted sentence is always supported by the passage it was quoted from.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import StrEnum

from veriground.text.quantities import extract_quantities


class Asked(StrEnum):
    QUANTITY = "a number"
    FORMULA = "a formula"


_FORMULA_QUESTION = re.compile(
    r"\b(?:formulae?|formulas|equations?|expression)\b"
    r"|^\s*how\s+(?:is|are|do\s+you|does\s+one|can\s+you|can\s+one|should\s+you)\b.*\b(?:calculated?|computed?)\b",
    re.IGNORECASE,
)
_QUANTITY_QUESTION = re.compile(
    r"^\s*how\s+(?:many|much|long|soon|far|often|old|fast|high|tall|heavy|large|big)\b"
    r"|\bwhat\s+(?:percentage|percent|number|fraction|proportion|amount|year)\b"
    # "What is the M&IE per diem rate for a trip to Chicago?": a rate, price or fee of something is a number; "the
    # exchange rate mechanism", "the rate of change" and "the price elasticity of demand" are terms.
    r"|\bwhat\s+(?:is|are|was|were)\s+the\s+(?:[\w&/-]+\s+){0,4}?(?:rates?|prices?|fees?)"
    r"(?:\s+(?:for|per|in|at|on|charged|paid)\b|\s*\?\s*$)",
    re.IGNORECASE,
)
# ... unless the question asks what it is called ("What is the rate of change of velocity called?").
_NAME_QUESTION = re.compile(r"\b(?:called|named|known\s+as|defined(?:\s+as)?|termed)\s*\??\s*$", re.IGNORECASE)
# Amounts in words, for deciding that no sentence answers at all ("lasts six months", "every year"); `states` does not
# read them, so "two sets are equal" is never quoted first as a count.
_AMOUNT_WORD = re.compile(
    r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|hundred|"
    r"thousand|million|billion|dozen|half|quarter|once|twice|daily|weekly|monthly|annually|yearly|hourly|every)\b",
    re.IGNORECASE,
)
# "$n(n-1)/2$", "1/2mv^2", "v = v_0 + at": an operator between terms. A bare symbol ("$K_n$") names, it counts nothing.
_INLINE_MATH = re.compile(r"\$[^$]+\$")
_MATH_OPERATOR = re.compile(r"[=+\-/^*×·]|\\frac|\\sqrt|\\cdot|\\times|\\choose")
_EXPRESSION = re.compile(r"=|\^|\d\s*/\s*\d|\\frac|\\sqrt|[A-Za-z]\s*[×·]\s*[A-Za-z0-9]")
# "How long does find take?" is answered by a bound: "O(n) time", "$O(\\log n)$".
_COMPLEXITY_BOUND = re.compile(r"(?<![\w\\])(?:(?:\\mathcal\s*\{\s*O\s*\}|\\Theta|\\Omega)\s*|O|Θ|Ω)\(")
# "Average speed is the distance traveled divided by the time during which the motion occurs" states a formula in
# words as much as "v_avg = distance/time" does.
_VERBAL_FORMULA = re.compile(
    r"\b(?:equals?|is\s+equal\s+to)\b.*\b(?:plus|minus|times|multiplied|divided|over|squared|product|sum)\b"
    r"|\b(?:is|are)\s+(?:[\w,-]+\s+){0,6}?(?:divided|multiplied)\s+by\b"
    r"|\b(?:is|are)\s+(?:always\s+)?(?:the\s+)?(?:sum|product|ratio|quotient|difference)\s+of\b",
    re.IGNORECASE,
)


def asked_for(question: str) -> Asked | None:
    """What the question asks for, when its words say (a formula before a number: "how is … calculated")."""
    if _FORMULA_QUESTION.search(question):
        return Asked.FORMULA
    if _QUANTITY_QUESTION.search(question) and not _NAME_QUESTION.search(question):
        return Asked.QUANTITY
    return None


def mentions_amount(text: str) -> bool:
    """A number, a complexity bound or an amount in words: what a sentence needs to answer "how long" at all."""
    return states(text, Asked.QUANTITY) or _AMOUNT_WORD.search(text) is not None


def states(text: str, asked: Asked) -> bool:
    """Whether the sentence states what was asked: an expression for a formula; a number, an expression or a
    complexity bound for a number. Number words are not read: "two sets are equal" and "twice as fast" count nothing
    that was asked."""
    math = [span for span in _INLINE_MATH.findall(text) if _MATH_OPERATOR.search(span.strip("$"))]
    if asked is Asked.FORMULA:
        return bool(math) or bool(_EXPRESSION.search(_INLINE_MATH.sub(" ", text))) or bool(_VERBAL_FORMULA.search(text))
    plain = _INLINE_MATH.sub(" ", text)
    digits = [quantity for quantity in extract_quantities(plain) if not quantity.text[:1].isalpha()]
    return bool(math) or bool(digits) or bool(_COMPLEXITY_BOUND.search(text))


# What the question names: a capitalised word after the first ("Chicago", "Westphalia", "Newton's"), an acronym
# anywhere ("What does TTS ...") or a year. A question whose capitalised words are most of its words is title case,
# and names nothing this way.
_NAME = re.compile(r"(?<![\w'’&-])(?:[A-Z][\w&'’-]*|\d{4})(?![\w&-])")
_ACRONYM = re.compile(r"[A-Z][A-Z&]+")
_POSSESSIVE = re.compile(r"['’]s?$")
_NOT_NAMES = frozenset({"I", "What", "Who", "Whom", "Whose", "Which", "When", "Where", "Why", "How", "Is", "Are"})
TITLE_CASE_SHARE = 0.5


def names_missing(question: str, texts: Sequence[str]) -> list[str]:
    """The names the question asks about that none of the texts mentions (case-blind, as whole words): "What is the
    M&IE per diem rate for a trip to Chicago?" over a travel handbook that gives no city's rate -> ["Chicago"]. An
    answer quoted from those texts would be about something else, however close its words."""
    names = [
        _POSSESSIVE.sub("", match.group())
        for match in _NAME.finditer(question)
        if match.start() > 0 or _ACRONYM.fullmatch(match.group()) or match.group().isdigit()
    ]
    names = [name for name in dict.fromkeys(names) if name and name not in _NOT_NAMES]
    words = [word for word in question.split()[1:] if any(letter.isalpha() for letter in word)]
    capitalised = sum(1 for word in words if word[0].isupper())
    if not names or (len(words) >= 3 and capitalised > TITLE_CASE_SHARE * len(words)):
        return []
    haystack = "\n".join(texts).lower()
    return [name for name in names if not re.search(rf"(?<![\w&-]){re.escape(name.lower())}(?![\w&-])", haystack)]
