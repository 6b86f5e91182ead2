"""verify-batch on this machine: rows -> (seq, record) pairs, from a process pool of RowVerifiers (or this process
when one worker is asked for). Pairs come back in completion order; the runner puts them in input order.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from itertools import islice

from veriground.backends.onnx_export import usable_cores
from veriground.batch.row_verifier import RowVerifier
from veriground.batch.rows import RowTask
from veriground.config import Config
from veriground.errors import BackendError

# Rows sent to a worker at once: enough to hide the hand-over cost (a lexical row takes ~10 ms), few enough that
# a killed run loses little finished-but-unwritten work.
CHUNK_ROWS = 8
# Chunks queued per worker, so a worker never waits for the driver to hand out the next one.
CHUNKS_IN_FLIGHT_PER_WORKER = 2

_WORKER_VERIFIER: RowVerifier | None = None


def default_workers() -> int:
    """One worker per core this process may run on."""
    return usable_cores()


class LocalPoolExecutor:
    """Runs rows in `workers` processes (spawned, each loading the models once); one worker runs them here."""

    name = "local"

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or default_workers()

    def run(self, config: Config, tasks: Iterable[RowTask]) -> Iterator[tuple[int, str]]:
        if self.workers == 1:
            verifier = RowVerifier(config)
            try:
                for task in tasks:
                    yield task.seq, verifier.verify(task)
            finally:
                verifier.close()
            return
        yield from self._run_pool(config, tasks)

    def _run_pool(self, config: Config, tasks: Iterable[RowTask]) -> Iterator[tuple[int, str]]:
        # spawn, not fork: the driver may hold a progress-bar thread and open files a fork would copy mid-use.
        context = multiprocessing.get_context("spawn")
        iterator = iter(tasks)
        chunks = iter(lambda: list(islice(iterator, CHUNK_ROWS)), [])
        limit = self.workers * CHUNKS_IN_FLIGHT_PER_WORKER
        pool = ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=context,
            initializer=_start_worker,
            initargs=(config.model_dump(mode="json"),),
        )
        pending: set[Future[list[tuple[int, str]]]] = set()
        finished = False
        try:
            for chunk in islice(chunks, limit):
                pending.add(pool.submit(_verify_chunk, chunk))
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    yield from _chunk_result(future)
                for chunk in islice(chunks, len(done)):
                    pending.add(pool.submit(_verify_chunk, chunk))
            finished = True
        finally:
            pool.shutdown(wait=finished, cancel_futures=not finished)


def _chunk_result(future: Future[list[tuple[int, str]]]) -> list[tuple[int, str]]:
    try:
        return future.result()
    except BrokenProcessPool:
        raise BackendError(
            "a verify-batch worker process died (out of memory, or killed); the records written so far are kept: "
            "run the same command again to go on, with fewer --workers if memory is short"
        ) from None


def _start_worker(config_data: dict) -> None:
    global _WORKER_VERIFIER
    # Ctrl-C reaches the whole process group: the driver stops the batch; a worker printing its own
    # KeyboardInterrupt traceback would only bury the driver's one-line message.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WORKER_VERIFIER = RowVerifier(Config.model_validate(config_data))


def _verify_chunk(chunk: list[RowTask]) -> list[tuple[int, str]]:
    assert _WORKER_VERIFIER is not None, "the pool initializer builds the verifier"
    return [(task.seq, _WORKER_VERIFIER.verify(task)) for task in chunk]
