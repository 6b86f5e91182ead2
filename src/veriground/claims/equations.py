"""Equations in one sentence -> their (start, end) spans: LaTeX math with a relation, and plain `x = y`.

Inline `$...$` follows pandoc's rule (no space inside either dollar, no digit after the closing one),
so "$5 and $6" is money, not math. Math without a relation (`$n$`) is a symbol, not an equation; display
math (`$$...$$`, `\\[...\\]`) always counts. URLs hold no equations.
"""

from __future__ import annotations

import re

# An opener never occurs inside its own span, so an unclosed "\\(" scans only to the next opener: linear time on
# hostile input ("\\(" repeated 20,000 times) instead of quadratic.
_LATEX_MATH = re.compile(
    r"(?P<display>\$\$(?:(?!\$\$).)+?\$\$|\\\[(?:(?!\\\[).)+?\\\])"
    r"|(?P<inline>\$(?=\S)[^$]*?(?<=\S)\$(?!\d)|\\\((?:(?!\\\().)+?\\\))",
    re.DOTALL,
)
_LATEX_RELATION = re.compile(r"=|<|>|[≈≠≤≥≡∝]|\\(?:le|ge|leq|geq|neq|ne|approx|equiv|sim|propto|to)\b")
# A relation sign between two operands; "==", "=>", "<=" and ":=" are code, arrows or assignments
# in prose, so only a lone sign counts. The left operand starts where its run of characters starts (the
# lookbehind), so a 100,000-character word is scanned once, not once per character.
_PLAIN_RELATION = re.compile(
    r"(?<![^\s=<>])(?P<lhs>[^\s=<>]+)[ \t]*(?<![=<>!:])(?:=|≈|≠|≤|≥)(?![=>])[ \t]*(?P<rhs>[^\s=]+)"
)
# Every equation holds LaTeX math (a dollar sign or a backslash) or a relation sign: text with neither is not scanned.
_MAY_HOLD_EQUATION = re.compile(r"[$\\=≈≠≤≥]")
_OPERAND = re.compile(r"[\w\u00b2\u00b3\u00bd\u2070-\u209f)\]}]")
_MATH_TOKEN = re.compile(r"[^A-Za-z]*|[A-Za-z]{1,2}[^A-Za-z]*|.*[\^_/*+\-−()\[\]{}·×\d²³½].*")
# Two-letter words that end a plain equation's right-hand side: "KE = 1/2 m v^2 is ..." stops at "is".
_SHORT_WORDS = frozenset(
    {"an", "as", "at", "be", "by", "do", "if", "in", "is", "it", "of", "on", "or", "so", "to", "we"}
)
_TRAILING_PUNCTUATION = ",;:.!?"
# A token longer than this is not one term of an expression; the bound also keeps "a=a=a=…" linear.
MAX_MATH_TOKEN_CHARS = 64
_NEXT_TOKEN = re.compile(rf"\s*(\S{{1,{MAX_MATH_TOKEN_CHARS}}})(?!\S)")
_URL = re.compile(r"\bhttps?://\S+|\]\([^)\s]*\)")  # "?a=b" in a link target is not an equation


def find_math_spans(text: str) -> list[tuple[int, int]]:
    """Spans of all LaTeX math in `text`, equations or not."""
    return [match.span() for match in _LATEX_MATH.finditer(text)]


def find_equations(text: str) -> list[tuple[int, int]]:
    """Spans of the equations in `text`, in order, never overlapping."""
    if _MAY_HOLD_EQUATION.search(text) is None:
        return []
    spans: list[tuple[int, int]] = []
    covered: list[tuple[int, int]] = []
    for match in _LATEX_MATH.finditer(text):
        covered.append(match.span())
        if match.group("display") or _LATEX_RELATION.search(match.group("inline")):
            spans.append(match.span())
    covered.extend(match.span() for match in _URL.finditer(text))
    cursor = 0
    for match in _PLAIN_RELATION.finditer(text):
        start = match.start("lhs")
        if start < cursor or any(a <= start < b or a < match.end() <= b for a, b in covered):
            continue
        if not (_OPERAND.search(match.group("lhs")) and _OPERAND.search(match.group("rhs"))):
            continue
        end = _extend_expression(text, match.end("rhs"))
        spans.append((start, end))
        cursor = end
    return sorted(spans)


def _extend_expression(text: str, end: int) -> int:
    """Grow the right-hand side over tokens that look like math ("1/2 m v^2") up to a word or a comma."""
    if text[end - 1] in _TRAILING_PUNCTUATION:
        return _strip_punctuation(text, end)
    position = end
    while (token := _NEXT_TOKEN.match(text, position)) is not None:
        word = token.group(1)
        if not _is_math_token(word.rstrip(_TRAILING_PUNCTUATION)):
            break
        position = token.end()
        if word[-1] in _TRAILING_PUNCTUATION:
            break
    return _strip_punctuation(text, position)


def _is_math_token(word: str) -> bool:
    return bool(word) and word.lower() not in _SHORT_WORDS and _MATH_TOKEN.fullmatch(word) is not None


def _strip_punctuation(text: str, end: int) -> int:
    while end > 0 and text[end - 1] in _TRAILING_PUNCTUATION:
        end -= 1
    return end
