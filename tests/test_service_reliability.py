"""The service under load and hostile clients: probes that never queue, per-request deadlines, dropped
abandoned requests, admission by cost with Retry-After, the server's own input limits, security headers, the
origin check, and (on a real socket) read deadlines and the connection cap."""

from __future__ import annotations

import asyncio
import socket
import threading
from importlib import resources
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
from fastapi.testclient import TestClient

from conftest import lexical_config
from live_server import live_server
from veriground.backends.lexical_nli import LexicalNLIModel
from veriground.config import load_config
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore
from veriground.errors import BackendError
from veriground.service import jobs
from veriground.service.app import create_app
from veriground.service.cancellation import RequestCancelledError, RequestDeadlineError, ServerBusyError
from veriground.service.engine_worker import EngineContext, EngineWorker
from veriground.service.problems import problem_for

LOOPBACK = "http://127.0.0.1"
SAFETY_WAIT_S = 10  # only bounds a test that would otherwise hang; no assertion reads a clock
SOCKET_WAIT_S = 30


@pytest.fixture(scope="module")
def demo_corpus(tmp_path_factory) -> Path:
    corpus = tmp_path_factory.mktemp("reliability") / "corpus"
    with resources.as_file(resources.files("veriground") / "demo_corpus") as root, CorpusStore(corpus) as store:
        assert not ingest_paths([root], store, load_config(None, environ={}).ingest).failed
    return corpus


@pytest.fixture(scope="module")
def client(demo_corpus):
    with TestClient(create_app(lexical_config(demo_corpus)), base_url=LOOPBACK) as test_client:
        yield test_client


def bare_worker(**overrides: object) -> EngineWorker:
    """One engine thread whose context holds only a lexical NLI: enough for jobs that call ctx.nli."""
    config = lexical_config(**{"service.engine_workers": 1, **overrides})
    no_store = SimpleNamespace(close=lambda: None)
    context = EngineContext(config=config, store=no_store, retriever=None, nli=LexicalNLIModel(), llm=None, judge=None)
    return EngineWorker(config, opener=lambda _: context)


def test_health_and_ready_answer_while_the_engine_is_busy(demo_corpus):
    app = create_app(lexical_config(demo_corpus))
    release, started, done = threading.Event(), threading.Event(), threading.Event()

    def hold(_ctx):
        started.set()
        release.wait(SAFETY_WAIT_S)
        done.set()

    async def scenario():
        worker = app.state.worker
        worker.start()
        worker.health = await worker.run(jobs.health)
        held = asyncio.ensure_future(worker.run(hold))
        await asyncio.get_running_loop().run_in_executor(None, started.wait, SAFETY_WAIT_S)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=LOOPBACK) as client:
            health = await client.get("/health")
            ready = await client.get("/ready")
            answered_while_busy = not done.is_set()  # a /health that queued would come after `hold` ended
        release.set()
        await held
        worker.close()
        return health, ready, answered_while_busy

    health, ready, answered_while_busy = asyncio.run(scenario())
    assert answered_while_busy
    assert health.status_code == 200 and health.json()["documents"] >= 10
    body = ready.json()
    assert ready.status_code == 200 and body["ready"] is True and body["engine_loaded"] is True
    assert body["jobs_running"] == 1 and body["jobs_queued"] == 0


def test_probes_say_not_ready_before_the_engine_opens(demo_corpus):
    app = create_app(lexical_config(demo_corpus))  # no lifespan has run: the engine is not open

    async def probe():
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=LOOPBACK) as client:
            return await client.get("/ready"), await client.get("/health")

    ready, health = asyncio.run(probe())
    assert ready.status_code == 503 and ready.headers["retry-after"] == "1"
    assert ready.json()["ready"] is False and ready.json()["engine_loaded"] is False
    assert health.status_code == 503 and "still opening" in health.json()["detail"]
    assert health.headers["retry-after"] == "1"


