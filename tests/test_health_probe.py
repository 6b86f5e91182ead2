"""GET /health from the precomputed snapshot (issue 22): it never enters routing or the engine queue, it sends what
the route would, the outer guards still apply, and the shorter GIL switch interval lasts only while serving."""

from __future__ import annotations

import asyncio
import sys
from importlib import resources
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from veriground.config import load_config
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore
from veriground.schema import ServiceHealth
from veriground.service.app import create_app
from veriground.service.health_probe import SERVING_SWITCH_INTERVAL_S, HealthProbeMiddleware

LOOPBACK = "http://127.0.0.1"


@pytest.fixture(scope="module")
def demo_corpus(tmp_path_factory) -> Path:
    corpus = tmp_path_factory.mktemp("health") / "corpus"
    with resources.as_file(resources.files("veriground") / "demo_corpus") as root, CorpusStore(corpus) as store:
        assert not ingest_paths([root], store, load_config(None, environ={}).ingest).failed
    return corpus


def make_app(corpus: Path):
    return create_app(load_config(None, {"models.nli": "lexical", "corpus.dir": corpus}, environ={}))


async def refuse_everything(scope, receive, send) -> None:
    raise AssertionError(f"{scope['path']} reached the app behind the probe")


def test_health_is_answered_without_the_app_behind_it():
    body = b'{"status":"ok"}'
    probe = HealthProbeMiddleware(refuse_everything, health_body=lambda: body)

    async def get(path: str) -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=probe), base_url=LOOPBACK) as client:
            return await client.get(path)

    response = asyncio.run(get("/health?verbose=1"))
    assert response.status_code == 200 and response.content == body
    assert response.headers["content-type"] == "application/json"
    with pytest.raises(AssertionError, match="/ready reached the app"):
        asyncio.run(get("/ready"))


def test_health_sends_the_snapshot_the_route_would_with_the_outer_guards(demo_corpus):
    app = make_app(demo_corpus)
    with TestClient(app, base_url=LOOPBACK) as client:
        response = client.get("/health")
        snapshot = app.state.worker.health
        wrong_host = client.get("/health", headers={"host": "evil.example"})
    assert response.status_code == 200
    assert ServiceHealth.model_validate_json(response.content) == snapshot and snapshot.documents >= 10
    assert response.headers["x-frame-options"] == "DENY" and "x-request-id" in response.headers
    assert wrong_host.status_code == 421  # the Host check still runs before it


def test_health_before_the_engine_opens_is_still_the_routes_503(demo_corpus):
    app = make_app(demo_corpus)  # no lifespan: no snapshot yet

    async def probe() -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=LOOPBACK) as client:
            return await client.get("/health")

    response = asyncio.run(probe())
    assert response.status_code == 503 and "still opening" in response.json()["detail"]


def test_the_switch_interval_is_shorter_only_while_serving(demo_corpus):
    before = sys.getswitchinterval()
    assert before > SERVING_SWITCH_INTERVAL_S
    with TestClient(make_app(demo_corpus), base_url=LOOPBACK):
        assert sys.getswitchinterval() == SERVING_SWITCH_INTERVAL_S
    assert sys.getswitchinterval() == before
