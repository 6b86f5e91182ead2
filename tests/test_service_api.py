"""The HTTP API in process (FastAPI TestClient over the real app, real corpus, lexical NLI): contracts, bad input,
limits, token, same-origin, request logs."""

from __future__ import annotations

import json
import logging
from importlib import resources
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from veriground.config import load_config
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore
from veriground.errors import ConfigError
from veriground.service.app import create_app

KINETIC = "What is kinetic energy?"
LOOPBACK = "http://127.0.0.1"


def ingest(corpus: Path, *folders: Path) -> Path:
    with CorpusStore(corpus, create=True) as store:
        assert not ingest_paths(list(folders), store, load_config(None, environ={}).ingest).failed
    return corpus


@pytest.fixture(scope="module")
def demo_corpus(tmp_path_factory) -> Path:
    with resources.as_file(resources.files("veriground") / "demo_corpus") as root:
        return ingest(tmp_path_factory.mktemp("service") / "corpus", root)


def make_client(corpus: Path, **overrides: object) -> TestClient:
    config = load_config(None, {"corpus.dir": corpus, "models.nli": "lexical", **overrides}, environ={})
    return TestClient(create_app(config), base_url=LOOPBACK)


@pytest.fixture(scope="module")
def client(demo_corpus):
    with make_client(demo_corpus) as test_client:
        yield test_client


def assert_problem(response, status: int, *fragments: str) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body["status"] == status
    for fragment in fragments:
        assert fragment in body["detail"], body["detail"]
    return body


def a_passage(client: TestClient, words: str) -> dict:
    answer = client.post("/qa", json={"query": words}).json()
    passage_id = answer["claims"][0]["supporting_citations"][0]["passage_id"]
    return client.get(f"/passages/{passage_id.replace('#', '%23')}").json()


def test_health_names_the_corpus_and_backends(client):
    body = client.get("/health").json()
    assert body["status"] == "ok" and body["documents"] >= 10 and body["passages_indexed"] > 100
    assert body["nli"] == "lexical-nli.v1" and body["retrieval"] == "bm25" and body["llm"] is None


def test_qa_answers_with_citations_and_abstains_off_corpus(client):
    answer = client.post("/qa", json={"query": KINETIC, "mode": "detailed"}).json()
    assert answer["confidence"] != "insufficient_evidence"
    assert answer["trace"]["mode"] == "detailed"
    assert all(claim["supporting_citations"] for claim in answer["claims"])
    abstained = client.post("/qa", json={"query": "Who won the 1998 World Cup?"}).json()
    assert abstained["confidence"] == "insufficient_evidence" and abstained["abstention_reason"]
    assert abstained["claims"] == []


def test_qa_filters_and_bad_filter(client):
    answer = client.post("/qa", json={"query": KINETIC, "filters": {"source_type": "policy"}}).json()
    assert all(chunk["source_type"] == "policy" for chunk in answer["trace"]["evidence"])
    assert_problem(client.post("/qa", json={"query": KINETIC, "filters": {"colour": "red"}}), 422, "colour=red")


def test_verify_gives_the_same_bytes_as_the_cli_record(client):
    text = "Kinetic energy does not depend on the speed of an object."
    first = client.post("/verify", json={"text": text})
    second = client.post("/verify", json={"text": text})
    assert first.status_code == 200 and first.content == second.content
    report = first.json()
    assert report["annotated_answer"]["claims"][0]["status"] == "Contradictory"
    assert report["claims"][0]["decision"]["rule"]


def test_qa_verify_passes_a_quoted_sentence_and_fails_a_contradiction(client):
    passage = a_passage(client, KINETIC)
    sentence = passage["text"].split(". ")[0].strip().rstrip(".") + "."
    pack = {"passages": [{"passage_id": passage["passage_id"]}]}  # text read from the served corpus
    passed = client.post("/qa/verify", json={"answer": f"{sentence} [1]", "evidence": pack}).json()
    assert passed["passed"] is True and passed["reason_codes"] == []
    failed = client.post(
        "/qa/verify",
        json={"answer": "The Treaty of Westphalia was signed in 1648.", "evidence": pack},
    ).json()
    assert failed["passed"] is False and failed["reason_codes"]
    assert failed["report"]["manifest"]["evidence_mode"] == "pack"


