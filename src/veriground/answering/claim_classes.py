"""Seed 003 §6.1 claim classes of an answer sentence, by cue words (the riskier class wins)."""

from __future__ import annotations

import re

from veriground.schema import AnswerClaimClass

# Cue words per class, riskiest class first: the first class with a cue in the sentence wins.
_CUES: tuple[tuple[AnswerClaimClass, str], ...] = (
    (
        AnswerClaimClass.COMPARATIVE,
        r"than|whereas|unlike|compared (?:to|with)|in contrast|versus|vs\.?|better|worse|faster|slower|"
        r"more efficient|less efficient|outperforms?|superior|inferior|both|neither|differs?|difference between",
    ),
    (
        AnswerClaimClass.SCOPE,
        r"only (?:if|when)|assum(?:e|es|ed|ing|ption)|applies|applicable|valid (?:only|when|for)|limited to|"
        r"provided that|unless|except|holds (?:only|when)|in general|under the condition|requires? that",
    ),
    (
        AnswerClaimClass.HISTORICAL,
        r"1[5-9]\d\d|20\d\d|first (?:proved|introduced|described|published|proposed)|introduced (?:by|in)|"
        r"invented|discovered|founded|originally|historically|centur(?:y|ies)",
    ),
)
_CLASS_CUES = tuple((claim_class, re.compile(rf"\b({words})\b", re.IGNORECASE)) for claim_class, words in _CUES)


def classify_answer_claim(text: str) -> AnswerClaimClass:
    """Comparative, then scope, then historical cues; otherwise a plain factual claim."""
    return next((claim_class for claim_class, cues in _CLASS_CUES if cues.search(text)), AnswerClaimClass.FACTUAL)
