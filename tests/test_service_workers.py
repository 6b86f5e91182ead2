"""Several engine workers: reads side by side on their own contexts, uploads alone and seen by every worker
afterwards, admission over the workers together, the count from config and flag, and the same report whichever
worker wrote it. Overlap is shown with barriers and counters; no assertion reads a clock."""

from __future__ import annotations

import asyncio
import functools
import threading
from importlib import resources
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from conftest import lexical_config
from veriground.backends.lexical_nli import LexicalNLIModel
from veriground.cli import main
from veriground.config import load_config
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore
from veriground.schema import QARequest
from veriground.service import jobs
from veriground.service.app import create_app
from veriground.service.cancellation import ServerBusyError
from veriground.service.engine_worker import (
    MAX_AUTO_ENGINE_WORKERS,
    EngineContext,
    EngineWorker,
    engine_worker_count,
)

LOOPBACK = "http://127.0.0.1"
SAFETY_WAIT_S = 10  # only bounds a test that would otherwise hang; no assertion reads a clock
# The demo corpus's own words: Supported, so the report holds more than one verdict
CLAIM = "Kinetic energy is also called energy of motion."
NEW_FACT = "The Zorblat constant of a lattice is exactly seven."
UPLOAD = b"# Zorblat\n\nThe Zorblat constant of a lattice is exactly seven.\n"


@pytest.fixture
def demo_corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    with resources.as_file(resources.files("veriground") / "demo_corpus") as root, CorpusStore(corpus) as store:
        assert not ingest_paths([root / "physics"], store, load_config(None, environ={}).ingest).failed
    return corpus


def bare_worker(workers: int, **overrides: object) -> tuple[EngineWorker, list[EngineContext]]:
    """`workers` engine threads whose contexts hold only a lexical NLI; the list collects each context opened."""
    config = lexical_config(**{"service.engine_workers": workers, **overrides})
    opened: list[EngineContext] = []

    def opener(_config):
        no_store = SimpleNamespace(close=lambda: None)
        context = EngineContext(
            config=config, store=no_store, retriever=None, nli=LexicalNLIModel(), llm=None, judge=None
        )
        opened.append(context)
        return context

    return EngineWorker(config, opener=opener), opened


async def until(condition) -> None:
    """Poll `condition` on the event loop; fail (not hang) if it never holds."""
    for _ in range(SAFETY_WAIT_S * 100):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the engine never reached the state the test waits for")


def on_every_worker(worker: EngineWorker, job):
    """A job that runs once on each engine thread at the same time: each copy waits at a barrier for the others,
    so no thread can take two. Returns (thread name, result) per copy."""
    barrier = threading.Barrier(worker.workers)

    def together(ctx):
        barrier.wait(SAFETY_WAIT_S)  # BrokenBarrierError unless every worker is running one copy
        return threading.current_thread().name, job(ctx)

    async def scenario():
        return await asyncio.gather(*(worker.run(together) for _ in range(worker.workers)))

    return asyncio.run(scenario())


def test_two_workers_run_two_slow_requests_at_once_each_on_its_own_context():
    worker, opened = bare_worker(2)
    leaving = threading.Barrier(2)

    def look(ctx):
        running = worker.readiness().jobs_running
        leaving.wait(SAFETY_WAIT_S)  # neither job ends before both have looked
        return running, id(ctx.nli)

    worker.start()
    try:
        answers = on_every_worker(worker, look)
    finally:
        worker.close()
    names = {name for name, _ in answers}
    running = [result[0] for _, result in answers]
    assert len(names) == 2 and running == [2, 2]  # both were inside their job when either looked
    assert len(opened) == 2 and len({result[1] for _, result in answers}) == 2  # one NLI model per worker
    assert worker.pending == 0


def test_a_single_worker_runs_one_job_at_a_time():
    worker, _ = bare_worker(1)
    seen: list[int] = []

    async def scenario():
        await asyncio.gather(*(worker.run(lambda _ctx: seen.append(worker.readiness().jobs_running)) for _ in range(4)))

    worker.start()
    try:
        asyncio.run(scenario())
    finally:
        worker.close()
    assert seen == [1, 1, 1, 1]


