"""The engine threads that own the corpus store, the retriever and the models: requests queue for them.

Each of service.engine_workers threads opens its own Workspace and takes its EngineContext from it (SQLite
connection, index, NLI and LLM clients), since SQLite connections and torch models are not shared across threads
here; the event loop never blocks on a model. Read jobs run side by side; a job that writes the store (an upload)
waits until no read is running and holds reads off until it is done and the index is up to date, so every job sees
one store generation throughout (store_access.py).
Admission is by estimated cost (claims x evidence passages) against the measured rate of the workers together, so a
request that could not finish within service.request_deadline_s is refused at once with a Retry-After.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import queue
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from veriground.config import Config
from veriground.service.admission import CostMeter
from veriground.service.cancellation import (
    JobTicket,
    RequestCancelledError,
    ServerBusyError,
    whole_seconds,
)
from veriground.service.guarded_backends import GuardedLLM, GuardedNLI, GuardedRetriever
from veriground.service.store_access import StoreAccessLock

if TYPE_CHECKING:
    from veriground.backends.protocols import LLM, NLIModel
    from veriground.corpus.store import CorpusStore
    from veriground.retrieval.search import CorpusRetriever
    from veriground.schema import ServiceHealth, ServiceReadiness
    from veriground.service.facets import CorpusFacets
    from veriground.workspace import Workspace

T = TypeVar("T")
__all__ = ["EngineContext", "EngineWorker", "ServerBusyError", "engine_worker_count", "open_engine"]


@dataclass
class EngineContext:
    """What a job may use; built once per engine thread, on that thread."""

    config: Config
    store: CorpusStore
    retriever: CorpusRetriever
    nli: NLIModel
    llm: LLM | None
    judge: LLM | None
    ticket: JobTicket | None = None  # the running request's deadline and cancel flag
    workspace: Workspace | None = None  # what built the backends above; closing it releases them

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

    def close(self) -> None:
        """Release what this thread opened: the workspace (store and LLM clients), or the bare store given."""
        if self.workspace is not None:
            self.workspace.close()
        else:
            self.store.close()


def open_engine(config: Config) -> EngineContext:
    """Open a Workspace over the corpus (it must exist) and take its configured backends, built now."""
    from veriground.workspace import Workspace

    workspace = Workspace(config)
    try:
        judge = workspace.judge
        retriever = workspace.retriever
        retriever.passages_indexed()  # the index is loaded (or built and saved) now, not by the first request
        return EngineContext(
            config=config,
            store=workspace.store,
            retriever=retriever,
            nli=workspace.nli,
            llm=workspace.llm,
            judge=judge,
            workspace=workspace,
        )
    except BaseException:
        workspace.close()
        raise


_NOT_OPEN = object()  # an engine thread whose opener raised
MAX_AUTO_ENGINE_WORKERS = 4  # each worker holds its own models and index: memory grows with the count
# A model NLI runs one pair per core in native code (backends/shipped_nli.py), outside the GIL: a worker per two
# cores keeps the cores busy while the other worker does its Python stages.
CORES_PER_MODEL_WORKER = 2


def engine_worker_count(config: Config) -> int:
    """service.engine_workers, or when unset: 1 with the lexical NLI, else one per CORES_PER_MODEL_WORKER cores up
    to MAX_AUTO_ENGINE_WORKERS.

    The lexical NLI is pure Python, so its threads share one GIL with the event loop. bench_reliability (50
    clients x 30 s, 2 cores), 2 workers against 1: 54-58 /verify per second against 59-61 on a quiet machine,
    /health p99 35-39 ms against 29-37 ms; on a busy one (other jobs at load 2-3), a /health p99 over 1 s in 3 of
    5 runs against 37-91 ms. What a second one buys is a short request not waiting behind a long one."""
    from veriground.backends.onnx_export import usable_cores
    from veriground.backends.registry import LEXICAL_NLI

    if config.service.engine_workers is not None:
        return config.service.engine_workers
    if config.models.nli == LEXICAL_NLI:
        return 1
    return max(1, min(MAX_AUTO_ENGINE_WORKERS, usable_cores() // CORES_PER_MODEL_WORKER))


@dataclass
class _QueuedJob:
    job: Callable[[EngineContext], Any]
    ticket: JobTicket
    writes: bool
    future: Future[Any]


class EngineWorker:
    """Runs jobs `(EngineContext) -> T` on `workers` engine threads (service.engine_workers), each job under its
    request's deadline; jobs start in arrival order."""

    def __init__(self, config: Config, opener: Callable[[Config], EngineContext] = open_engine) -> None:
        self._config = config
        self._opener = opener
        self.workers = engine_worker_count(config)
        self._queue: queue.SimpleQueue[_QueuedJob | None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._opened: list[Future[None]] = []  # one per thread: its context opened, or the error it raised
        self.store_access = StoreAccessLock()
        self._opening = threading.Lock()
        self._pending = 0  # admitted and not finished (queued + running)
        self._running = 0
        self._lock = threading.Lock()
        self.meter = CostMeter()
        self._health: ServiceHealth | None = None
        self.health_body: bytes | None = None  # the snapshot as the JSON /health sends
        self.facets: CorpusFacets | None = None  # what the forms offer, taken with the health snapshot

    def start(self) -> None:
        """Open every worker's engine now, so a bad corpus or model fails at start-up, not on the first request."""
        self._spawn()
        try:
            for opened in list(self._opened):
                opened.result()
        except BaseException:
            self.close()  # the threads that did open close their stores
            raise

    @property
    def health(self) -> ServiceHealth | None:
        """What /health reports, refreshed on an engine thread (at start, after an upload) so /health never queues."""
        return self._health

    @health.setter
    def health(self, snapshot: ServiceHealth | None) -> None:
        self._health = snapshot
        self.health_body = None if snapshot is None else snapshot.model_dump_json().encode()

    @property
    def loaded(self) -> bool:
        return any(opened.done() and opened.exception() is None for opened in self._opened)

    def _spawn(self) -> None:
        with self._lock:
            if self._threads:
                return
            for number in range(self.workers):
                opened: Future[None] = Future()
                thread = threading.Thread(
                    target=self._serve, args=(opened,), name=f"veriground-engine-{number}", daemon=True
                )
                self._opened.append(opened)
                self._threads.append(thread)
                thread.start()

    def _serve(self, opened: Future[None]) -> None:
        """One engine thread: open its own context, then run queued jobs until the closing sentinel."""
        context = self._open(opened, announce=True)
        while (item := self._queue.get()) is not None:
            if not item.future.set_running_or_notify_cancel():
                continue  # dropped while it queued
            if context is _NOT_OPEN:  # opening failed before: try again, and fail this job if it fails again
                context = self._open(item.future, announce=False)
                if context is _NOT_OPEN:
                    continue
            try:
                result = self._call(context, item)  # type: ignore[arg-type]
            except BaseException as err:  # handed to the request, as ThreadPoolExecutor does
                item.future.set_exception(err)
            else:
                item.future.set_result(result)
        if isinstance(context, EngineContext):
            context.close()

    def _open(self, outcome: Future[Any], *, announce: bool) -> EngineContext | object:
        """This thread's context, or _NOT_OPEN with the opener's error set on `outcome` (whose result is set
        on success only when `announce`: a job's future gets its job's result)."""
        try:
            with self._opening:  # one at a time: the first builds a stale index and saves it, the rest load it
                context = self._opener(self._config)
        except BaseException as err:
            outcome.set_exception(err)
            return _NOT_OPEN
        if announce:
            outcome.set_result(None)
        return context

    async def run(
        self,
        job: Callable[[EngineContext], T],
        *,
        units: float = 1.0,
        writes: bool = False,
        client_gone: Callable[[], Awaitable[None]] | None = None,
    ) -> T:
        """Run `job` on an engine thread, or raise ServerBusyError (503) when it would not finish in time.

        `units` is the job's estimated cost; `writes` marks a job that changes the store (it runs alone);
        `client_gone`, when given, returns once the client has hung up, and the job is then dropped (before it
        starts, or at its next stage)."""
        ticket = self._admit(units)
        future: Future[T] = Future()
        future.add_done_callback(lambda _: self._release(ticket))
        self._spawn()
        self._queue.put(_QueuedJob(job, ticket, writes, future))
        waiter: asyncio.Future[Any] = asyncio.wrap_future(future)
        watcher: asyncio.Future[Any] | None = None if client_gone is None else asyncio.ensure_future(client_gone())
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
            wait_s = self.meter.wait_s(units, workers=self.workers)
            if self._pending >= self.workers and wait_s > service.request_deadline_s:
                # With a worker free a request always gets its chance; behind others it must fit the deadline.
                retry = wait_s - service.request_deadline_s  # when enough of the queue is done for it to fit
                raise ServerBusyError(
                    f"the engine has about {self.retry_after_s():.1f} s of queued work and this request would not "
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

    def _call(self, context: EngineContext, item: _QueuedJob) -> object:
        ticket = item.ticket
        with self.store_access.writing() if item.writes else self.store_access.reading():
            ticket.check("it started")  # dropped or expired while it queued
            ticket.started_at = time.monotonic()
            with self._lock:
                self._running += 1
            try:
                result = item.job(context if context is None else context.guarded(ticket))
            finally:
                with self._lock:
                    self._running -= 1
                if item.writes and context is not None and context.retriever is not None:
                    # Even after a failed or stopped upload (its finished documents are stored): the index is
                    # saved now, under the write lock, so the other workers load it and none rebuilds it.
                    context.retriever.passages_indexed()
        self.meter.observe(ticket.units, time.monotonic() - ticket.started_at)
        return result

    def retry_after_s(self) -> float:
        """When a refused request should come back: when the queued work is likely done."""
        return self.meter.wait_s(workers=self.workers)

    @property
    def pending(self) -> int:
        return self._pending

    def readiness(self) -> ServiceReadiness:
        from veriground.schema import ServiceReadiness

        with self._lock:
            pending, running = self._pending, self._running
        wait_s = self.retry_after_s()
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
        """Let queued jobs finish, then stop every thread; each closes its own store connection."""
        with self._lock:
            threads, self._threads, self._opened = self._threads, [], []
        for _ in threads:
            self._queue.put(None)
        for thread in threads:
            thread.join()


def _ignore_result(future: asyncio.Future[Any]) -> None:
    """A dropped job's outcome (result, or the error its ticket raised) has no one left to read it."""
    with contextlib.suppress(BaseException):
        future.result()
