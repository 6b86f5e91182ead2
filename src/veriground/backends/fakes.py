"""Deterministic stand-ins for the backend protocols, for tests: a table-driven NLI, one that always fails,
a hashing embedder, a word-overlap reranker and a scripted LLM. None of them is ever a default at run time."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from veriground.backends.llm_cache import request_key
from veriground.errors import BackendError
from veriground.schema import ChatMessage, LLMCompletion, NLIScores

_WORD = re.compile(r"\w+")


class FakeNLIModel:
    """Looks each (premise, hypothesis) pair up in a table, else answers `default`; records every batch."""

    name = "fake-nli.v1"
    model_id = "veriground/fake-nli"
    checksum: str | None = None

    def __init__(self, table: Mapping[tuple[str, str], NLIScores], default: NLIScores) -> None:
        self.table = dict(table)
        self.default = default
        self.calls: list[list[tuple[str, str]]] = []

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        batch = list(pairs)
        self.calls.append(batch)
        return [self.table.get(pair, self.default) for pair in batch]


class FailingNLIModel:
    """Raises BackendError on every call, as a backend whose weights are missing would."""

    name = "failing-nli.v1"
    model_id = "veriground/failing-nli"
    checksum: str | None = None

    def __init__(self, message: str = "model weights not found") -> None:
        self.message = message

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        raise BackendError(self.message)


class FakeEmbedder:
    """Bag of hashed lower-cased words, L2-normalised: texts sharing words are similar, nothing else is."""

    name = "fake-embedder.v1"
    model_id = "veriground/fake-embedder"
    checksum: str | None = None

    def __init__(self, dimension: int = 64) -> None:
        self.dimension = dimension
        self.calls = 0

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        vectors = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                bucket = int.from_bytes(hashlib.sha256(word.encode()).digest()[:4], "big") % self.dimension
                vectors[row, bucket] += 1.0
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1.0, norms)


class FakeReranker:
    """Share of the query's words found in the passage."""

    name = "fake-reranker.v1"
    model_id = "veriground/fake-reranker"
    checksum: str | None = None

    def rank(self, query: str, passages: Sequence[str]) -> list[float]:
        words = set(_WORD.findall(query.lower()))
        return [len(words & set(_WORD.findall(p.lower()))) / max(1, len(words)) for p in passages]


class FakeLLM:
    """Answers from a script: the next reply of a list, or `reply(messages)`; records every chat it was sent."""

    name = "fake-llm.v1"
    model_id = "veriground/fake-llm"
    checksum: str | None = None

    def __init__(self, replies: Sequence[str] | Callable[[list[ChatMessage]], str]) -> None:
        self._reply = replies if callable(replies) else None
        self._script = [] if callable(replies) else list(replies)
        self.calls: list[list[ChatMessage]] = []
        self.json_modes: list[bool] = []

    def complete(
        self, messages: Sequence[ChatMessage], *, samples: int = 1, json_mode: bool = False
    ) -> list[LLMCompletion]:
        chat = list(messages)
        self.calls.append(chat)
        self.json_modes.append(json_mode)
        key = request_key({"messages": [m.model_dump() for m in chat], "n": samples, "json_mode": json_mode})
        return [
            LLMCompletion(text=self._next_reply(chat), finish_reason="stop", request_sha256=key, sample_index=index)
            for index in range(samples)
        ]

    def _next_reply(self, chat: list[ChatMessage]) -> str:
        if self._reply is not None:
            return self._reply(chat)
        if not self._script:
            raise BackendError(f"{self.name} has no scripted reply left after {len(self.calls)} calls; script more")
        return self._script.pop(0)
