"""Equation and expression text (`KE = ½mv²`, `$E = mc^2$`, `\\frac{1}{2}mv^2`, `n\\log n`) → sympy expressions.

The text is rewritten into a Python expression (LaTeX commands to functions and operators, `½` to `(1/2)`,
superscripts to `**`, juxtaposition to `*`, letter runs split into one-letter symbols unless they are a known
multi-letter name such as KE or PE) and read by sympy's `parse_expr` with every name bound to a plain Symbol,
so `E`, `I`, `N`, `S` and `O` stay symbols, never Euler's number or the imaginary unit. Anything it cannot read
raises MathParseError with the reason; the formal checks turn that into an `unparsed` status, never a crash.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from veriground.errors import VerigroundError
from veriground.text.memo import text_memo

if TYPE_CHECKING:
    import sympy

# Multi-letter names kept whole; every other run of letters is a product of one-letter symbols ("mgh" = m·g·h).
MULTI_LETTER_SYMBOLS = ("KE", "PE")
_FUNCTIONS = {
    "sqrt": "sqrt",
    "sin": "sin",
    "cos": "cos",
    "tan": "tan",
    "log": "log",
    "ln": "log",
    "lg": "log",
    "exp": "exp",
}
# A run of more letters than this that is not a known name is a word ("distance"), not a product of symbols.
MAX_SYMBOL_RUN = 3
# Marks a subscript made from a digit glued to a letter ("v2": v squared or v sub 2?).
FLATTENED_DIGIT = "#"
# Expressions bigger than this are not compared symbolically: simplify() time grows fast with size.
MAX_EXPRESSION_CHARS = 160

_VULGAR_FRACTIONS = {
    "½": "(1/2)",
    "⅓": "(1/3)",
    "⅔": "(2/3)",
    "¼": "(1/4)",
    "¾": "(3/4)",
    "⅕": "(1/5)",
    "⅙": "(1/6)",
    "⅛": "(1/8)",
}
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_SUPERSCRIPT_RUN = re.compile(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]+")
_GREEK = {
    "alpha": "α",
    "beta": "β",
    "gamma": "γ",
    "delta": "δ",
    "epsilon": "ε",
    "varepsilon": "ε",
    "theta": "θ",
    "lambda": "λ",
    "mu": "μ",
    "nu": "ν",
    "pi": "π",
    "rho": "ρ",
    "sigma": "σ",
    "tau": "τ",
    "phi": "φ",
    "varphi": "φ",
    "omega": "ω",
    "Delta": "Δ",
    "Omega": "Ω",
    "Theta": "Θ",
    "Sigma": "Σ",
    "Phi": "Φ",
    "Gamma": "Γ",
    "Lambda": "Λ",
    "Pi": "Π",
}
_LATEX_SPACING = re.compile(
    r"\\(?:,|;|:|!|quad|qquad|left|right|big|Big|bigg|Bigg|displaystyle|limits)(?![A-Za-z])"
    r"|\\ |~"
)
_LATEX_WRAPPERS = re.compile(r"\\(?:mathrm|text|textrm|mathit|mathbf|boldsymbol|operatorname|mbox|mathcal)\s*\{")
_LATEX_OPERATORS = {"cdot": "*", "times": "*", "div": "/", "ast": "*"}
_LATEX_COMMAND = re.compile(r"\\([A-Za-z]+)")
_RELATION = re.compile(r"\\approx|\\simeq|≈|≃|(?<![<>!=])=(?!=)")
_INEQUALITY = re.compile(r"\\(?:le|ge|leq|geq|neq|ne|lt|gt)(?![A-Za-z])|[<>≤≥≠]")
# An unbraced subscript is one character ("v_xt" is v_x·t), a digit run with an axis ("v_0x"), or a usual word.
_SUBSCRIPT_WORDS = "avg|net|tot|max|min|rms|cm|eff|ext|app|sys|in|out"
_SUBSCRIPT = rf"(?:_(?:\{{[^{{}}]*\}}|(?:{_SUBSCRIPT_WORDS})(?![A-Za-z])|\d+[xyz]?|[A-Za-z0-9]))?"
_TOKEN = re.compile(
    r"(?P<number>\d+(?:\.\d+)?|\.\d+)"
    r"|(?P<name>[A-Za-zα-ωΑ-Ω]" + _SUBSCRIPT + ")"
    r"|(?P<op>\*\*|[-+*/^(),])"
    r"|(?P<space>\s+)"
)
# Runs longer than MAX_SYMBOL_RUN that are still math: "nlogn", "sqrtx".
_FUNCTION_RUN = re.compile(r"[A-Za-z]?(?:log|ln|lg|sqrt|exp|sin|cos|tan)[A-Za-z]?")
_SUBSCRIPT_PATTERN = re.compile(_SUBSCRIPT)
_GLUED_DIGIT = re.compile(r"(?<![A-Za-zα-ωΑ-Ω_\\])([A-Za-zα-ωΑ-Ω]+?)(\d+[xyz]?)(?![\d.])")
_DIVIDED_PRODUCT = re.compile(r"/\s*((?:\d+(?:\.\d+)?)?(?:[A-Za-zα-ωΑ-Ω]" + _SUBSCRIPT + r"){1,3})(?![\w(^{])")
_PRIME = re.compile(r"(?:\^\(′\)|\^\{′\}|′)(" + _SUBSCRIPT + ")")
_SINGLE_NAME = re.compile(r"Δ?[A-Za-zα-ωΑ-Ω]" + _SUBSCRIPT)


class MathParseError(VerigroundError):
    """An equation or bound could not be read; the message says which text and why."""


class ProseNotMathError(MathParseError):
    """The "equation" is words ("centimeters = 1 meter"): prose with an equals sign, not mathematics."""


@dataclass(frozen=True)
class ParsedEquation:
    """One equation or chain (`PE = mgh = (9.80)mh`): its sides as written and as sympy expressions."""

    text: str
    sides: tuple[str, ...]
    expressions: tuple[sympy.Expr, ...]


def split_relation(text: str) -> list[str] | None:
    """The sides of an `=`/`≈` chain (LaTeX dollars stripped); None for an inequality or no relation."""
    body = strip_math_delimiters(text)
    if _INEQUALITY.search(body):
        return None
    sides = [side.strip() for side in _RELATION.split(body)]
    return sides if len(sides) >= 2 else None


def strip_math_delimiters(text: str) -> str:
    body = text.strip()
    for opener, closer in (("$$", "$$"), ("$", "$"), ("\\[", "\\]"), ("\\(", "\\)")):
        if body.startswith(opener) and body.endswith(closer) and len(body) > len(opener) + len(closer) - 1:
            return body[len(opener) : len(body) - len(closer)].strip()
    return body


def parse_equation(text: str) -> ParsedEquation | None:
    """The equation's sides as sympy expressions; None when the text is an inequality or has no relation."""
    sides = split_relation(text)
    if sides is None:
        return None
    if any(not side for side in sides):
        raise MathParseError(f"equation {text!r} has an empty side")
    return ParsedEquation(text, tuple(sides), tuple(parse_math(side) for side in sides))