def test_qa_verify_takes_a_grounded_answer_from_qa(client):
    answer = client.post("/qa", json={"query": KINETIC}).json()
    pack = {"passages": [{"passage_id": pid} for ref in answer["references"] for pid in ref["passage_ids"]]}
    result = client.post("/qa/verify", json={"answer": answer, "evidence": pack}).json()
    assert result["passed"] is True, result["reason_codes"]


def test_documents_upload_then_unchanged_then_searchable(demo_corpus, tmp_path):
    corpus = tmp_path / "corpus"
    with resources.as_file(resources.files("veriground") / "demo_corpus") as root:
        ingest(corpus, root / "policy")
    note = b"# Zebra facts\n\nThe okapi is the closest living relative of the giraffe, not of the zebra.\n"
    with make_client(corpus) as test_client:
        created = test_client.post("/documents", files={"file": ("okapi.md", note)}, data={"source_type": "web"})
        assert created.status_code == 201, created.text
        assert created.json()["items"][0]["doc_id"] == "uploads/okapi"
        again = test_client.post("/documents", files={"file": ("okapi.md", note)}, data={"source_type": "web"})
        assert again.status_code == 200 and again.json()["unchanged"] == 1
        docs = {doc["doc_id"]: doc for doc in test_client.get("/documents").json()}
        assert docs["uploads/okapi"]["source_type"] == "web"
        answer = test_client.post("/qa", json={"query": "What is the closest living relative of the giraffe?"})
        assert any("okapi" in claim["text"] for claim in answer.json()["claims"])
    assert sorted(path.name for path in corpus.iterdir() if path.name.startswith(".upload")) == []


@pytest.mark.parametrize(
    ("name", "content", "fragment"),
    [
        ("../../etc/passwd", b"root:x:0:0", "is a path"),
        ("..\\evil.md", b"text", "is a path"),
        ("é" * 190 + ".txt", b"text", "255 UTF-8 bytes"),
        (".hidden.md", b"text", "hidden"),
        ("image.png", b"\x89PNG\r\n", "unsupported file type '.png'"),
        ("notes.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"),
        ("latin1.txt", "café au lait".encode("latin-1") * 30, "UTF-8"),
    ],
)
def test_bad_uploads_are_refused_and_nothing_is_written_outside(demo_corpus, client, name, content, fragment):
    outside = sorted(path.name for path in demo_corpus.parent.iterdir())
    body = assert_problem(client.post("/documents", files={"file": (name, content)}), 422, fragment)
    assert "/.upload-" not in body["detail"]  # the server's scratch folder is not leaked
    assert sorted(path.name for path in demo_corpus.parent.iterdir()) == outside
    assert client.get("/health").status_code == 200


def test_malformed_and_mistyped_bodies_name_the_problem(client):
    assert_problem(
        client.post("/verify", content=b"{bad", headers={"content-type": "application/json"}), 422, "not valid JSON"
    )
    assert_problem(client.post("/verify", content=b"plain words"), 422, "not a JSON object")
    assert_problem(client.post("/verify", json={"text": 5}), 422, "text: Input should be a valid string")
    assert_problem(client.post("/verify", json={}), 422, "text is required")
    assert_problem(client.post("/verify", json={"text": "x", "colour": 1}), 422, "colour is not a known field")
    assert_problem(client.post("/qa", json={"query": KINETIC, "mode": "long"}), 422, "mode")
    assert_problem(
        client.post("/qa/verify", json={"answer": "x [1]", "evidence": {"passages": []}}), 422, "evidence.passages"
    )
    assert_problem(client.post("/documents"), 422, "file is required")


