"""Typed, batch-first protocols that every model backend implements (one verb each: encode, rank, predict, complete).

Every backend names itself (`name`, a versioned registry entry), says what it is (`model_id`: a Hugging Face
id, a local path or a rule name) and the SHA-256 of its weights (`checksum`, None for a rule-based backend),
so reports can say exactly what judged. A backend that cannot answer raises veriground.errors.BackendError.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from veriground.schema import ChatMessage, LLMCompletion, NLIScores

if TYPE_CHECKING:
    import numpy as np


@runtime_checkable
class NLIModel(Protocol):
    """Scores (premise, hypothesis) pairs as entailment / neutral / contradiction probabilities."""

    name: str  # registry name, e.g. "lexical-nli.v1"
    model_id: str  # what it is, e.g. "veriground/lexical-nli" or a Hugging Face id
    checksum: str | None  # sha256 of the weights; None for a rule-based model

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        """One NLIScores per (premise, hypothesis) pair, in order; raises BackendError when it cannot."""
        ...


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length vectors whose inner product is their cosine similarity."""

    name: str
    model_id: str
    checksum: str | None
    dimension: int

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """A float32 array of shape (len(texts), dimension), each row L2-normalised."""
        ...


@runtime_checkable
class Reranker(Protocol):
    """Scores how well each passage answers a query (higher is better; scales differ between models)."""

    name: str
    model_id: str
    checksum: str | None

    def rank(self, query: str, passages: Sequence[str]) -> list[float]:
        """One relevance score per passage, in the passages' order."""
        ...


@runtime_checkable
class LLM(Protocol):
    """A chat model: messages in, `samples` completions out (temperature and seed come from its config)."""

    name: str  # e.g. "openai-chat.v1"
    model_id: str  # the server's model name, with its base URL
    checksum: str | None  # None: a served model's weights cannot be checked from here

    def complete(self, messages: Sequence[ChatMessage], *, samples: int = 1) -> list[LLMCompletion]:
        """`samples` completions of the chat, in sample order; raises BackendError when the server cannot answer."""
        ...
