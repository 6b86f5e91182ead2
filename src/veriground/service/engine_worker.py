"""The one thread that owns the corpus store, the retriever and the models: requests queue for it.

SQLite connections and torch models are not shared across threads here; every job runs on this thread, in
arrival order, so concurrent requests cannot interleave writes and the event loop never blocks on a model.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from veriground.config import Config
from veriground.errors import VerigroundError

if TYPE_CHECKING:
    from veriground.backends.protocols import LLM, NLIModel
    from veriground.corpus.store import CorpusStore
    from veriground.retrieval.search import CorpusRetriever

T = TypeVar("T")


class ServerBusyError(VerigroundError):
    """More requests are waiting for the engine than service.max_pending allows."""


@dataclass
class EngineContext:
    """What a job may use; built once, on the engine thread."""

    config: Config
    store: CorpusStore
    retriever: CorpusRetriever
    nli: NLIModel
    llm: LLM | None
    judge: LLM | None


def open_engine(config: Config) -> EngineContext:
    """Open the corpus (it must exist) and build the configured backends."""
    from veriground.backends.openai_chat import build_judge, build_llm
    from veriground.backends.registry import build_nli
    from veriground.corpus.store import CorpusStore
    from veriground.retrieval.search import build_retriever

    judge = build_judge(config)
    store = CorpusStore(config.corpus.dir, create=False)
    try:
        return EngineContext(
            config=config,
            store=store,
            retriever=build_retriever(store, config),
            nli=build_nli(config.models),
            llm=build_llm(config),
            judge=judge,
        )
    except BaseException:
        store.close()
        raise


class EngineWorker:
    """Runs jobs `(EngineContext) -> T` one at a time on a dedicated thread."""

    def __init__(self, config: Config, opener: Callable[[Config], EngineContext] = open_engine) -> None:
        self._config = config
        self._opener = opener
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="veriground-engine")
        self._context: EngineContext | None = None
        self._pending = 0
        self._lock = threading.Lock()

    def start(self) -> None:
        """Open the engine now, so a bad corpus or model fails at start-up, not on the first request."""
        self._executor.submit(self._ensure_open).result()

    def _ensure_open(self) -> EngineContext:
        if self._context is None:
            self._context = self._opener(self._config)
        return self._context

    async def run(self, job: Callable[[EngineContext], T]) -> T:
        limit = self._config.service.max_pending
        with self._lock:
            if self._pending >= limit:
                raise ServerBusyError(
                    f"{self._pending} requests are already waiting (service.max_pending={limit}); retry shortly, "
                    "or raise service.max_pending"
                )
            self._pending += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, self._call, job)
        finally:
            with self._lock:
                self._pending -= 1

    @property
    def pending(self) -> int:
        return self._pending

    def _call(self, job: Callable[[EngineContext], T]) -> T:
        return job(self._ensure_open())

    def close(self) -> None:
        def shut() -> None:
            if self._context is not None:
                self._context.store.close()
                self._context = None

        self._executor.submit(shut).result()
        self._executor.shutdown(wait=True)
