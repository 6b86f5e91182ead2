"""Complexity bounds in text (`O(n log n)`, `$\\Theta(n^2)$`, "quadratic time") → canonical orders, tagged with the
algorithm named (or a data structure's operation, "ArrayStack.add"), the case (worst/average/best/amortized) and
the resource (time, space, comparisons).

A bound is reduced to its order with sympy: expanded, the dominant term kept (by the limit of the ratio as n → ∞),
constant factors and the base of a logarithm dropped, a single variable renamed n. A claim's bound contradicts
the evidence when the evidence gives a bound for the same algorithm, case, resource and kind (upper/tight vs
lower) and none of those bounds has the claim's order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from veriground.signals.algorithm_names import (
    ALGORITHM,
    METHOD,
    STRUCTURE,
    algorithm_for,
    algorithm_name,
    operation_for,
)
from veriground.signals.math_parse import MathParseError, parse_math
from veriground.text.memo import text_memo
from veriground.text.sentences import sentence_spans

if TYPE_CHECKING:
    import sympy

_NOTATION = re.compile(  # the look-ahead: each spelling starts with one of these (a faster scan, the same matches)
    r"(?=[\\bBOΘΩ])(?<![\w\\])(?P<notation>\\mathcal\s*\{\s*O\s*\}|\\mathcal\s+O|\\Theta|\\Omega|big-?O|Big-?O|O|Θ|Ω)\s*\("
)
_WORD_ORDERS = {
    "constant": "1",
    "logarithmic": "log(n)",
    "linear": "n",
    "linearithmic": "n*log(n)",
    "log-linear": "n*log(n)",
    "loglinear": "n*log(n)",
    "quasilinear": "n*log(n)",
    "quadratic": "n**2",
    "cubic": "n**3",
    "exponential": "2**n",
}
_ORDER_WORD = "constant|logarithmic|linearithmic|log-linear|loglinear|quasilinear|linear|quadratic|cubic|exponential"
_WORD_BOUND = re.compile(
    rf"\b(?P<word>{_ORDER_WORD})[- ](?:running[- ])?(?P<resource>time|space)\b"
    rf"|\b(?:time|running time|time complexity|space complexity|complexity|cost)\s+(?:is|are|of)\s+"
    rf"(?:only\s+|also\s+)?(?P<word2>{_ORDER_WORD})\b"
    r"|(?<![\w(\\])(?P<nlogn>n\s*\\?log\s*n)(?=\s+(?:time|space|comparisons|steps|operations)\b)",
    re.IGNORECASE,
)
# Every _WORD_BOUND match holds an order word (or "log" of "n log n") and a word for what the order is of; text with
# neither is not scanned.
_ORDER_HINT = re.compile(rf"{_ORDER_WORD}|log", re.IGNORECASE)
_RESOURCE_HINT = re.compile("time|space|complexity|cost|comparisons|steps|operations", re.IGNORECASE)


# The same test as plain substrings of the lower-cased text (each order word holds one of the first words), which is
# what case-blind matching of ASCII words is, except where a text holds one of the three letters that Python's
# case-blind matching takes for i or s but lower() does not make one (dotless i, dotted capital I, long s).
_ORDER_PIECES = ("constant", "log", "linear", "quadratic", "cubic", "exponential")
_RESOURCE_WORDS = ("time", "space", "complexity", "cost", "comparisons", "steps", "operations")
_CASE_BLIND_ODD = ("ı", "İ", "ſ")


def _may_name_order(text: str) -> bool:
    if not text.isascii() and any(letter in text for letter in _CASE_BLIND_ODD):
        return _ORDER_HINT.search(text) is not None and _RESOURCE_HINT.search(text) is not None
    lowered = text.lower()
    return any(piece in lowered for piece in _ORDER_PIECES) and any(word in lowered for word in _RESOURCE_WORDS)


_CASE = re.compile(
    r"\b(?P<case>worst|average|best|expected|amortized|amortised)(?:[- ]case)?\b|\bon\s+(?P<avg>average)\b"
    r"|\bin\s+(?P<expectation>expectation)\b",
    re.IGNORECASE,
)
_CASE_GROUP = {
    "worst": "worst",
    "average": "average",
    "expected": "average",
    "expectation": "average",
    "best": "best",
    "amortized": "amortized",
    "amortised": "amortized",
}
_RESOURCE_AFTER = re.compile(
    r"\s*\$?\s*(?:extra\s+|additional\s+|auxiliary\s+)?(?P<word>time|space|memory|storage|"
    r"comparisons|steps|operations|work)\b",
    re.IGNORECASE,
)
_RESOURCE_IN_CLAUSE = re.compile(r"\b(?P<word>space|memory|storage|comparisons)\b", re.IGNORECASE)
_RESOURCE_GROUP = {
    "time": "time",
    "steps": "time",
    "operations": "time",
    "work": "time",
    "space": "space",
    "memory": "space",
    "storage": "space",
    "comparisons": "comparisons",
}
_CLAUSE_BREAK = re.compile(r"[;,:]|\b(?:and|but|while|whereas|however|although|though)\b", re.IGNORECASE)
# "2n log n + O(n)": a bound after a plus or minus is a lower-order term of a larger count, not a stated bound.
_LOWER_ORDER_TERM = re.compile(r"[-+−]\s*(?:\{\s*\}\s*)?\$?\s*$")
# A step of a derivation, not a stated bound either: a factor ("2^i \times O(n/2^i)"), a summand
# ("\sum_{i=0}^{\log n} O(n)") or the left side of a relation ("O(n/2^i) = O(n)"). A chain states its last bound.
_FACTOR_OR_SUMMAND = re.compile(r"(?:[×·⋅*]|\\times|\\cdot|\\sum(?:_\{[^{}]*\}|_\S)?(?:\^\{[^{}]*\}|\^\S)?)\s*\$?\s*$")
_RELATION_AFTER = re.compile(r"\s*\$?\s*(?:=|≤|<|\\le(?:q)?(?![a-z])|\\lt(?![a-z]))")
_TERM_LOOKBEHIND = 40
# Bounds whose argument is longer than this are derivation steps, not a stated complexity.
MAX_BOUND_CHARS = 60


@dataclass(frozen=True)
class Bound:
    """One complexity bound found in a text, with its canonical order and what it is about."""

    text: str  # as written: "O(n\\log n)", "quadratic time"
    start: int
    end: int
    kind: str  # "upper" (O, Θ, words) or "lower" (Ω)
    order: str  # canonical order, printable: "n log n", "n^2", "1"
    algorithm: str | None  # "quicksort", "binary search", "dijkstra", or an operation "ArrayStack.add"
    case: str  # worst, average, best, amortized, or unspecified
    resource: str  # time, space or comparisons
    # the algorithm is the one named last in an earlier sentence (carry_algorithm), not in the bound's own sentence:
    # "Merge-sort splits ... . The time spent merging each part is O(n/2^i)" is a step, maybe not merge-sort's bound
    carried: bool = False

    def describe(self) -> str:
        symbol = "Ω" if self.kind == "lower" else "O"
        return f"{symbol}({self.order})"


def find_bounds(text: str, *, carry_algorithm: bool = True) -> tuple[list[Bound], list[str]]:
    """Every bound in `text` and a one-line problem for each bound that could not be read.

    With `carry_algorithm`, a bound in a sentence that names no algorithm is about the last one named earlier in
    the text (a paragraph about quicksort keeps talking about it)."""
    bounds: list[Bound] = []
    problems: list[str] = []
    covered: list[tuple[int, int]] = []
    raw: list[_RawBound] = []
    for match in _NOTATION.finditer(text):
        close = _closing_paren(text, match.end() - 1)
        if close is None:
            continue
        argument = text[match.end() : close]
        # O and Θ are read alike (textbook usage states tight bounds with O); Ω is a lower bound.
        kind = "lower" if match.group("notation").lstrip("\\") in {"Omega", "Ω"} else "upper"
        raw.append(_RawBound(match.start(), close + 1, kind, argument, written=True))
        covered.append((match.start(), close + 1))
    for match in _WORD_BOUND.finditer(text) if _may_name_order(text) else ():
        if any(a <= match.start() < b for a, b in covered):
            continue
        word = (match.group("word") or match.group("word2") or "").lower()
        order = _WORD_ORDERS[word] if word else "n*log(n)"
        raw.append(_RawBound(match.start(), match.end(), "upper", order, False, match.group("resource") or ""))
    if not raw:  # most passages state no bound: nothing to attach an algorithm, case or resource to
        return bounds, problems
    algorithms = [(m.start(), algorithm_name(m)) for m in ALGORITHM.finditer(text)]
    structures = [(m.start(), m.group()) for m in STRUCTURE.finditer(text)]
    methods = [(m.start(), m.group("method")) for m in METHOD.finditer(text)]
    sentences = _with_lead_ins(text, sentence_spans(text) or [(0, len(text))])
    for found in sorted(raw, key=lambda item: item.start):
        start, end = found.start, found.end
        if _LOWER_ORDER_TERM.search(text, max(0, start - 8), start) or len(found.argument) > MAX_BOUND_CHARS:
            continue
        if found.written and _is_a_derivation_step(text, start, end):
            continue
        try:
            order = _canonical_cached(found.argument, found.written)
        except MathParseError as err:
            problems.append(f"bound {text[start:end]!r}: {err}")
            continue
        except Exception as err:  # sympy's expand/limit on an exotic order: reported, never raised
            problems.append(f"bound {text[start:end]!r}: sympy could not reduce it ({type(err).__name__})")
            continue
        sentence = next(((a, b) for a, b in sentences if a <= start < b), (0, len(text)))
        named = algorithm_for(start, sentence, algorithms, False) or operation_for(
            start, sentence, structures, methods, False
        )
        carried = None
        if named is None and carry_algorithm:
            carried = algorithm_for(start, sentence, algorithms, True) or operation_for(
                start, sentence, structures, methods, True
            )
        bounds.append(
            Bound(
                text=text[start:end],
                start=start,
                end=end,
                kind=found.kind,
                order=order,
                algorithm=named or carried,
                case=_case_for(text, start, end, sentence),
                resource=_resource_for(text, start, end, sentence, found.resource_hint),
                carried=carried is not None,
            )
        )
    return bounds, problems


# Display math ("\\[ ... \\]", "$$ ... $$") that goes on a sentence left open ("the total amount of time taken by
# merge-sort is"): that sentence names what the display's bounds are of.
_DISPLAY_OPENER = re.compile(r"\s*(?:\\\[|\$\$|\\begin\{(?:equation|align|displaymath|gather|multline)\*?\})")
_SENTENCE_END = re.compile(r"[.!?:;]\W*$")


def _with_lead_ins(text: str, sentences: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sentence spans, each display-math span joined with the open sentence before it."""
    joined: list[tuple[int, int]] = []
    for start, end in sentences:
        left_open = joined and not _SENTENCE_END.search(text, joined[-1][0], joined[-1][1])
        if left_open and _DISPLAY_OPENER.match(text, start):
            joined[-1] = (joined[-1][0], end)
        else:
            joined.append((start, end))
    return joined