def test_an_upload_waits_for_running_reads_and_every_worker_sees_it_afterwards(demo_corpus):
    app = create_app(lexical_config(demo_corpus, **{"service.engine_workers": 2}))
    worker = app.state.worker
    reading, release = threading.Event(), threading.Event()
    generations: list[int] = []

    def long_read(ctx):
        generations.append(ctx.store.generation)
        reading.set()
        release.wait(SAFETY_WAIT_S)
        generations.append(ctx.store.generation)  # the same: no write ran inside this read
        return len(ctx.store.list_documents())

    async def scenario():
        worker.start()
        worker.health = await worker.run(jobs.health)
        before = worker.health.documents
        read = asyncio.ensure_future(worker.run(long_read))
        await asyncio.get_running_loop().run_in_executor(None, reading.wait, SAFETY_WAIT_S)
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=LOOPBACK) as client:
            upload = asyncio.ensure_future(client.post("/documents", files={"file": ("zorblat.md", UPLOAD)}))
            await until(lambda: worker.store_access.waiting == (0, 1))  # on the other worker, held off by the read
            waiting = worker.readiness()
            release.set()
            read_count, uploaded = await read, await upload
            health = await client.get("/health")
        return before, waiting, read_count, uploaded, health

    try:
        before, waiting, read_count, uploaded, health = asyncio.run(scenario())
        after = on_every_worker(
            worker,
            lambda ctx: (
                [info.doc_id for info in ctx.store.list_documents()],
                [chunk.doc_id for chunk in ctx.retriever.retrieve(NEW_FACT)],
                jobs.verify(ctx, NEW_FACT).claims[0].decision.status,
            ),
        )
    finally:
        worker.close()
    assert waiting.jobs_running == 1 and waiting.jobs_queued == 1  # the upload did not start beside the read
    assert generations[0] == generations[1] and read_count == before
    assert uploaded.status_code == 201 and health.json()["documents"] == before + 1
    assert len({name for name, _ in after}) == 2
    for _, (doc_ids, retrieved, status) in after:
        assert "uploads/zorblat" in doc_ids and retrieved[0] == "uploads/zorblat" and status == "Supported"


def test_a_waiting_upload_goes_before_reads_that_arrive_after_it(demo_corpus):
    worker = EngineWorker(lexical_config(demo_corpus, **{"service.engine_workers": 3}))
    reading, release = threading.Event(), threading.Event()
    order: list[str] = []

    def long_read(_ctx):
        reading.set()
        release.wait(SAFETY_WAIT_S)
        order.append("first read")

    def write(ctx):
        order.append("upload")
        return jobs.ingest_upload(ctx, "zorblat.md", UPLOAD, None, None)

    async def scenario():
        first = asyncio.ensure_future(worker.run(long_read))
        await asyncio.get_running_loop().run_in_executor(None, reading.wait, SAFETY_WAIT_S)
        upload = asyncio.ensure_future(worker.run(write, writes=True))
        await until(lambda: worker.store_access.waiting == (0, 1))
        later = asyncio.ensure_future(worker.run(lambda ctx: order.append("later read") or ctx.store.generation))
        await until(lambda: worker.store_access.waiting == (1, 1))  # a free worker, yet it waits its turn
        release.set()
        await first
        report = await upload
        return report, await later

    worker.start()
    try:
        report, later_generation = asyncio.run(scenario())
        generation = on_every_worker(worker, lambda ctx: ctx.store.generation)
    finally:
        worker.close()
    assert order == ["first read", "upload", "later read"]
    assert report.added == 1 and {g for _, g in generation} == {later_generation}


def test_admission_counts_the_workers_together():
    worker, _ = bare_worker(2, **{"service.request_deadline_s": 30})
    worker.meter.seconds_per_unit = 1.0  # as if measured: one unit takes a second on one worker
    both_running, release = threading.Barrier(3), threading.Event()

    def hold(_ctx):
        both_running.wait(SAFETY_WAIT_S)
        release.wait(SAFETY_WAIT_S)

    async def scenario():
        held = [asyncio.ensure_future(worker.run(hold, units=10)) for _ in range(2)]
        await asyncio.get_running_loop().run_in_executor(None, both_running.wait, SAFETY_WAIT_S)
        # 20 units over 2 workers = 10 s of wait, + 25 s of its own: 35 s > 30 s.
        with pytest.raises(ServerBusyError, match="service.request_deadline_s=30") as refused:
            await worker.run(lambda _ctx: None, units=25)
        small = asyncio.ensure_future(worker.run(lambda _ctx: "small", units=15))  # 10 + 15 s fits
        await asyncio.sleep(0)
        readiness = worker.readiness()
        release.set()
        await asyncio.gather(*held)
        return refused.value, await small, readiness

    worker.start()
    try:
        refused, small, readiness = asyncio.run(scenario())
    finally:
        worker.close()
    assert small == "small" and refused.retry_after_s == pytest.approx(5.0)
    assert readiness.jobs_running == 2 and readiness.estimated_wait_s == pytest.approx((10 + 10 + 15) / 2)


