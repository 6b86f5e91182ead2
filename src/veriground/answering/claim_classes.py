"""Seed 003 §6.1 claim classes of an answer sentence, by cue words (the riskier class wins)."""

from __future__ import annotations

import re

from veriground.schema import AnswerClaimClass

_COMPARATIVE = re.compile(
    r"\b(than|whereas|unlike|compared (?:to|with)|in contrast|versus|vs\.?|better|worse|faster|slower|"
    r"more efficient|less efficient|outperforms?|superior|inferior|both|neither|differs?|difference between)\b",
    re.IGNORECASE,
)
_SCOPE = re.compile(
    r"\b(only (?:if|when)|assum(?:e|es|ed|ing|ption)|applies|applicable|valid (?:only|when|for)|limited to|"
    r"provided that|unless|except|holds (?:only|when)|in general|under the condition|requires? that)\b",
    re.IGNORECASE,
)
_HISTORICAL = re.compile(
    r"\b(1[5-9]\d\d|20\d\d|first (?:proved|introduced|described|published|proposed)|introduced (?:by|in)|"
    r"invented|discovered|founded|originally|historically|centur(?:y|ies))\b",
    re.IGNORECASE,
)


def classify_answer_claim(text: str) -> AnswerClaimClass:
    """Comparative, then scope, then historical cues; otherwise a plain factual claim."""
    if _COMPARATIVE.search(text):
        return AnswerClaimClass.COMPARATIVE
    if _SCOPE.search(text):
        return AnswerClaimClass.SCOPE
    if _HISTORICAL.search(text):
        return AnswerClaimClass.HISTORICAL
    return AnswerClaimClass.FACTUAL