def _is_a_derivation_step(text: str, start: int, end: int) -> bool:
    return (
        _FACTOR_OR_SUMMAND.search(text, max(0, start - _TERM_LOOKBEHIND), start) is not None
        or _RELATION_AFTER.match(text, end) is not None
    )


def same_subject(first: Bound, second: Bound) -> bool:
    """Bounds that must agree: same algorithm, resource and kind, and cases that are the same claim."""
    if first.algorithm is None or first.algorithm != second.algorithm:
        return False
    if first.resource != second.resource or first.kind != second.kind:
        return False
    if first.case == second.case:
        return True
    # An unqualified bound is read as the worst case, the textbook convention for a bare O(.).
    return {first.case, second.case} == {"unspecified", "worst"}


def _closing_paren(text: str, open_index: int) -> int | None:
    depth = 0
    for index in range(open_index, min(len(text), open_index + MAX_BOUND_CHARS * 2)):
        if text[index] == "(":
            depth += 1
        elif text[index] == ")":
            depth -= 1
            if depth == 0:
                return index
    return None


@dataclass(frozen=True)
class _RawBound:
    start: int
    end: int
    kind: str
    argument: str  # the text inside O(…) when `written`, else a sympy expression for a word ("n**2")
    written: bool
    resource_hint: str = ""