def test_unknown_passage_and_pack_ids_are_404_and_422(client):
    assert_problem(client.get("/passages/no-such%23000000000000"), 404, "no passage 'no-such#000000000000'")
    pack = {"passages": [{"passage_id": "ghost#123456789abc"}]}
    assert_problem(
        client.post("/qa/verify", json={"answer": "Energy is conserved. [1]", "evidence": pack}),
        422,
        "passage 1 gives only passage_id 'ghost#123456789abc'",
        "give its text or fix the id",
    )


def test_a_10_mb_body_is_413_with_the_key_that_raises_it(client):
    big = b'{"text": "' + b"a" * (10 * 1024 * 1024) + b'"}'
    assert_problem(
        client.post("/verify", content=big, headers={"content-type": "application/json"}),
        413,
        "service.max_body_mb=2",
        "VERIGROUND_SERVICE__MAX_BODY_MB",
    )

    def chunks():  # no Content-Length: the limit is counted as the body streams in
        for _ in range(12):
            yield b"a" * (1024 * 1024)

    assert_problem(
        client.post("/verify", content=chunks(), headers={"content-type": "application/json"}),
        413,
        "service.max_body_mb",
    )
    assert client.get("/health").status_code == 200


def test_claim_limit_is_413_naming_the_config_key(demo_corpus):
    text = " ".join(f"Claim number {n} is a sentence about energy." for n in range(6))
    with make_client(demo_corpus, **{"verification.max_claims": 3}) as limited:
        body = assert_problem(limited.post("/verify", json={"text": text}), 413, "verification.max_claims=3")
        assert "VERIGROUND_VERIFICATION__MAX_CLAIMS" in body["fix"]


def test_non_loopback_needs_a_token_and_checks_it(demo_corpus, monkeypatch):
    with pytest.raises(ConfigError, match="VERIGROUND_API_TOKEN"):
        make_client(demo_corpus, **{"service.host": "0.0.0.0"})
    monkeypatch.setenv("VERIGROUND_API_TOKEN", "s3cret-token")
    with make_client(demo_corpus, **{"service.host": "0.0.0.0"}) as guarded:
        assert guarded.get("/health").status_code == 200  # liveness needs no token
        assert_problem(guarded.post("/verify", json={"text": "x"}), 401, "no API token")
        assert_problem(guarded.get("/documents", headers={"authorization": "Bearer wrong"}), 401, "wrong")
        assert guarded.get("/documents", headers={"authorization": "Bearer s3cret-token"}).status_code == 200
        page = guarded.get("/", headers={"accept": "text/html"}, follow_redirects=False)
        assert page.status_code == 303 and page.headers["location"] == "/login"
        assert guarded.post("/login", data={"token": "nope"}).status_code == 401
        guarded.post("/login", data={"token": "s3cret-token"}, follow_redirects=False)
        assert guarded.get("/documents").status_code == 200  # the cookie the form set


def test_cross_site_writes_and_rebinding_hosts_are_refused(client):
    evil = {"origin": "http://evil.example"}
    assert_problem(client.post("/documents", files={"file": ("a.md", b"x")}, headers=evil), 403, "evil.example")
    same = {"origin": LOOPBACK}  # TestClient's Host is 127.0.0.1, no port
    assert client.post("/verify", json={"text": "Energy is conserved."}, headers=same).status_code == 200
    assert_problem(client.get("/documents", headers={"host": "attacker.example"}), 421, "loopback only")


def test_cors_is_off_unless_origins_are_listed(demo_corpus, client):
    preflight = {"origin": "http://app.example", "access-control-request-method": "POST"}
    assert "access-control-allow-origin" not in client.options("/verify", headers=preflight).headers
    with make_client(demo_corpus, **{"service.cors_origins": ["http://app.example"]}) as open_client:
        response = open_client.options("/verify", headers=preflight)
        assert response.headers["access-control-allow-origin"] == "http://app.example"


