"""The engine's backends as one request sees them: each call to a stage's backend (retrieval, NLI, LLM) first
checks the request's JobTicket, so a request past its deadline or abandoned by its client stops between stages.

They change no result: every call is passed through unchanged (the NLI batch is never split, so batching and
thus scores stay what the CLI computes). Anything else is delegated to the wrapped object.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from veriground.service.cancellation import JobTicket


class _Delegating:
    def __init__(self, inner: Any, ticket: JobTicket) -> None:
        self._inner = inner
        self._ticket = ticket

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class GuardedRetriever(_Delegating):
    """A CorpusRetriever that checks the ticket before each search."""

    def retrieve(self, query: str, top_k: int | None = None) -> Any:
        self._ticket.check("retrieval")
        return self._inner.retrieve(query, top_k)

    def retrieve_many(self, queries: Sequence[str], top_k: int | None = None) -> Any:
        self._ticket.check("retrieval")
        return self._inner.retrieve_many(queries, top_k)


class GuardedNLI(_Delegating):
    """An NLIModel that checks the ticket before each predict call (claim-evidence NLI, evidence conflicts)."""

    def predict(self, pairs: Sequence[tuple[str, str]]) -> Any:
        self._ticket.check("NLI")
        return self._inner.predict(pairs)


class GuardedLLM(_Delegating):
    """An LLM (generator or judge) that checks the ticket before each completion."""

    def complete(self, messages: Sequence[Any], *, samples: int = 1) -> Any:
        self._ticket.check("the LLM call")
        return self._inner.complete(messages, samples=samples)