def test_a_request_past_its_deadline_is_503_and_its_job_stops_at_the_next_stage():
    worker = bare_worker(**{"service.request_deadline_s": 0.2})
    release, finished = threading.Event(), threading.Event()
    reached: list[str] = []

    def slow(ctx):
        try:
            release.wait(SAFETY_WAIT_S)  # a stage that outlives the deadline
            ctx.nli.predict([("Energy is conserved.", "Energy is conserved.")])  # the next stage
            reached.append("nli")
        finally:
            finished.set()

    async def scenario():
        with pytest.raises(RequestDeadlineError) as caught:
            await worker.run(slow)
        release.set()
        return caught.value

    worker.start()
    try:
        err = asyncio.run(scenario())
        assert finished.wait(SAFETY_WAIT_S)
    finally:
        worker.close()
    assert reached == [] and worker.pending == 0
    assert "service.request_deadline_s=0.2" in str(err) and "partial work discarded" in str(err)
    response = problem_for(err)
    assert response.status_code == 503 and int(response.headers["retry-after"]) >= 1


def test_an_abandoned_request_is_skipped_while_queued():
    worker = bare_worker()
    release, started = threading.Event(), threading.Event()
    ran: list[str] = []

    def first(_ctx):
        started.set()
        release.wait(SAFETY_WAIT_S)
        ran.append("first")

    async def scenario():
        held = asyncio.ensure_future(worker.run(first))
        await asyncio.get_running_loop().run_in_executor(None, started.wait, SAFETY_WAIT_S)
        gone = asyncio.Event()
        gone.set()  # the client of the second request has already hung up
        with pytest.raises(RequestCancelledError, match="client disconnected"):
            await worker.run(lambda _ctx: ran.append("second"), client_gone=gone.wait)
        release.set()
        await held

    worker.start()
    try:
        asyncio.run(scenario())
    finally:
        worker.close()
    assert ran == ["first"] and worker.pending == 0


def test_admission_reads_the_queued_cost_and_gives_retry_after():
    worker = bare_worker(**{"service.request_deadline_s": 30})
    worker.meter.seconds_per_unit = 1.0  # as if measured: one unit takes a second
    release = threading.Event()

    async def scenario():
        held = asyncio.ensure_future(worker.run(lambda _ctx: release.wait(SAFETY_WAIT_S), units=10))
        await asyncio.sleep(0)
        with pytest.raises(ServerBusyError, match="service.request_deadline_s=30") as refused:
            await worker.run(lambda _ctx: None, units=25)  # 10 + 25 queued units: 35 s > 30 s
        small = asyncio.ensure_future(worker.run(lambda _ctx: "small", units=5))  # 15 s fits
        await asyncio.sleep(0)
        readiness = worker.readiness()
        release.set()
        await held
        return refused.value, await small, readiness

    worker.start()
    try:
        refused, small, readiness = asyncio.run(scenario())
    finally:
        worker.close()
    assert small == "small"
    assert refused.retry_after_s == pytest.approx(5.0)
    assert problem_for(refused).headers["retry-after"] == "5"
    assert readiness.jobs_queued + readiness.jobs_running == 2 and readiness.estimated_wait_s == pytest.approx(15)


@pytest.mark.parametrize(
    "err", [ServerBusyError("busy", retry_after_s=7.2), BackendError("the NLI model failed"), RequestDeadlineError("x")]
)
def test_every_503_carries_retry_after(err):
    response = problem_for(err)
    assert response.status_code == 503 and int(response.headers["retry-after"]) >= 1


def test_server_claim_limit_is_lower_than_the_cli_and_named(demo_corpus):
    five = " ".join(f"Claim {n} is about kinetic energy." for n in range(5))
    twenty = " ".join(f"Claim {n} is about kinetic energy." for n in range(20))
    with TestClient(create_app(lexical_config(demo_corpus, **{"service.max_claims": 3})), base_url=LOOPBACK) as limited:
        exact = limited.post("/verify", json={"text": five})  # counted by the claim extractor on the engine
        early = limited.post("/verify", json={"text": twenty})  # refused before it queues
        fine = limited.post("/verify", json={"text": "Kinetic energy is the energy of motion."})
    for response in (exact, early):
        assert response.status_code == 413, response.text
        assert "service.max_claims=3" in response.json()["detail"]
        assert "VERIGROUND_SERVICE__MAX_CLAIMS" in response.json()["detail"]
    assert "about 20 sentences" in early.json()["detail"]
    assert fine.status_code == 200