def test_request_log_is_structured_and_holds_no_raw_text(client, demo_corpus, caplog):
    caplog.set_level(logging.INFO, logger="veriground.service.requests")
    client.post("/qa", json={"query": KINETIC})
    client.post("/verify", json={"text": "Kinetic energy does not depend on the speed of an object."})
    qa, verify = (json.loads(record.getMessage()) for record in caplog.records[-2:])
    assert qa["path"] == "/qa" and qa["status"] == 200 and qa["query_id"].startswith("q_")
    assert qa["evidence_size"] > 0 and qa["confidence"] in ("high", "medium", "low")
    assert qa["claim_counts_by_type"] and "abstention_reason" in qa
    assert verify["verdict_counts"] == {"Contradictory": 1} and verify["failure_reasons"]
    assert "kinetic" not in json.dumps([qa, verify]).lower()
    caplog.clear()
    with make_client(demo_corpus, **{"service.log_text": True}) as debug_client:
        debug_client.post("/qa", json={"query": KINETIC})
    assert json.loads(caplog.records[-1].getMessage())["query"] == KINETIC


def test_openapi_lists_every_endpoint(client):
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/qa", "/qa/verify", "/verify", "/documents", "/passages/{passage_id}", "/health"} <= set(paths)
    assert client.get("/docs").status_code == 200


def test_engine_queue_refuses_past_max_pending_and_keeps_order():
    import asyncio
    import threading

    from veriground.service.engine_worker import EngineWorker, ServerBusyError
    from veriground.service.problems import problem_for

    release = threading.Event()
    config = load_config(None, {"service.max_pending": 2, "service.engine_workers": 1}, environ={})
    worker = EngineWorker(config, opener=lambda _: None)  # jobs below ignore the context
    order: list[int] = []

    def job(n: int):
        def run(_ctx):
            if n == 0:
                release.wait(5)
            order.append(n)
            return n

        return run

    async def scenario():
        first = asyncio.ensure_future(worker.run(job(0)))
        second = asyncio.ensure_future(worker.run(job(1)))
        await asyncio.sleep(0.05)
        with pytest.raises(ServerBusyError, match="service.max_pending=2"):
            await worker.run(job(2))
        release.set()
        return await asyncio.gather(first, second)

    worker.start()
    try:
        assert asyncio.run(scenario()) == [0, 1]
    finally:
        worker.close()
    assert order == [0, 1] and worker.pending == 0
    assert problem_for(ServerBusyError("busy")).status_code == 503


@pytest.mark.parametrize(
    ("path", "body", "where"),
    [
        ("/verify", '{"text": "Kinetic energy is energy of motion.", "query": "q\\ud800"}', "query"),
        ("/qa", '{"query": "What is kinetic energy?", "filters": {"doc": "\\ud800"}}', "filters.doc"),
        ("/qa/verify", '{"answer": "Energy \\ud800.", "evidence": {"passages": [{"text": "Energy."}]}}', "answer"),
        (
            "/qa/verify",
            '{"answer": "E.", "evidence": {"passages": [{"text": "x", "source_id": "\\ud800"}]}}',
            "evidence.passages.0.source_id",
        ),
    ],
)
def test_lone_surrogates_are_422_not_500(client, path, body, where):
    response = client.post(path, content=body.encode(), headers={"content-type": "application/json"})
    assert_problem(response, 422, f"{where} holds a lone UTF-16 surrogate")


def test_hostile_run_of_characters_is_verified_in_linear_time(demo_corpus):
    """'a=a=a=…' used to cost minutes (quadratic regex scans) while every other request queued behind it."""
    with make_client(demo_corpus, **{"service.max_sentence_chars": 100_000}) as lenient:
        assert lenient.post("/verify", json={"text": "a=" * 40_000}).status_code == 200


def test_a_run_on_sentence_over_the_server_limit_is_413_before_it_queues(client):
    body = assert_problem(
        client.post("/verify", json={"text": "a=" * 40_000}),
        413,
        "a sentence of 80,000 characters",
        "service.max_sentence_chars=3,000",
    )
    assert "VERIGROUND_SERVICE__MAX_SENTENCE_CHARS" in body["detail"]


def test_upload_source_id_with_control_characters_is_refused(client):
    response = client.post("/documents", files={"file": ("n.md", b"Some text.")}, data={"source_id": "a\x00b"})
    assert_problem(response, 422, "control characters")
