"""Proof steps and pseudocode in a claim → the span that shows it (seed 000 domains 2 and 3).

"Assume for contradiction that the set S has no minimum element" is a proof step; "Set low = 0, high = n-1, then
compute mid = (low + high) / 2" is pseudocode: an imperative step with an assignment, not a statement of fact.
"""

from __future__ import annotations

import re

_PROOF_STEP = re.compile(
    r"^\s*(?:(?:first|next|now|then|finally|so|and)\s*,?\s+)?"
    r"(?P<step>assume|suppose|let\b|by\s+(?:induction|contradiction|the\s+(?:induction|inductive)\s+hypothesis|"
    r"the\s+pigeonhole\s+principle)|hence|therefore|thus|it\s+follows|without\s+loss\s+of\s+generality|w\.?l\.?o\.?g|"
    r"base\s+case|inductive\s+step|for\s+the\s+inductive\s+step|we\s+(?:conclude|obtain|show|prove|claim|need\s+to\s+"
    r"show|now\s+show)|this\s+(?:contradicts|is\s+a\s+contradiction)|consequently|QED)\b"
    r"|(?P<end>∎|\bQED\b|\bwhich\s+(?:contradicts|is\s+a\s+contradiction)\b|\bcontradiction\b\s*[.!]?\s*$)",
    re.IGNORECASE | re.MULTILINE,
)
_PSEUDOCODE_OPENER = re.compile(
    r"(?:^|[.;:]\s+|\bthen\s+|,\s*)(?P<verb>set|let|initiali[sz]e|compute|assign|increment|decrement|swap|return|"
    r"repeat|append|push|pop|call|update|store|for\s+each|for\s+\w+\s*(?:=|←|:=|in\b)|while|until|if\b[^,]{1,60}"
    r"\bthen)\b",
    re.IGNORECASE,
)
_ASSIGNMENT = re.compile(r"(?<![\w=<>!])[A-Za-z_][\w\[\].]*\s*(?:←|:=|=(?!=)|\+=|-=)\s*[^\s=]")
_CODE_TOKEN = re.compile(r"\+\+|--(?=\s|$)|:=|←|\breturn\b\s+\w|\bfor\s*\(|\bwhile\s*\(|[{};]\s*$|\w\[\w+\]\s*=")
# Pseudocode needs an opener and an assignment or code token; a sentence with only "let" is mathematics.
MIN_PSEUDOCODE_MARKERS = 2


def find_proof_step(text: str) -> tuple[int, int] | None:
    """Span of the words that make `text` a proof step ("Assume", "by induction", "∎"), or None."""
    match = _PROOF_STEP.search(text)
    if match is None:
        return None
    group = "step" if match.group("step") else "end"
    return match.span(group)


def find_pseudocode(text: str) -> tuple[int, int] | None:
    """Span from the first imperative step to the last assignment or code token, or None when not pseudocode."""
    opener = _PSEUDOCODE_OPENER.search(text)
    if opener is None:
        return None
    markers = list(_ASSIGNMENT.finditer(text, opener.start("verb"))) + list(_CODE_TOKEN.finditer(text))
    if len(markers) + 1 < MIN_PSEUDOCODE_MARKERS:
        return None
    is_let = opener.group("verb").lower() == "let"
    if is_let and len(markers) < MIN_PSEUDOCODE_MARKERS:  # "Let n = 2k + 1" is a definition in a proof
        return None
    end = max(marker.end() for marker in markers)
    end = _extend_to_clause_end(text, end)
    return opener.start("verb"), end


def _extend_to_clause_end(text: str, end: int) -> int:
    match = re.compile(r"[^,;]*").match(text, end)
    stop = match.end() if match else end
    return len(text[:stop].rstrip(" .!?"))