def test_security_headers_on_pages_api_problems_and_static_files(client):
    responses = [
        client.get("/"),
        client.get("/health"),
        client.get("/static/page.js"),
        client.get("/no-such-page"),
        client.post("/verify", json={}),
    ]
    for response in responses:
        headers = response.headers
        assert "script-src 'self'" in headers["content-security-policy"], response.url
        assert "frame-ancestors 'none'" in headers["content-security-policy"]
        assert "unsafe-inline" not in headers["content-security-policy"]
        assert headers["x-frame-options"] == "DENY" and headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "same-origin"


@pytest.mark.parametrize("path", ["/", "/ask", "/login", "/docs"])
def test_pages_carry_no_inline_script_or_style(client, path):
    html = client.get(path).text
    assert "<style" not in html
    scripts = html.split("<script")[1:]
    assert scripts and all(script.lstrip().startswith("src=") for script in scripts), scripts
    assert client.get("/static/report.css").headers["content-type"].startswith("text/css")


def test_origin_must_match_scheme_host_and_port_and_host_must_be_there(client):
    text = {"text": "Energy is conserved."}
    assert client.post("/verify", json=text, headers={"origin": LOOPBACK}).status_code == 200
    for origin in ("https://127.0.0.1", "http://127.0.0.1:9999", "null", "http://127.0.0.1.evil.example"):
        response = client.post("/verify", json=text, headers={"origin": origin})
        assert response.status_code == 403, origin
    empty = client.get("/documents", headers={"host": ""})
    assert empty.status_code == 400 and "no Host header" in empty.json()["detail"]


def read_all(sock: socket.socket) -> bytes:
    sock.settimeout(SOCKET_WAIT_S)
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def test_slow_headers_and_slow_bodies_get_408_and_the_socket_closes(demo_corpus):
    env = {"VERIGROUND_SERVICE__HEADER_TIMEOUT_S": "1", "VERIGROUND_SERVICE__BODY_TIMEOUT_S": "1"}
    with live_server(demo_corpus, "--nli", "lexical", env=env) as base:
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port)) as slow_head:
            slow_head.sendall(b"POST /verify HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never finishes its headers
            head_answer = read_all(slow_head)
        with socket.create_connection(("127.0.0.1", port)) as slow_body:
            slow_body.sendall(
                b"POST /verify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b'Content-Length: 100\r\n\r\n{"text": '
            )
            body_answer = read_all(slow_body)
        assert httpx.get(f"{base}/health").status_code == 200
    assert head_answer.startswith(b"HTTP/1.1 408") and b"service.header_timeout_s=1" in head_answer
    assert body_answer.startswith(b"HTTP/1.1 408") and b"service.body_timeout_s=1" in body_answer


def test_connections_past_the_cap_get_503_with_retry_after(demo_corpus):
    with live_server(demo_corpus, "--nli", "lexical", env={"VERIGROUND_SERVICE__MAX_CONNECTIONS": "3"}) as base:
        port = int(base.rsplit(":", 1)[1])
        idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(3)]
        try:
            refused = httpx.get(f"{base}/health")
        finally:
            for sock in idle:
                sock.close()
    assert refused.status_code == 503 and refused.headers["retry-after"] == "1"
    assert "service.max_connections=3" in refused.json()["detail"]


def test_the_cost_meter_learns_from_real_jobs_only():
    from veriground.service.admission import INITIAL_SECONDS_PER_UNIT, RATE_SMOOTHING, CostMeter

    meter = CostMeter()
    meter.observe(1.0, 5.0)  # a lookup that happened to be slow (a cold start)
    assert meter.seconds_per_unit == INITIAL_SECONDS_PER_UNIT
    meter.observe(11.0, 1.1)  # 0.1 s per unit
    assert meter.seconds_per_unit == pytest.approx(
        INITIAL_SECONDS_PER_UNIT + RATE_SMOOTHING * (0.1 - INITIAL_SECONDS_PER_UNIT)
    )
    meter.add(20.0)
    assert meter.wait_s(10.0) == pytest.approx(30.0 * meter.seconds_per_unit)