def parse_math(text: str) -> sympy.Expr:
    """One expression (no relation sign) as a sympy expression; raises MathParseError."""
    return _parse_cached(text.strip())


@text_memo(maxsize=4096)
def _parse_cached(text: str) -> sympy.Expr:
    import sympy  # imported on first use: it adds ~0.4 s to start-up
    from sympy.parsing.sympy_parser import parse_expr

    if len(text) > MAX_EXPRESSION_CHARS:
        raise MathParseError(f"expression {text[:40]!r}… is longer than {MAX_EXPRESSION_CHARS} characters")
    python, names = to_python_expression(text)
    local = {name: sympy.pi if symbol == "π" else sympy.Symbol(symbol) for name, symbol in names.items()}
    local.update(
        {"sqrt": sympy.sqrt, "sin": sympy.sin, "cos": sympy.cos, "tan": sympy.tan, "log": sympy.log, "exp": sympy.exp}
    )
    try:
        expression = parse_expr(
            python,
            local_dict=local,
            global_dict={
                "Integer": sympy.Integer,
                "Float": sympy.Float,
                "Rational": sympy.Rational,
                "Symbol": sympy.Symbol,
            },
            evaluate=True,
        )
    except Exception as err:  # sympy raises SyntaxError, TypeError, TokenError... for malformed input
        raise MathParseError(f"cannot read {text!r} as an expression ({type(err).__name__})") from err
    if not isinstance(expression, sympy.Expr):
        raise MathParseError(f"{text!r} is not an arithmetic expression")
    return expression