@text_memo(maxsize=4096)
def _canonical_cached(argument: str, written: bool) -> str:
    import sympy  # imported on first use: it adds ~0.4 s to start-up

    expression = parse_math(argument) if written else sympy.sympify(argument)
    return _display(canonical_order(expression))


def canonical_order(expression: sympy.Expr) -> sympy.Expr:
    """The order of growth: dominant term, no constant factors, log base dropped, a lone variable named n."""
    import sympy  # imported on first use: it adds ~0.4 s to start-up

    symbols = sorted(expression.free_symbols, key=str)
    if not symbols:
        return sympy.Integer(1)
    expanded = sympy.expand(sympy.expand_log(expression, force=True))
    terms = [_strip_constants(term) for term in sympy.Add.make_args(expanded)]
    terms = [term for term in terms if term.free_symbols]
    if not terms:
        return sympy.Integer(1)
    if len(symbols) > 1:
        return sympy.Add(*sorted(set(terms), key=str))
    variable = symbols[0]
    dominant = terms[0]
    for term in terms[1:]:
        if _grows_faster(term, dominant, variable):
            dominant = term
    n = sympy.Symbol("n", positive=True)
    return dominant.subs(variable, n)


def _strip_constants(term: sympy.Expr) -> sympy.Expr:
    import sympy  # imported on first use: it adds ~0.4 s to start-up

    return sympy.Mul(*[factor for factor in sympy.Mul.make_args(term) if not factor.is_number])


