"""The formulas a text states in a variable: factorials ("n!", "(n-1)!"), powers ("2^n", "n^2", "2^{n+1}", "n²"),
binomial coefficients ("\\binom{n}{k}", "n choose k", "C(n, k)") and a variable plus or minus a whole number ("n + 1",
"v-1", "1 + k"; not "a": an article), each in one canonical spelling.

"There are n! subsets of a set with n elements." was Supported (0.91) against the discrete-mathematics textbook: its
sentence "The number of k-element subsets of a set with n elements is ... \\binom{n}{k}" holds every word of the claim
but its formula, and both NLIs read a formula as a letter or two. A formula is what such a claim says; the sentence
that supports it must state it (verdicts/rules.py `unstated-formula`). The spellings compared are canonical: TeX's
"$2^{n}$", "2^n", "2**n" and "2ⁿ" are one formula, and so are "\\binom{n}{k}", "{n \\choose k}", "n choose k" and
"C(n,k)"; spaces inside a formula do not count. A number alone ("5!", "2^10") is no formula here: the numeric check
compares values.

"A tree with n vertices has exactly n + 1 edges." was Supported (0.84) by a sentence giving "e = 1 = v-1": the numeric
check matched the claim's 1 with the sentence's, and the model's 0.01 entailment was outweighed. "n + 1" is a formula
(and its 1 no stated value: text/quantities.py leaves out the numbers of offset_spans).
"""

from __future__ import annotations

import re

from veriground.text.memo import text_memo

_SUPERSCRIPTS = str.maketrans({"²": "^2", "³": "^3", "ⁿ": "^n", "ᵏ": "^k", "ⁱ": "^i", "ᵐ": "^m"})
_BINOMIALS = (
    re.compile(r"\\[dt]?binom\s*\{\s*([^{}]+?)\s*\}\s*\{\s*([^{}]+?)\s*\}"),
    re.compile(r"\{\s*([^{}]+?)\s*\\choose\s*([^{}]+?)\s*\}"),
    re.compile(r"(?<![\w$])([a-z])\s+choose\s+([a-z])\b"),
    re.compile(r"(?<![\w$])C\(\s*([a-z])\s*,\s*([a-z])\s*\)"),
)
_BRACED_EXPONENT = re.compile(r"\^\s*\{\s*([^{}]*?)\s*\}")
_ATOM_IN_PARENS = re.compile(r"\^\(([A-Za-z0-9]+)\)")
_OFFSET = r"(?<![\w.\\-])(?:[b-z]\s*[-+]\s*\d+|\d+\s*[-+]\s*[b-z])(?![\w^!(]|\.\d)"  # "n + 1", "v-1", "1 + k"
_FORMULA = re.compile(
    r"binom\([^()]*\)"
    r"|(?<![\w.])(?:\d+|[A-Za-z]|\([^()]*\))\s*\^\s*(?:\([^()]*\)|[A-Za-z0-9]+)"
    r"|(?<![\w.])(?:[A-Za-z]|\([^()]*\))!(?![=\w])"
    rf"|{_OFFSET}"
)
_HAS_OFFSET = re.compile(_OFFSET)


def offset_spans(text: str) -> list[tuple[int, int]]:
    """Where the text adds a whole number to a one-letter variable, or takes one from it ("n + 1", "1 + k"): formulas,
    whose numbers are no stated values (text/quantities.py leaves them out)."""
    return [match.span() for match in _HAS_OFFSET.finditer(text.replace("\u2212", "-"))]


_MARKS = ("^", "!", "²", "³", "ⁿ", "ᵏ", "ⁱ", "ᵐ", "binom", "choose", "C(")  # no formula without one of these
_NOT_VARIABLES = frozenset({"I", "a", "A"})  # "I!" and "a!" are words


@text_memo(maxsize=8192)
def formulas(text: str) -> tuple[str, ...]:
    """The text's formulas in a variable, canonical (no spaces, exponents and binomials spelt one way), in order."""
    text = text.replace("\u2212", "-")  # the minus sign
    if not any(mark in text for mark in _MARKS) and not _HAS_OFFSET.search(text):
        return ()
    normal = text.translate(_SUPERSCRIPTS).replace("**", "^").replace("$", "")
    for pattern in _BINOMIALS:
        normal = pattern.sub(lambda match: f"binom({match[1]},{match[2]})", normal)
    normal = _ATOM_IN_PARENS.sub(r"^\1", _BRACED_EXPONENT.sub(r"^(\1)", normal))
    found = []
    for match in _FORMULA.finditer(normal):
        formula = re.sub(r"\s+", "", match.group())
        if _has_variable(formula) and formula not in found:
            found.append(formula)
    return tuple(found)


def _has_variable(formula: str) -> bool:
    letters = re.findall(r"[A-Za-z]+", formula.removeprefix("binom"))
    return any(letter not in _NOT_VARIABLES or len(formula) > 2 for letter in letters) and bool(letters)
