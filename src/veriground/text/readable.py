"""Inline LaTeX and code names made plain, as a reader (and an NLI model) sees them: `$O(n\\log n)$` -> `O(n log n)`,
`mergeSort` -> `merge Sort`. Only the copy of a text that is read is rewritten; offsets index the text as stored."""

from __future__ import annotations

import re

from veriground.text.memo import text_memo

# LaTeX commands as textbooks write them inline -> the words and symbols they stand for
_MATH_COMMANDS = {
    "log": "log", "ln": "ln", "lg": "lg", "cdot": "·", "times": "×", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥",
    "ne": "≠", "neq": "≠", "infty": "∞", "in": "∈", "subseteq": "⊆", "subset": "⊂", "cup": "∪", "cap": "∩",
    "to": "→", "rightarrow": "→", "sum": "sum", "sqrt": "sqrt", "pi": "π", "theta": "θ", "alpha": "α", "beta": "β",
    "Theta": "Θ", "Omega": "Ω", "omega": "ω", "lambda": "λ", "mu": "μ", "rho": "ρ", "Delta": "Δ", "delta": "δ",
    "ldots": "…", "dots": "…",
}  # fmt: skip
_MATH_COMMAND = re.compile(r"\\([A-Za-z]+)\s*")
_FRACTION = re.compile(r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_CAMEL_HUMP = re.compile(r"(?<=[a-z])(?=[A-Z][a-z])")
_MATH_DELIMITERS = re.compile(r"\$+|\\[()\[\]]")


@text_memo(maxsize=16_384)  # the NLI reads each unit and hypothesis through it, for every claim and passage
def readable_text(text: str) -> str:
    """Inline LaTeX and code names made plain for reading: `$O(n\\log n)$` -> `O(n log n)`, `\\frac{a}{b}` ->
    `(a)/(b)`, `mergeSort` -> `merge Sort`."""
    text = _CAMEL_HUMP.sub(" ", text)  # code names read as words: mergeSort(a) -> merge Sort(a)
    if "\\" not in text and "$" not in text:
        return text
    text = _FRACTION.sub(r"(\1)/(\2)", text)
    text = _MATH_COMMAND.sub(lambda match: _command(match.group(1)), text)
    text = _MATH_DELIMITERS.sub("", text).replace("{", "").replace("}", "")
    return re.sub(r"[ \t]{2,}", " ", text)


def _command(name: str) -> str:
    word = _MATH_COMMANDS.get(name)
    if word is None:
        return " "  # spacing and formatting commands (\\enspace, \\mathrm) carry no content
    return f" {word} " if word.isalpha() else word
