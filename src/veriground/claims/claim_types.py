"""Claim typing: claim text -> ClaimType by an ordered table of named rules; the first match wins.

| order | type          | fires when the claim ...                                                        |
|-------|---------------|---------------------------------------------------------------------------------|
| 1     | complexity    | has O(.)/Θ(.)/Ω(.) notation, "time/space complexity" or "running time"          |
| 2     | equation      | has an equation (equations.py: LaTeX with a relation, display math, `x = y`)    |
| 3     | numeric       | has a number that is not a year, an index (`A[1]`) or part of a word (`H2O`)    |
| 4     | theorem       | says theorem/lemma/corollary, "for all/any/every", "if and only if"           |
| 5     | proof_step    | says assume/suppose, "by induction/contradiction", hence/therefore/thus, ...  |
| 6     | definitional  | says "is defined as", "is called", "refers to", or opens "X is a/an/the ..."   |
| 7     | historical    | dates something ("in 1687", "since the 1950s"), or introduced/invented/...     |
| 8     | algorithmic   | says algorithm/pseudocode/loop/invariant/recursively/iterates/divides, ...     |
| 9     | comparative   | says "<adjective>er than", "more/less than", better/worse, "compared to", ...   |
| 10    | scope         | says "only when/if", assumes, "applies to", "valid for", limitation, ...       |
| 11    | conceptual    | says because/causes/"leads to"/"results in", law, principle                    |
| 12    | factual       | anything else                                                                   |

Complexity and equation come before numeric so "O(n log n)" and "KE = ½mv²" are not typed by their
digits; numeric comes before definitional so "g is 9.8 m/s²" is numeric (seed 000 Target Content Slice);
historical comes before algorithmic so "Dijkstra's algorithm was published in 1959" is historical.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from veriground.claims.equations import find_equations
from veriground.schema import ClaimType
from veriground.text.memo import text_memo

_COMPLEXITY = re.compile(
    r"(?<![\w])(?:O|Θ|Ω|o|ω|\\Theta|\\Omega|\\mathcal\{O\})\s*\(\s*[^()\s]|\bbig[- ]?(?:o|theta|omega)\b"
    r"|\b(?:time|space)\s+complexity\b|\brunning\s+time\b|\b(?:logarithmic|linear|quadratic|polynomial|"
    r"exponential)\s+time\b",
    re.IGNORECASE,
)
_URL = re.compile(r"\bhttps?://[^\s)]+|\bwww\.[^\s)]+")
# A year is a number 1000-2099 after a word that dates something: "in 1687", "since the 1950s".
_YEAR = r"\b(?:in|since|by|until|from|around|circa|c\.|year)\s+(?:the\s+)?(?:1\d{3}|20\d{2})s?\b"
_NUMBER = re.compile(r"(?<![\w.\[\]-])[-−]?\d+(?:[.,]\d+)*(?![\w\[\]]|\.\.|\.\d)")
# A number that labels a part ("Step 2", "Figure 3", "Eq. 4") is not a quantity.
_LABEL = re.compile(
    r"\b(?:step|case|part|chapter|section|figure|fig\.|equation|eq\.|table|example|theorem|lemma|line)\s+$",
    re.IGNORECASE,
)
_YEAR_NUMBER = re.compile(r"(?:1\d{3}|20\d{2})")
_DATED = re.compile(_YEAR, re.IGNORECASE)
_THEOREM = re.compile(
    r"\b(?:theorem|lemma|corollary|proposition|for\s+(?:all|any|every|each)|if\s+and\s+only\s+if|iff)\b|[∀∃]",
    re.IGNORECASE,
)
_PROOF_STEP = re.compile(
    r"\b(?:assume|suppose|by\s+(?:induction|contradiction|the\s+induction\s+hypothesis)|hence|therefore|thus|"
    r"it\s+follows|without\s+loss\s+of\s+generality|we\s+(?:conclude|obtain|have\s+shown)|QED)\b|∎",
    re.IGNORECASE,
)
# "is defined as", "is called", "refers to", "denotes": a definition's wording (split_rules.py reads it too).
DEFINITION_CUE = re.compile(
    r"\b(?:is|are)\s+(?:defined\s+as|called|known\s+as|termed)\b|\brefers?\s+to\b|\bdenotes?\b",
    re.IGNORECASE,
)
# "X is a/an/the ...": a subject of at most five words, then the copula, at the start of the claim.
_DEFINITIONAL_COPULA = re.compile(r"^(?:[\w'’-]+\s+){1,5}(?:is|are)\s+(?:a|an|the)\s", re.IGNORECASE)
_ALGORITHMIC = re.compile(
    r"\b(?:algorithms?|pseudocode|loop|invariant|recursively|recursive|iterates?|iteratively|divides|"
    r"merges|swaps|traverses|visits|partitions|returns|subarray)\b",
    re.IGNORECASE,
)
_COMPARATIVE = re.compile(
    r"\b(?:\w+er|more|less|fewer)\s+than\b|\b(?:better|worse|compared\s+(?:to|with)|whereas|unlike|"
    r"in\s+contrast)\b",
    re.IGNORECASE,
)
_SCOPE = re.compile(
    r"\bonly\s+(?:when|if|for|in)\b|\bassumes\b|\bapplies\s+(?:only\s+)?to\b|\bvalid\s+(?:only\s+)?(?:for|when)\b|"
    r"\blimitations?\b|\bholds\s+only\b|\bunder\s+the\s+assumption\b",
    re.IGNORECASE,
)
_HISTORICAL = re.compile(
    _YEAR + r"|\b(?:introduced|invented|discovered|first\s+(?:proposed|described|published))\b",
    re.IGNORECASE,
)
_CONCEPTUAL = re.compile(
    r"\b(?:because|causes?|caused|leads\s+to|results\s+in|laws?|principles?)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class TypeRule:
    name: str
    when: Callable[[str], bool]
    claim_type: ClaimType


def _matches(pattern: re.Pattern[str]) -> Callable[[str], bool]:
    return lambda text: pattern.search(text) is not None


def _has_number(text: str) -> bool:
    years = {match.end() for match in _DATED.finditer(text)}
    for match in _NUMBER.finditer(text):
        if _YEAR_NUMBER.fullmatch(match.group()) and match.end() in years:
            continue
        if _LABEL.search(text, max(0, match.start() - 20), match.start()):
            continue
        return True
    return False


def _is_definitional(text: str) -> bool:
    return DEFINITION_CUE.search(text) is not None or _DEFINITIONAL_COPULA.match(text) is not None


TYPE_RULES: tuple[TypeRule, ...] = (
    TypeRule("complexity-notation", _matches(_COMPLEXITY), ClaimType.COMPLEXITY),
    TypeRule("has-equation", lambda text: bool(find_equations(text)), ClaimType.EQUATION),
    TypeRule("has-number", _has_number, ClaimType.NUMERIC),
    TypeRule("theorem-wording", _matches(_THEOREM), ClaimType.THEOREM),
    TypeRule("proof-step-wording", _matches(_PROOF_STEP), ClaimType.PROOF_STEP),
    TypeRule("definition-wording", _is_definitional, ClaimType.DEFINITIONAL),
    TypeRule("historical-wording", _matches(_HISTORICAL), ClaimType.HISTORICAL),
    TypeRule("algorithm-wording", _matches(_ALGORITHMIC), ClaimType.ALGORITHMIC),
    TypeRule("comparison-wording", _matches(_COMPARATIVE), ClaimType.COMPARATIVE),
    TypeRule("scope-wording", _matches(_SCOPE), ClaimType.SCOPE),
    TypeRule("causal-wording", _matches(_CONCEPTUAL), ClaimType.CONCEPTUAL),
)


@text_memo(maxsize=16_384)  # extraction, the domain hooks and the report ask about the same claim
def classify_claim(text: str) -> ClaimType:
    """The type of the first rule in TYPE_RULES that fires on `text` (URLs left out); FACTUAL when none does."""
    text = _URL.sub(" ", text)
    return next((rule.claim_type for rule in TYPE_RULES if rule.when(text)), ClaimType.FACTUAL)
