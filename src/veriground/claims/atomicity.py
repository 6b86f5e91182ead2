"""Atomic claim enforcement (seed 000 §2.3.2): one sentence span -> atomic pieces, each with its rule.

R1 (one sentence per claim) is the segmenter's job (text/sentences.py); here R5, R6, R2, R4 and R3 are tried
in that order on the sentence and again on every piece they produce. R5 and R6 go first because their
pieces may hold the semicolons and conjunctions that R4 and R3 would otherwise cut at, under the wrong
rule. A split that would leave an empty or one- or two-word piece merges that piece into a neighbour;
when one piece is left, the rule does not apply.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from veriground.claims.split_rules import (
    Part,
    split_conjunctions,
    split_definition_application,
    split_equations,
    split_semicolons,
    split_steps,
)

MIN_CLAIM_WORDS = 3  # "never a one- or two-word claim": below this a piece is not a testable proposition
MAX_SPLIT_DEPTH = 8  # a sentence is split at most this many times over; deeper pieces stay whole
SPLIT_RULES: tuple[tuple[str, Callable[[str, int, int, str], list[Part]]], ...] = (
    ("R5", split_steps),
    ("R6", split_definition_application),
    ("R2", split_equations),
    ("R4", split_semicolons),
    ("R3", split_conjunctions),
)
_LEADING_CONNECTOR = re.compile(r"(?:and|or|but)\b", re.IGNORECASE)
_TRAILING_CONNECTOR = re.compile(r"(?<![\w-])(?:and|or|but)$", re.IGNORECASE)
_EDGE_MARKS = ",;:"


@dataclass(frozen=True)
class Piece:
    """text[start:end] with `subject` (copied by R3) read before it; `rule` made it (None: unsplit)."""

    start: int
    end: int
    subject: str = ""
    rule: str | None = None


def split_atomic(text: str, start: int, end: int) -> list[Piece]:
    """The atomic pieces of the sentence text[start:end] (citations masked), in text order."""
    return _split(text, Piece(start, end), depth=0)


def _split(text: str, piece: Piece, depth: int) -> list[Piece]:
    if depth >= MAX_SPLIT_DEPTH:
        return [piece]
    for rule, find_parts in SPLIT_RULES:
        parts = _merge_short(
            text, [_trim(text, part) for part in find_parts(text, piece.start, piece.end, piece.subject)]
        )
        if len(parts) < 2:
            continue
        pieces: list[Piece] = []
        for part_start, part_end, subject in parts:
            pieces.extend(_split(text, Piece(part_start, part_end, subject, rule), depth + 1))
        return pieces
    return [piece]


def _trim(text: str, part: Part) -> Part:
    """Drop spaces, edge commas/semicolons/colons and a dangling and/or/but from both ends."""
    start, end, subject = part
    while True:
        before = (start, end)
        while start < end and (text[start].isspace() or text[start] in _EDGE_MARKS):
            start += 1
        while end > start and (text[end - 1].isspace() or text[end - 1] in _EDGE_MARKS):
            end -= 1
        leading = _LEADING_CONNECTOR.match(text, start, end)
        if leading:
            start = leading.end()
        trailing = _TRAILING_CONNECTOR.search(text, start, end)
        if trailing:
            end = trailing.start()
        if (start, end) == before:
            return start, end, subject


def _merge_short(text: str, parts: list[Part]) -> list[Part]:
    """Join each part under MIN_CLAIM_WORDS (or empty) to the part before it (the first: after it)."""
    merged: list[Part] = []
    for part in parts:
        if merged and _word_count(text, part) < MIN_CLAIM_WORDS:
            merged[-1] = (merged[-1][0], part[1], merged[-1][2])
        else:
            merged.append(part)
    if len(merged) >= 2 and _word_count(text, merged[0]) < MIN_CLAIM_WORDS:
        merged[:2] = [(merged[0][0], merged[1][1], merged[0][2])]
    return merged


def _word_count(text: str, part: Part) -> int:
    start, end, subject = part
    return len(subject.split()) + len(text[start:end].split())
