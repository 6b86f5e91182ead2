"""A claim's equation vs the evidence's equations with the same left side: equivalent by sympy, or a mismatch.

`KE = 1/2 m v^3` against evidence `KE = ½mv²`: same left side KE, and simplify(½mv³ − ½mv²) ≠ 0, so
equation_mismatch. A chain (`PE = mgh = (9.80)mh`) offers each of its sides; the claim matches when its right
side equals any side of an evidence chain holding its left side. Only right sides over the same symbols are
compared (`KE = p²/2m` is another valid form of `KE = ½mv²`, not an error), and a right side without symbols
(`g = 9.8`) is a number, which the numeric signal compares, not this one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from veriground.claims.equations import find_equations
from veriground.signals.math_parse import MathParseError, ParsedEquation, ProseNotMathError, parse_equation
from veriground.text.memo import text_memo

if TYPE_CHECKING:
    import sympy


_LIST_MARKER = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
_DELIMITERS = (("$$", "$$"), ("$", "$"), ("\\[", "\\]"), ("\\(", "\\)"))
# Several equations in one math span: one per line, after a LaTeX line break, or set apart by \quad.
_SEPARATOR = re.compile(r"\n|\\\\|\\q?quad(?![A-Za-z])|\\text\{\s*(?:and|or|for|where|so)\s*\}")


@dataclass(frozen=True)
class LocatedEquation:
    """An equation found in a text, with its span there."""

    equation: ParsedEquation
    start: int
    end: int


@dataclass(frozen=True)
class EquationComparison:
    """The claim's equation against the evidence equations holding its left side."""

    claim: LocatedEquation
    evidence_index: int
    evidence: LocatedEquation  # the closest evidence equation: the matching one, else the first with that side
    equivalent: bool
    left_side: str


# The same evidence passages serve many claims of one text: each is parsed once.
EVIDENCE_CACHE_SIZE = 1024


@text_memo(maxsize=EVIDENCE_CACHE_SIZE)
def evidence_equations(text: str) -> tuple[LocatedEquation, ...]:
    """The equations of an evidence text that sympy reads; those it cannot are the evidence's problem, not the
    claim's, and are left out."""
    return tuple(find_parsed_equations(text)[0])


def find_parsed_equations(text: str) -> tuple[list[LocatedEquation], list[str]]:
    """Every equation in `text` that sympy can read, and a one-line problem for each one it cannot."""
    found, problems = [], []
    for span in find_equations(text):
        for start, end in _pieces(text, *span):
            written = text[start:end].replace("&", " ")  # "S &= 1 + x": an alignment mark, not math
            try:
                parsed = parse_equation(written)
            except ProseNotMathError:
                continue  # words with an equals sign are not an equation to check
            except MathParseError as err:
                problems.append(f"equation {written!r}: {err}")
                continue
            if parsed is not None:
                found.append(LocatedEquation(parsed, start, end))
    return found, problems


def _pieces(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The equations inside one span: math delimiters dropped, split at line breaks, `\\\\` and `\\quad`."""
    for opener, closer in _DELIMITERS:
        if text.startswith(opener, start) and text.endswith(closer, start, end) and end - start > len(opener):
            start, end = start + len(opener), end - len(closer)
            break
    pieces, cursor = [], start
    for separator in [*_SEPARATOR.finditer(text, start, end), None]:
        stop = end if separator is None else separator.start()
        piece = text[cursor:stop]
        if cursor > start:  # a line that opens with a list marker ("- F = ma"): the marker is not a minus sign
            piece = _LIST_MARKER.sub(lambda marker: " " * len(marker.group()), piece)
        if piece.strip():
            lead = len(piece) - len(piece.lstrip())
            pieces.append((cursor + lead, cursor + len(piece.rstrip())))
        if separator is not None:
            cursor = separator.end()
    return pieces


def compare_equation(claim: LocatedEquation, evidence: list[list[LocatedEquation]]) -> EquationComparison | None:
    """The comparison of one claim equation with the evidence; None when no evidence equation has its left side."""
    import sympy  # imported on first use: it adds ~0.4 s to start-up

    expressions = claim.equation.expressions
    for left_index in (0, len(expressions) - 1):  # "E = mc^2" or, written the other way round, "mc^2 = E"
        left = expressions[left_index]
        # Numeric sides ("= 12/52 = 3/13") and sides with a decimal (a substituted measurement, "(0.9 m)") are the
        # numeric signal's to compare; a chain step that restates the left side (c − a = (c − b) + (b − a)) agrees
        # with anything. A number is never a left side.
        rights = [
            expression
            for index, expression in enumerate(expressions)
            if index != left_index
            and expression.free_symbols
            and not expression.atoms(sympy.Float)
            and not _same(expression, left)
        ]
        if not left.free_symbols or left.atoms(sympy.Float) or not rights:
            continue
        first_hit: tuple[int, LocatedEquation] | None = None
        for evidence_index, equations in enumerate(evidence):
            for candidate in equations:
                sides = candidate.equation.expressions
                if not any(_same(left, side) for side in sides):
                    continue
                others = list(sides)
                if all(any(_same(right, other) for other in others) for right in rights):
                    return EquationComparison(claim, evidence_index, candidate, True, claim.equation.sides[left_index])
                # Only a right side over the same symbols is the same formula written wrongly; KE = p²/2m against
                # KE = ½mv² is another valid form, which this check cannot rule on.
                comparable = any(right.free_symbols == other.free_symbols for right in rights for other in others)
                if comparable and first_hit is None:
                    first_hit = (evidence_index, candidate)
        if first_hit is not None:
            return EquationComparison(claim, first_hit[0], first_hit[1], False, claim.equation.sides[left_index])
    return None


def _same(first: sympy.Expr, second: sympy.Expr) -> bool:
    import sympy  # imported on first use: it adds ~0.4 s to start-up

    if first == second:
        return True
    if first.free_symbols != second.free_symbols:
        return False
    try:
        difference = sympy.expand(first - second)
        return bool(difference == 0 or sympy.simplify(difference) == 0)  # sympy is untyped; its == gives a bool
    except Exception:  # simplify can raise on exotic expressions; then they are not shown equal
        return False