def test_with_a_worker_free_a_request_is_admitted_whatever_the_queue():
    worker, _ = bare_worker(2, **{"service.request_deadline_s": 30})
    worker.meter.seconds_per_unit = 1.0
    started, release = threading.Event(), threading.Event()

    def hold(_ctx):
        started.set()
        release.wait(SAFETY_WAIT_S)

    async def scenario():
        held = asyncio.ensure_future(worker.run(hold, units=100))  # alone, far over the deadline
        await asyncio.get_running_loop().run_in_executor(None, started.wait, SAFETY_WAIT_S)
        answer = await worker.run(lambda _ctx: "second worker", units=40)  # the other worker is free
        release.set()
        await held
        return answer

    worker.start()
    try:
        assert asyncio.run(scenario()) == "second worker"
    finally:
        worker.close()


def test_the_same_request_gives_the_same_report_bytes_on_every_worker(demo_corpus):
    worker = EngineWorker(lexical_config(demo_corpus, **{"service.engine_workers": 2}))
    text = f"{CLAIM} Kinetic energy does not depend on the speed of an object."
    worker.start()
    try:
        reports = on_every_worker(worker, lambda ctx: jobs.verify(ctx, text).model_dump_json().encode())
        answers = on_every_worker(
            worker, lambda ctx: jobs.answer(ctx, QARequest(query="What is kinetic energy?")).model_dump_json()
        )
    finally:
        worker.close()
    assert len({name for name, _ in reports}) == 2
    assert reports[0][1] == reports[1][1] and b'"Supported"' in reports[0][1]
    assert answers[0][1] == answers[1][1]


def test_worker_count_comes_from_config_or_the_nli_and_the_cores(monkeypatch):
    assert EngineWorker(lexical_config(**{"service.engine_workers": 3})).workers == 3
    assert lexical_config().service.engine_workers is None  # reports record no machine-dependent default
    model = {"models.nli": "veriground-nli"}
    monkeypatch.delattr("os.sched_getaffinity", raising=False)  # the cores are os.cpu_count()'s, as off Linux
    for cores, expected in ((1, 1), (2, 1), (4, 2), (64, MAX_AUTO_ENGINE_WORKERS), (None, 1)):
        monkeypatch.setattr("os.cpu_count", lambda cores=cores: cores)
        assert engine_worker_count(lexical_config(**model)) == expected
        assert engine_worker_count(lexical_config()) == 1  # the lexical NLI: threads would only split the GIL
        assert engine_worker_count(lexical_config(**{"service.engine_workers": 2})) == 2
    env = load_config(None, environ={"VERIGROUND_SERVICE__ENGINE_WORKERS": "2"})
    assert env.service.engine_workers == 2


def test_the_engine_workers_key_names_its_flag_when_out_of_range(demo_corpus, capsys):
    from veriground.errors import ConfigError

    with pytest.raises(ConfigError, match="service.engine_workers.*VERIGROUND_SERVICE__ENGINE_WORKERS"):
        lexical_config(**{"service.engine_workers": 0})
    code = main(["serve", "--corpus", str(demo_corpus), "--nli", "lexical", "--engine-workers", "0", "--port", "0"])
    assert code != 0
    assert "--engine-workers" in capsys.readouterr().err


def test_serve_engine_workers_flag_sets_the_thread_count(demo_corpus, monkeypatch, capsys):
    served: list[EngineWorker] = []
    monkeypatch.setattr("uvicorn.run", lambda application, **_: served.append(application.state.worker))
    code = main(["serve", "--corpus", str(demo_corpus), "--nli", "lexical", "--engine-workers", "3", "--port", "0"])
    try:
        assert code == 0 and served[0].workers == 3 and served[0].loaded
    finally:
        for worker in served:
            worker.close()
    assert "with 3 engine workers" in capsys.readouterr().err


def test_a_worker_that_cannot_open_fails_start_and_the_others_close_their_stores():
    from veriground.errors import StoreError

    config = lexical_config(**{"service.engine_workers": 3})
    closed: list[int] = []
    calls: list[int] = []

    def opener(_config):
        calls.append(len(calls))
        if len(calls) == 2:
            raise StoreError("no corpus at /nowhere (no corpus.sqlite3); run `veriground ingest` first")
        store = SimpleNamespace(close=functools.partial(closed.append, len(calls)))
        return EngineContext(config=config, store=store, retriever=None, nli=LexicalNLIModel(), llm=None, judge=None)

    worker = EngineWorker(config, opener=opener)
    with pytest.raises(StoreError, match="no corpus at /nowhere"):
        worker.start()
    assert len(calls) == 3 and sorted(closed) == [1, 3] and not worker.loaded