def to_python_expression(text: str) -> tuple[str, dict[str, str]]:
    """`text` as a Python expression over placeholder names, and placeholder → symbol name as written."""
    source = _rewrite_latex(_rewrite_unicode(text))
    pieces: list[str] = []
    names: dict[str, str] = {}
    position = 0
    previous = ""  # kind of the previous emitted token: "operand", "function", "open" or ""
    while position < len(source):
        match = _TOKEN.match(source, position)
        if match is None:
            raise MathParseError(f"unexpected {source[position]!r} in {text!r}")
        position = match.end()
        kind = match.lastgroup
        if kind == "space":
            continue
        if kind == "number":
            pieces, previous = _emit(pieces, previous, match.group(), "operand")
            continue
        if kind == "op":
            op = "**" if match.group() == "^" else match.group()
            if op == "(" and previous == "operand":
                pieces.append("*")
            pieces.append(op)
            previous = "open" if op == "(" else "operand" if op == ")" else ""
            continue
        # A run of letters: read it whole, then split it into names.
        run_end = position
        while (more := _TOKEN.match(source, run_end)) is not None and more.lastgroup == "name":
            run_end = more.end()
        run = source[match.start() : run_end]
        position = run_end
        run_names = _split_run(run, text)
        skip_next = False
        for index, name in enumerate(run_names):
            if skip_next:
                skip_next = False
                continue
            if name in _FUNCTIONS:
                pieces, previous = _emit(pieces, previous, _FUNCTIONS[name], "function")
                if index + 1 < len(run_names):  # "nlogn": the letter after the function is its argument
                    placeholder = f"s{len(names)}"
                    names[placeholder] = run_names[index + 1]
                    pieces.append(f"({placeholder})")
                    previous, skip_next = "operand", True
                elif not source[position:].lstrip().startswith("("):
                    position = _wrap_function_argument(source, position, pieces, names, text)
                    previous = "operand"
                continue
            placeholder = f"s{len(names)}"
            names.setdefault(placeholder, name)
            pieces, previous = _emit(pieces, previous, placeholder, "operand")
    return "".join(pieces), names


def _emit(pieces: list[str], previous: str, token: str, kind: str) -> tuple[list[str], str]:
    if previous == "operand" and kind in {"operand", "function"}:
        pieces.append("*")
    pieces.append(token)
    return pieces, "operand" if kind == "operand" else kind


def _wrap_function_argument(source: str, position: int, pieces: list[str], names: dict[str, str], text: str) -> int:
    """`log n` → `log(n)`: a function written without parentheses takes the one atom after it."""
    match = re.compile(r"\s*(?P<atom>\d+(?:\.\d+)?|[A-Za-zα-ωΑ-Ω]" + _SUBSCRIPT + ")").match(source, position)
    if match is None:
        raise MathParseError(f"a function without an argument in {text!r}")
    atom = match.group("atom")
    if atom[0].isdigit():
        pieces.append(f"({atom})")
    else:
        placeholder = f"s{len(names)}"
        names[placeholder] = atom
        pieces.append(f"({placeholder})")
    return match.end()


def _split_run(run: str, text: str) -> list[str]:
    """ "mgh" → m, g, h; "KE" → KE; "sqrt" → sqrt; "v_0" stays one name; a longer unknown word is refused."""
    letters = re.sub(_SUBSCRIPT.removesuffix("?") + "|Δ", "", run)
    names: list[str] = []
    index = 0
    while index < len(run):
        for known in (*_FUNCTIONS, *MULTI_LETTER_SYMBOLS):
            if run.startswith(known, index):
                subscript = _SUBSCRIPT_PATTERN.match(run, index + len(known))
                assert subscript is not None  # the subscript is optional: the pattern matches the empty string
                if known in _FUNCTIONS and subscript.group():
                    continue
                names.append(known + subscript.group())
                index = subscript.end()
                break
        else:
            single = _SINGLE_NAME.match(run, index)
            if single is None:
                raise MathParseError(f"unexpected {run[index]!r} in {text!r}")
            names.append(single.group())
            index = single.end()
    if len(letters) > MAX_SYMBOL_RUN and run not in _FUNCTIONS and not _FUNCTION_RUN.fullmatch(letters):
        raise ProseNotMathError(f"the word {run!r} in {text!r} is not a product of symbols")
    return names


