"""Typed, batch-first protocols that every backend implements, and the error a failing backend raises.

`BackendError` belongs in `veriground.errors`; it lives here until the exception tree is edited.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from veriground.schema import NLIScores


@runtime_checkable
class NLIModel(Protocol):
    """Scores (premise, hypothesis) pairs as entailment / neutral / contradiction probabilities."""

    name: str  # registry name, e.g. "lexical-nli.v1"
    model_id: str  # what it is, e.g. "veriground/lexical-nli" or a Hugging Face id
    checksum: str | None  # sha256 of the weights; None for a rule-based model

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        """One NLIScores per (premise, hypothesis) pair, in order; raises BackendError when it cannot."""
        ...