def _grows_faster(first: sympy.Expr, second: sympy.Expr, variable: sympy.Symbol) -> bool:
    import sympy  # imported on first use: it adds ~0.4 s to start-up

    positive = sympy.Symbol("n_", positive=True)
    ratio = (first / second).subs(variable, positive)
    try:
        limit = sympy.limit(ratio, positive, sympy.oo)
    except Exception:  # sympy's limit raises NotImplementedError and others on exotic terms
        return False
    return bool(limit == sympy.oo)  # sympy is untyped; its == gives a bool


def _display(order: sympy.Expr) -> str:
    text = str(order).replace("**", "^").replace("*", " ")
    return re.sub(r"log\((\w)\)", r"log \1", text)


def _clause(text: str, start: int, end: int, sentence: tuple[int, int]) -> tuple[int, int]:
    breaks = [m.start() for m in _CLAUSE_BREAK.finditer(text, sentence[0], sentence[1]) if not start <= m.start() < end]
    left = max([b for b in breaks if b < start], default=sentence[0])
    right = min([b for b in breaks if b >= end], default=sentence[1])
    return left, right


def _case_for(text: str, start: int, end: int, sentence: tuple[int, int]) -> str:
    left, right = _clause(text, start, end, sentence)
    in_clause = [_case_word(m) for m in _CASE.finditer(text, left, right)]
    if in_clause:
        return in_clause[0]
    # "In the worst case, quicksort takes O(n^2)": the nearest earlier clause that states a case and no bound.
    for match in reversed(list(_CASE.finditer(text, sentence[0], left))):
        clause = _clause(text, match.start(), match.end(), sentence)
        if not _NOTATION.search(text, clause[0], clause[1]) and not _WORD_BOUND.search(text, clause[0], clause[1]):
            return _case_word(match)
        break
    in_sentence = {_case_word(m) for m in _CASE.finditer(text, sentence[0], sentence[1])}
    return in_sentence.pop() if len(in_sentence) == 1 else "unspecified"


def _case_word(match: re.Match[str]) -> str:
    word = (match.group("case") or match.group("avg") or match.group("expectation")).lower()
    return _CASE_GROUP[word]


def _resource_for(text: str, start: int, end: int, sentence: tuple[int, int], hint: str) -> str:
    if hint:
        return _RESOURCE_GROUP[hint.lower()]
    after = _RESOURCE_AFTER.match(text, end)
    if after:
        return _RESOURCE_GROUP[after.group("word").lower()]
    left, right = _clause(text, start, end, sentence)
    in_clause = _RESOURCE_IN_CLAUSE.search(text, left, right)
    return _RESOURCE_GROUP[in_clause.group("word").lower()] if in_clause else "time"