def _rewrite_unicode(text: str) -> str:
    for fraction, replacement in _VULGAR_FRACTIONS.items():
        text = text.replace(fraction, replacement)
    text = _SUPERSCRIPT_RUN.sub(lambda run: "^(" + run.group().translate(_SUPERSCRIPTS) + ")", text)
    symbols: dict[str, str | int | None] = {
        "·": "*",
        "⋅": "*",
        "×": "*",
        "∙": "*",
        "−": "-",
        "–": "-",
        "÷": "/",
        "∆": "Δ",
        "\u00a0": " ",
    }
    text = text.translate(str.maketrans(symbols))
    # A prime marks another value of the same quantity (p′ after a collision): a subscript, same dimension.
    text = _PRIME.sub(lambda match: "_{" + match.group(1).lstrip("_").strip("{}") + "prime}", text).replace("ℓ", "l")
    text = re.sub(r"√\s*\(", "sqrt(", text)
    text = re.sub(r"√\s*([A-Za-z0-9]+)", r"sqrt(\1)", text)
    # A digit glued to a letter ("mv2", "F2", "v1x") is a flattened exponent or an index: the text cannot say
    # which, so it becomes a subscript marked FLATTENED_DIGIT, which the dimension check declines to judge.
    text = _GLUED_DIGIT.sub(lambda match: f"{match.group(1)}_{{{FLATTENED_DIGIT}{match.group(2)}}}", text)
    # "ac", "vf", "Fg", "xi": a vector-like symbol followed by a usual subscript letter is a flattened subscript.
    return re.sub(r"(?<![A-Za-z_\\])([vaFxy])([ifxyzcgo])(?![A-Za-z({])", r"\1_{\2}", text)


def _rewrite_latex(text: str) -> str:
    text = _LATEX_SPACING.sub(" ", text)
    text = _LATEX_WRAPPERS.sub("{", text)
    text = re.sub(r"\\log_\s*(?:\{[^{}]*\}|\w)", r"\\log", text)  # the base of a logarithm is a constant factor
    text = re.sub(r"\blog_\s*(?:\{[^{}]*\}|\w)", "log", text)
    for _ in range(8):  # nested \frac{\frac{a}{b}}{c}: innermost first
        rewritten = re.sub(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"((\1)/(\2))", text)
        rewritten = re.sub(r"\\sqrt\s*\{([^{}]*)\}", r"sqrt(\1)", rewritten)
        if rewritten == text:
            break
        text = rewritten
    text = re.sub(r"\\[dt]?frac\s*(\d)\s*(\d)", r"((\1)/(\2))", text)  # \frac12

    def command(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in _GREEK:
            return _GREEK[name]
        if name in _LATEX_OPERATORS:
            return _LATEX_OPERATORS[name]
        if name in _FUNCTIONS:
            return " " + name + " "
        raise MathParseError(f"the LaTeX command \\{name} is not read by the formal checks")

    text = _LATEX_COMMAND.sub(command, text)
    # "v^2/2g", "p^2/2m": typed physics divides by the whole product after the slash.
    text = _DIVIDED_PRODUCT.sub(lambda match: "/(" + match.group(1) + ")", text)
    text = text.replace("{", "(").replace("}", ")")
    # Subscripts were braces: "v_(0)" back to "v_{0}" so a name keeps its subscript.
    text = re.sub(r"_\(([^()]*)\)", r"_{\1}", text)
    # "Δx" is one quantity (a change in x): glue the delta to the symbol after it.
    return re.sub(r"Δ\s*(?=[A-Za-z])", "Δ", text)


def base_symbol(name: str) -> str:
    """The symbol a name stands for: "v_0" → "v", "Δx" → "x", "KE" → "KE"."""
    name = name.removeprefix("Δ")
    return name.split("_", 1)[0]


def is_delta(name: str) -> bool:
    return name.startswith("Δ")
