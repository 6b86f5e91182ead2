"""The one thread that owns the corpus store, the retriever and the models: requests queue for it.

SQLite connections and torch models are not shared across threads here; every job runs on this thread, in
arrival order, so concurrent requests cannot interleave writes and the event loop never blocks on a model.
Admission is by estimated cost (claims x evidence passages) against the measured rate, so a request that could
not finish within service.request_deadline_s is refused at once with a Retry-After instead of queueing.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from veriground.config import Config
from veriground.service.admission import CostMeter
from veriground.service.cancellation import (
    JobTicket,
    RequestCancelledError,
    ServerBusyError,
    whole_seconds,
)
from veriground.service.guarded_backends import GuardedLLM, GuardedNLI, GuardedRetriever

if TYPE_CHECKING:
    from veriground.backends.protocols import LLM, NLIModel
    from veriground.corpus.store import CorpusStore
    from veriground.retrieval.search import CorpusRetriever
    from veriground.schema import ServiceHealth, ServiceReadiness

T = TypeVar("T")
__all__ = ["EngineContext", "EngineWorker", "ServerBusyError", "open_engine"]


@dataclass
class EngineContext:
    """What a job may use; built once, on the engine thread."""

    config: Config
    store: CorpusStore
    retriever: CorpusRetriever
    nli: NLIModel
    llm: LLM | None
    judge: LLM | None
    ticket: JobTicket | None = None  # the running request's deadline and cancel flag

    def guarded(self, ticket: JobTicket) -> EngineContext:
        """This context with every stage backend checking `ticket` before it runs."""
        return dataclasses.replace(
            self,
            retriever=GuardedRetriever(self.retriever, ticket),  # type: ignore[arg-type]
            nli=GuardedNLI(self.nli, ticket),  # type: ignore[arg-type]
            llm=None if self.llm is None else GuardedLLM(self.llm, ticket),  # type: ignore[arg-type]
            judge=None if self.judge is None else GuardedLLM(self.judge, ticket),  # type: ignore[arg-type]
            ticket=ticket,
        )

    def check(self, stage: str) -> None:
        """Stop here if the request's client left or its deadline passed (a no-op outside a request)."""
        if self.ticket is not None:
            self.ticket.check(stage)


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
    """Runs jobs `(EngineContext) -> T` one at a time on a dedicated thread, each under its request's deadline."""

    def __init__(self, config: Config, opener: Callable[[Config], EngineContext] = open_engine) -> None:
        self._config = config
        self._opener = opener
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="veriground-engine")
        self._context: EngineContext | None = None
        self._pending = 0  # admitted and not finished (queued + running)
        self._running = 0
        self._lock = threading.Lock()
        self.meter = CostMeter()
        # What /health reports, refreshed on the engine thread (at start, after an upload) so /health never queues.
        self.health: ServiceHealth | None = None

    def start(self) -> None:
        """Open the engine now, so a bad corpus or model fails at start-up, not on the first request."""
        self._executor.submit(self._ensure_open).result()

    @property
    def loaded(self) -> bool:
        return self._context is not None

    def _ensure_open(self) -> EngineContext:
        if self._context is None:
            self._context = self._opener(self._config)
        return self._context

    async def run(
        self,
        job: Callable[[EngineContext], T],
        *,
        units: float = 1.0,
        client_gone: Callable[[], Awaitable[None]] | None = None,
    ) -> T:
        """Run `job` on the engine thread, or raise ServerBusyError (503) when it would not finish in time.

        `units` is the job's estimated cost; `client_gone`, when given, returns once the client has hung up, and
        the job is then dropped (before it starts, or at its next stage)."""
        ticket = self._admit(units)
        future = self._executor.submit(self._call, job, ticket)
        future.add_done_callback(lambda _: self._release(ticket))
        waiter = asyncio.wrap_future(future)
        watcher = asyncio.ensure_future(client_gone()) if client_gone is not None else None
        try:
            await asyncio.wait(
                [waiter] if watcher is None else [waiter, watcher],
                timeout=ticket.remaining_s(),
                return_when=asyncio.FIRST_COMPLETED,
            )
        except asyncio.CancelledError:  # the server is shutting down
            ticket.cancel("the server is stopping")
            future.cancel()
            raise
        finally:
            if watcher is not None:
                watcher.cancel()
        if waiter.done() and not waiter.cancelled():
            return waiter.result()
        gone = watcher is not None and watcher.done() and not watcher.cancelled()
        ticket.cancel("the client disconnected" if gone else "its deadline passed")
        future.cancel()  # a job still queued is skipped; a running one stops at its next stage
        waiter.add_done_callback(_ignore_result)
        if gone:
            raise RequestCancelledError("the client disconnected before its request finished; the work was dropped")
        where = "while queued" if ticket.started_at is None else "while running"
        raise ticket.deadline_error(where, retry_after_s=self.retry_after_s())

    def _admit(self, units: float) -> JobTicket:
        service = self._config.service
        with self._lock:
            if self._pending >= service.max_pending:
                raise ServerBusyError(
                    f"{self._pending} requests are already waiting (service.max_pending={service.max_pending}); "
                    f"retry after {whole_seconds(self.retry_after_s())} s, or raise service.max_pending",
                    retry_after_s=self.retry_after_s(),
                )
            wait_s = self.meter.wait_s(units)
            if self._pending and wait_s > service.request_deadline_s:
                # Alone on the engine a request always gets its chance; behind others it must fit the deadline.
                retry = wait_s - service.request_deadline_s  # when enough of the queue is done for it to fit
                raise ServerBusyError(
                    f"the engine has about {self.meter.wait_s():.1f} s of queued work and this request would not "
                    f"finish within service.request_deadline_s={service.request_deadline_s:g} s; retry after "
                    f"{whole_seconds(retry)} s, or send a shorter text",
                    retry_after_s=retry,
                )
            self._pending += 1
            self.meter.add(units)
        return JobTicket(service.request_deadline_s, units=units)

    def _release(self, ticket: JobTicket) -> None:
        with self._lock:
            self._pending -= 1
            self.meter.remove(ticket.units)

    def _call(self, job: Callable[[EngineContext], T], ticket: JobTicket) -> T:
        ticket.check("it started")  # dropped or expired while it queued
        context = self._ensure_open()
        ticket.started_at = time.monotonic()
        with self._lock:
            self._running += 1
        try:
            result = job(context if context is None else context.guarded(ticket))
        finally:
            with self._lock:
                self._running -= 1
        self.meter.observe(ticket.units, time.monotonic() - ticket.started_at)
        return result

    def retry_after_s(self) -> float:
        """When a refused request should come back: when the queued work is likely done."""
        return self.meter.wait_s()

    @property
    def pending(self) -> int:
        return self._pending

    def readiness(self) -> ServiceReadiness:
        from veriground.schema import ServiceReadiness

        with self._lock:
            pending, running = self._pending, self._running
        wait_s = self.meter.wait_s()
        service = self._config.service
        return ServiceReadiness(
            ready=self.loaded and pending < service.max_pending and wait_s < service.request_deadline_s,
            engine_loaded=self.loaded,
            jobs_running=running,
            jobs_queued=max(0, pending - running),
            estimated_wait_s=round(wait_s, 3),
            seconds_per_unit=round(self.meter.seconds_per_unit, 6),
            request_deadline_s=service.request_deadline_s,
        )

    def close(self) -> None:
        def shut() -> None:
            if self._context is not None:
                self._context.store.close()
                self._context = None

        self._executor.submit(shut).result()
        self._executor.shutdown(wait=True)


def _ignore_result(future: asyncio.Future[object]) -> None:
    """A dropped job's outcome (result, or the error its ticket raised) has no one left to read it."""
    with contextlib.suppress(BaseException):
        future.result()
