"""What a claim defines and what it uses (seed 000 §2.5): symbols (single letters with an optional subscript or
prime "v_0", Greek letters "ρ", "Δt", and the multi-letter symbols of equations "Re", "KE") and named concepts (a
defined phrase such as "Reynolds number"). A claim *defines* a term when it says "X is defined as / denotes /
represents / stands for / refers to", "let X be", "we call X", "is called / known as X", "where X is …", names a
symbol after a noun ("the density ρ", "the joule (J)"), or puts X alone on the left of "=" / ":=" / "≡" outside a
condition ("Re = ρvL/μ", but not "if v = 0"). Every other occurrence is a *use*. claims/dependencies.py orders them.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from veriground.text.memo import text_memo
from veriground.text.quantities import remove_quantities
from veriground.text.terms import STOPWORDS

_GREEK_NAME_LIST = (
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon "
    "phi chi psi omega"
)
_GREEK_NAMES = _GREEK_NAME_LIST.split()
# LaTeX Greek commands become the letters they print, so "$\rho$" and "ρ" are one symbol.
_UNICODE_NAME = {"lambda": "LAMDA"}  # Unicode spells it without the b
_LATEX_GREEK = {
    **{
        name: unicodedata.lookup(f"GREEK SMALL LETTER {_UNICODE_NAME.get(name, name.upper())}") for name in _GREEK_NAMES
    },
    **{
        name.capitalize(): unicodedata.lookup(f"GREEK CAPITAL LETTER {_UNICODE_NAME.get(name, name.upper())}")
        for name in _GREEK_NAMES
    },
}
_LATEX_COMMAND = re.compile(r"\\([A-Za-z]+)")
_LATEX_NOISE = re.compile(r"[${}]|\\[,;!:]")

# Symbols every reader knows without a definition (decided for notes in physics, algorithms and discrete math):
# x, y, z are generic unknowns/coordinates, n a count, i the imaginary unit or an index, e Euler's number, π, and
# a lone Δ is the difference operator ("Δ^3-constant").
CONVENTIONAL_SYMBOLS = frozenset({"x", "y", "z", "n", "i", "e", "π", "Δ"})
# SI and common unit symbols: no warning where they read as units (after "in/of/per", or in "m/s", "kg·m^2").
_UNIT_LIST = "m s kg g N J W Pa Hz K V A C mol cd cm mm km L mL h min eV Ω T Wb F H lb ft in mi"
UNIT_SYMBOLS = frozenset(_UNIT_LIST.split())
# A single capital after one of these words is a label, not a variable: "point A", "Appendix B", "plan C".
_LABEL_LIST = (
    "point points option plan type part appendix section figure fig table class grade vitamin step case schedule "
    "form level tier version exhibit item group team building row column chapter model phase stage"
)
_LABEL_WORDS = frozenset(_LABEL_LIST.split())
# Words that make "X = …" a condition on X rather than its definition.
_CONDITION_LIST = "if when whenever unless while until once since because whether"  # not "as": "defined as Re = …"
_CONDITION_WORDS = frozenset(_CONDITION_LIST.split())
# Function names inside an expression are not symbols: "sin θ", "log n".
_FUNCTION_LIST = "sin cos tan cot sec csc sinh cosh tanh log ln lg exp max min lim sqrt mod gcd det"
_FUNCTION_NAMES = frozenset(_FUNCTION_LIST.split())
# Pseudocode constants: "u = nil" compares u with nothing, it does not use n, i and l.
_CONSTANT_WORDS = frozenset({"nil", "null", "nan", "inf"})
_MAX_PHRASE_WORDS = 4  # a named concept is at most this many words ("specific heat capacity of water")

_LETTER = r"[A-Za-zΑ-Ωα-ωℓ]"
_SUBSCRIPT = r"(?:_\{?\w+\}?|_\([^()\s]*\)|\d|')?"  # v_0, v_{max}, W_(net), x2, v'"
# One symbol token: an optional Δ, a letter, an optional subscript/digit/prime, not part of a longer word.
_SYMBOL = rf"(?<![\w'\\.-])Δ?{_LETTER}{_SUBSCRIPT}(?![\w(-])(?!\.\w)(?!'\w)"
_PROSE_SYMBOL = re.compile(_SYMBOL)
_BIG_O = re.compile(r"(?<!\w)[OΘΩoω]\([^()]*(?:\([^()]*\)[^()]*)*\)")
_RELATION = re.compile(r"(?<![=<>!:≤≥])(:=|=|≡|≈|<|>|≤|≥|≠|∝)(?![=>])")
_DEFINING_RELATIONS = frozenset({"=", ":=", "≡"})
_PRODUCT_PIECE = re.compile("|".join(sorted(_FUNCTION_NAMES, key=len, reverse=True)) + "|.")
_MATH_RUN = re.compile(rf"Δ?{_LETTER}+{_SUBSCRIPT}")
_LIST_MARKER = re.compile(r"(?:^|[\s:;,])\(\s*[a-hA-H]\s*\)")
# Links are not text: "…/d/1ow1VIwSz…/edit" would read as a dozen symbols.
_LINK = re.compile(r"\bhttps?://\S+|\bwww\.\S+|\]\([^)\s]*\)|\S+@\S+\.\w+")
# Windows-1252's right quote decoded as Latin-1 (U+0092) is an apostrophe in mis-encoded text: "the line\x92s".
_CP1252_APOSTROPHE = "\x92"
_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|etc|vs|cf|a\.m|p\.m|U\.S)\.", re.IGNORECASE)

# Definitional cues. A symbol is a lone symbol token; a phrase is one to four words.
_SYM = rf"(Δ?{_LETTER}{_SUBSCRIPT}|[A-Z][a-z]{{1,2}}|[A-Z]{{2,3}})"
_PHRASE = r"([A-Za-z][\w'-]*(?:\s+[A-Za-z][\w'-]*){0,5})"
_SYMBOL_DEFINED_BEFORE = re.compile(
    rf"(?<![\w'\\]){_SYM}(?![\w(])\s*,?\s+(?:is|are)\s+(?:defined\s+(?:as|to\s+be|by)|the|called|known\s+as)\b"
    rf"|(?<![\w'\\]){_SYM}(?![\w(])\s+(?:denotes?|represents?|stands?\s+for|refers?\s+to|is\s+short\s+for)\b"
)
_SYM_LIST = rf"((?:{_SYM}(?![\w(])(?:\s*,\s*|\s+and\s+))*{_SYM})(?![\w(])"
_LET = re.compile(rf"(?i:\b(?:let|suppose|assume))\s+{_SYM_LIST}\s+(?:be|denote|represent|equal)\b")
_WE_CALL_SYMBOL = re.compile(
    rf"(?i:\bwe\s+(?:call|define|denote|write|use)|\bcall\s+(?:it|this|that|them|these))\s+{_SYM}(?![\w(])"
)
# "the acceleration due to gravity is g, so …": a symbol that completes a copula names the subject.
_IS_SYMBOL = re.compile(rf"\b(?:is|are)\s+{_SYM}(?=\s*[,.;:]|\s*$)")
_DENOTED_BY = re.compile(
    rf"\b(?:denoted|written|symbolised|symbolized|labelled|labeled|represented)\s+(?:by\s+|as\s+)?{_SYM}(?![\w(])"
)
_WHERE = re.compile(r"\bwhere\b(.*)", re.DOTALL)
_WHERE_SYMBOLS = re.compile(rf"(?<![\w'\\]){_SYM_LIST}\s+(?:is|are|denotes?|represents?)\b")
# "the density ρ", "with height h", "the joule (J)": a noun phrase after an article or preposition, then a symbol.
_APPOSITIVE = re.compile(
    r"(?i:\b(?:the|a|an|its|this|our|with|at|of|for|by|in))\s+(?:[A-Za-z][\w-]*\s+){0,3}?(?P<noun>[a-z][\w-]{2,})"
    rf"(?:\s*,\s*|\s+\(?|\s*\()\s*(?![aAI]\b)(?P<symbols>{_SYM_LIST})\)?(?=[\s,.;:)]|$)"
)
_PHRASE_DEFINED_BEFORE = re.compile(
    rf"(?:^|[,;:]\s*|\b(?:the|a|an)\s+){_PHRASE}\s+(?:is|are)\s+defined\s+(?:as|to\s+be|by)\b"
    rf"|(?:^|[,;:]\s*|\b(?:the|a|an)\s+){_PHRASE}\s+(?:refers?\s+to|denotes?|means)\b",
    re.IGNORECASE,
)
_CALLED = re.compile(
    rf"\b(?:is|are)\s+(?:called|known\s+as|termed|named)\s+(?:the\s+|a\s+|an\s+)?{_PHRASE}"
    rf"|\bwe\s+call\s+(?:this|that|it|these|such\s+\w+)(?:\s+\w+)?\s+(?:the\s+|a\s+|an\s+)?{_PHRASE}",
    re.IGNORECASE,
)
# Words that end a named phrase: "is called laminar flow because …" names "laminar flow".
_PHRASE_STOP_LIST = "because which that when if and or but while where in of for with by to on at as"
_PHRASE_STOP = frozenset(_PHRASE_STOP_LIST.split())


@dataclass(frozen=True)
class ClaimTerms:
    """What one claim defines (symbols case-sensitive, phrases lower-case) and the symbols it uses; phrase uses
    are found later, by matching the phrases some claim defines."""

    defined: frozenset[str]
    symbols_used: frozenset[str]


def extract_claim_terms(text: str, named_symbols: frozenset[str] = frozenset()) -> ClaimTerms:
    """The terms one claim defines and uses. `named_symbols` are the multi-letter symbols ("Re", "KE") that the
    note sets on the left of an equation: a prose "Re" is then a use, and "ρRe" reads as ρ·Re."""
    return extract_claim_terms_plain(plain_text(text), named_symbols)


def extract_claim_terms_plain(text: str, named_symbols: frozenset[str]) -> ClaimTerms:
    defined_by_relation, in_relations, prose = expression_symbols(text, named_symbols)
    symbols = set(in_relations) | _prose_symbols(prose, named_symbols)
    defined = set(defined_by_relation) | _defined_symbols(text) | _defined_phrases(text)
    symbols = {symbol for symbol in symbols if not needs_no_definition(symbol)}
    return ClaimTerms(frozenset(defined), frozenset(symbols - defined))


@text_memo(maxsize=16_384)  # a corpus passage is asked whether it defines each term a note leaves undefined
def plain_text(text: str) -> str:
    """Normalised text without numbers, units after numbers, citation markers, abbreviations or LaTeX markup."""
    text = _LINK.sub(" ", text).replace(_CP1252_APOSTROPHE, "'")
    text = _LATEX_COMMAND.sub(lambda match: _LATEX_GREEK.get(match.group(1), " "), text)
    text = _LATEX_NOISE.sub(" ", text)
    return _ABBREVIATION.sub(" ", remove_quantities(text))


def expression_symbols(text: str, named_symbols: frozenset[str]) -> tuple[set[str], set[str], str]:
    """(symbols defined as a lone left side of "=", symbols inside relations, the text with relations blanked)."""
    text = _BIG_O.sub(" ", text)
    defined: set[str] = set()
    symbols: set[str] = set()
    blanked = list(text)
    for match in _RELATION.finditer(text):
        left_start, left = _left_operand(text, match.start())
        if not _is_math_token(left, named_symbols):
            continue  # "Chief of > Staff", "-> see below": a relation sign between words is not math
        right_end, right = _right_operand(text, match.end())
        left_symbols = _split_math(left, named_symbols, left_side=True)
        symbols.update(left_symbols)
        symbols.update(_split_math(right, named_symbols, left_side=False))
        if match.group(1) in _DEFINING_RELATIONS and len(left_symbols) == 1 and left.strip() == left_symbols[0]:
            before = text[:left_start].split()
            if not (before and before[-1].lower().strip(",") in _CONDITION_WORDS):
                defined.add(left_symbols[0])
        blanked[left_start:right_end] = " " * (right_end - left_start)
    return defined, symbols, "".join(blanked)


# An operand longer than this is not one a reader defines; the bound keeps "a=a=a=…" (80 KB) linear.
MAX_OPERAND_CHARS = 200


def _left_operand(text: str, end: int) -> tuple[int, str]:
    offset = max(0, end - MAX_OPERAND_CHARS)
    before = text[offset:end].rstrip()
    start = len(before)
    while start > 0 and not before[start - 1].isspace() and before[start - 1] not in ",;:(":
        start -= 1
    return offset + start, before[start:]


def _right_operand(text: str, start: int) -> tuple[int, str]:
    """The expression after a relation sign: tokens up to the first prose word or clause punctuation."""
    cursor, pieces = start, []
    for match in re.finditer(r"\S+", text[start : start + MAX_OPERAND_CHARS]):
        token = match.group(0)
        word = token.strip(",;:.!?")
        if not _is_math_token(word, frozenset()):
            break
        pieces.append(word)
        cursor = start + match.end()
        if token != word:
            break
    return cursor, " ".join(pieces)


def _is_math_token(word: str, named_symbols: frozenset[str]) -> bool:
    """Whether a token reads as math: operators, digits or Greek, a named symbol, or a run of at most three letters
    that is not an English function word ("ma", "mgh", but not "of", "Staff" or "well-known")."""
    word = word.strip(",;:.!?")
    if word in named_symbols or word in _FUNCTION_NAMES or not any(char.isalpha() for char in word):
        return True
    if re.fullmatch(r"[A-Za-z]+(?:-[A-Za-z]+)+", word):
        return False
    if re.search(r"[\d^_/*+\-−·×√()\[\]{}|Α-Ωα-ω]", word):
        return True
    return len(word) == 1 or (len(word) <= 3 and word.lower() not in STOPWORDS)


def _split_math(expression: str, named_symbols: frozenset[str], *, left_side: bool) -> list[str]:
    """Symbols of an expression: "ρvL/μ" → ρ, v, L, μ; "v_0" stays whole, and so does "Re" or "KE" alone on a
    left side or named there elsewhere in the note ("Fd" on a right side is F·d); function names are dropped."""
    symbols: list[str] = []
    for match in _MATH_RUN.finditer(expression):
        run = match.group(0)
        core = run[1:] if run.startswith("Δ") else run
        named = re.match(rf"{_LETTER}+", core)
        if named is None:  # "Δ(mv)": a bare Δ before a bracket, whose symbols are read on their own
            continue
        letters = named.group(0)
        subscript = core[len(letters) :]
        if letters in _FUNCTION_NAMES or letters in _CONSTANT_WORDS:
            continue
        whole_name = left_side and re.fullmatch(r"[A-Z][a-z]{1,2}|[A-Z]{2,3}", letters) is not None
        if len(letters) == 1 or whole_name or letters in named_symbols:
            symbols.append(letters + subscript)
        else:  # a product of one-letter symbols, with function names read whole: "Bsinθ" → B·sin(θ)
            pieces = [piece for piece in _PRODUCT_PIECE.findall(letters) if piece not in _FUNCTION_NAMES]
            symbols.extend(pieces[:-1])
            if pieces:
                symbols.append(pieces[-1] + subscript)
    return symbols


def _prose_symbols(prose: str, named_symbols: frozenset[str]) -> set[str]:
    prose = _LIST_MARKER.sub(" ", prose)
    found: set[str] = set()
    for match in _PROSE_SYMBOL.finditer(prose):
        symbol = match.group(0)
        base = symbol.removeprefix("Δ") or symbol
        if base in {"a", "A", "I"} or _is_label(prose, match.start()) or _is_unit(prose, match, base):
            continue
        found.add(base)
    for symbol in named_symbols:
        if re.search(rf"(?<![\w'\\]){re.escape(symbol)}(?![\w(])", prose):
            found.add(symbol)
    return found


def _is_label(prose: str, start: int) -> bool:
    before = prose[:start].split()
    return bool(before) and before[-1].lower().strip(",:") in _LABEL_WORDS


def _is_unit(prose: str, match: re.Match[str], base: str) -> bool:
    if base.rstrip("0123456789") not in UNIT_SYMBOLS:  # "m/s2" is m/s² with the superscript lost
        return False
    before = prose[: match.start()].rstrip()
    after = prose[match.end() :].lstrip()
    if before[-1:] in {"/", "·", "*"} or after[:1] in {"/", "·", "^", "*"}:
        return True
    words = before.split()
    return bool(words) and words[-1].lower() in {"in", "of", "per", "units", "unit"}


def _defined_symbols(text: str) -> set[str]:
    found: set[str] = set()
    for pattern in (_SYMBOL_DEFINED_BEFORE, _WE_CALL_SYMBOL, _DENOTED_BY, _IS_SYMBOL):
        for match in pattern.finditer(text):
            found.update(group for group in match.groups() if group)
    for match in _LET.finditer(text):
        found.update(_symbols_of_list(match.group(1)))
    where = _WHERE.search(text)
    if where:
        for match in _WHERE_SYMBOLS.finditer(where.group(1)):
            found.update(_symbols_of_list(match.group(1)))
    for match in _APPOSITIVE.finditer(text):
        noun = match.group("noun").lower()
        if noun not in STOPWORDS and noun not in _LABEL_WORDS:
            found.update(symbol for symbol in _symbols_of_list(match.group("symbols")) if symbol not in {"a", "A", "I"})
    return {symbol.removeprefix("Δ") or symbol for symbol in found if symbol != "I"}


def _symbols_of_list(listed: str) -> list[str]:
    return [part for part in re.split(r"\s*,\s*|\s+and\s+", listed.strip()) if part]


def _defined_phrases(text: str) -> set[str]:
    found: set[str] = set()
    for pattern in (_PHRASE_DEFINED_BEFORE, _CALLED):
        for match in pattern.finditer(text):
            for group in match.groups():
                phrase = _trim_phrase(group) if group else None
                if phrase:
                    found.add(phrase)
    return found


def _trim_phrase(phrase: str) -> str | None:
    """A phrase as a defined term: lower-case, leading articles and trailing clause words dropped; a lone symbol
    is left to the symbol rules."""
    words = phrase.split()
    while words and words[0].lower() in STOPWORDS:
        words = words[1:]
    for position, word in enumerate(words):
        if word.lower() in _PHRASE_STOP:
            words = words[:position]
            break
    words = words[:_MAX_PHRASE_WORDS]
    while words and re.fullmatch(_SYM, words[-1]) and not (len(words[-1]) > 3 and words[-1].islower()):
        words = words[:-1]  # "the Reynolds number Re": the symbol is the appositive's, not the phrase's
    if not words or (len(words) == 1 and len(words[0]) <= 3):
        return None
    return " ".join(word.strip("'").lower() for word in words)


def is_phrase(term: str) -> bool:
    return " " in term or (len(term) > 3 and term.islower())


def phrase_pattern(phrase: str) -> re.Pattern[str]:
    words = [re.escape(word) for word in phrase.split()]
    return re.compile(r"(?<![\w-])" + r"[\s-]+".join(words) + r"(?:s|es)?(?![\w-])", re.IGNORECASE)


def needs_no_definition(symbol: str) -> bool:
    return symbol in CONVENTIONAL_SYMBOLS or symbol.isdigit()


def defines_term(text: str, term: str) -> bool:
    """Whether `text` (a corpus passage) defines `term` by the same patterns a claim defines one."""
    plain = plain_text(text)
    if term not in plain:
        return False
    # A defined symbol is a piece of its sentence, and a defined one-word phrase a piece of the lower-cased sentence
    # (unless a capital sigma lowers differently alone than in the sentence: final sigma): a sentence without the term
    # is not read for them.
    one_word = term.split() == [term]
    return any(
        (term in sentence and term in _defined_symbols(sentence))
        or ((not one_word or "Σ" in sentence or term in sentence.lower()) and term in _defined_phrases(sentence))
        for sentence in plain.split(". ")
    )
