"""A real `veriground serve` on a loopback socket: the README's curl examples as written, and concurrent
requests that must neither fail nor corrupt the store."""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
import subprocess
from importlib import resources
from pathlib import Path

import httpx
import pytest

from live_server import live_server
from veriground.config import load_config
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore

README = Path(__file__).resolve().parents[1] / "README.md"
README_PORT = "127.0.0.1:8000"


@pytest.fixture(scope="module")
def demo_corpus(tmp_path_factory) -> Path:
    corpus = tmp_path_factory.mktemp("live") / "corpus"
    with resources.as_file(resources.files("veriground") / "demo_corpus") as root, CorpusStore(corpus) as store:
        assert not ingest_paths([root], store, load_config(None, environ={}).ingest).failed
    return corpus


def readme_curls() -> list[str]:
    return re.findall(r"^    (curl .+)$", README.read_text(encoding="utf-8"), flags=re.MULTILINE)


def test_readme_curl_examples_work_as_written(demo_corpus, tmp_path):
    commands = readme_curls()
    paths = {re.search(r"8000(/[^ ]*)", command).group(1) for command in commands}
    assert {"/qa", "/qa/verify", "/verify"} <= paths
    (tmp_path / "notes.md").write_text("# Notes\n\nA moving object has kinetic energy.\n", encoding="utf-8")
    with live_server(demo_corpus) as base:
        host = base.removeprefix("http://")
        for command in commands:
            done = subprocess.run(
                command.replace(README_PORT, host), shell=True, cwd=tmp_path, capture_output=True, text=True
            )
            assert done.returncode == 0, (command, done.stderr)
            body = json.loads(done.stdout)
            assert not (isinstance(body, dict) and body.get("status", 200) != "ok" and "detail" in body), body
            if "/qa/verify" in command:
                assert body["passed"] is True, body["reason_codes"]
            elif command.split()[2].endswith("/qa"):
                assert body["claims"] and body["confidence"] != "insufficient_evidence"
            elif "/verify" in command:
                assert body["annotated_answer"]["claims"][0]["status"] == "Contradictory"


def test_concurrent_uploads_and_checks_keep_the_store_whole(demo_corpus):
    uploads = [(f"note{n}.md", f"# Note {n}\n\nThe quokka number {n} lives on Rottnest Island.\n") for n in range(8)]

    async def hammer(base: str) -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=base, timeout=120) as client:
            jobs = [client.post("/documents", files={"file": (name, text.encode())}) for name, text in uploads]
            jobs += [
                client.post("/verify", json={"text": f"The quokka number {n} lives on Rottnest Island."})
                for n in range(8)
            ]
            jobs += [client.post("/qa", json={"query": "What is kinetic energy?"}) for _ in range(4)]
            jobs += [client.post("/verify", content=b"{broken")]
            return await asyncio.gather(*jobs)

    with live_server(demo_corpus) as base:
        responses = asyncio.run(hammer(base))
        assert [r.status_code for r in responses[:8]] == [201] * 8, [r.text for r in responses[:8]]
        assert all(r.status_code == 200 for r in responses[8:20]), [r.text for r in responses[8:20]]
        assert responses[-1].status_code == 422
        docs = {doc["doc_id"] for doc in httpx.get(f"{base}/documents").json()}
        assert {f"uploads/note{n}" for n in range(8)} <= docs
        health = httpx.get(f"{base}/health").json()
        check = httpx.post(f"{base}/verify", json={"text": "The quokka number 3 lives on Rottnest Island."}).json()
        assert check["claims"][0]["evidence"][0]["doc_id"] == "uploads/note3"
    with sqlite3.connect(demo_corpus / "corpus.sqlite3") as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert health["documents"] == len(docs)
