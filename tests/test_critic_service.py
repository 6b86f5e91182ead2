"""Critic mode over HTTP (in process, real app, demo corpus, lexical NLI): POST /critic returns the CriticReport the
CLI prints, bad bodies are problem bodies, and the "Critique a draft" page shows the same findings as highlighted
spans with a legend and exports."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from veriground.cli import main
from veriground.config import load_config
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore
from veriground.service.app import create_app

LOOPBACK = "http://127.0.0.1"
EXAMPLE = resources.files("veriground") / "eval_data" / "critic_example.md"


@pytest.fixture(scope="module")
def demo_corpus(tmp_path_factory) -> Path:
    corpus = tmp_path_factory.mktemp("critic-service") / "corpus"
    with resources.as_file(resources.files("veriground") / "demo_corpus") as root, CorpusStore(corpus) as store:
        assert not ingest_paths([root], store, load_config(None, environ={}).ingest).failed
    return corpus


@pytest.fixture(scope="module")
def client(demo_corpus):
    # The environment, as the CLI reads it, so that the server and `veriground critic` decide alike.
    config = load_config(None, {"corpus.dir": demo_corpus, "models.nli": "lexical"})
    with TestClient(create_app(config), base_url=LOOPBACK) as test_client:
        yield test_client


def test_post_critic_gives_the_report_the_cli_prints(client, demo_corpus, capsys):
    text = EXAMPLE.read_text(encoding="utf-8")
    response = client.post("/critic", json={"text": text})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["summary"]["labels"] == ["L1", "L2", "L3", "L4", "L5", "L6"]
    with resources.as_file(EXAMPLE) as example:
        assert main(["critic", str(example), "--corpus", str(demo_corpus), "--json", "--nli", "lexical"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert body["findings"] == cli["findings"] and body["checks"] == cli["checks"]


def test_post_critic_tier2_without_an_llm_falls_back_and_warns(client):
    body = client.post("/critic", json={"text": "This reckless plan has no alternative.", "tier": 2}).json()
    assert body["tier2"]["status"] == "fallback" and body["summary"]["final_tier"] == 1
    assert any("llm.base_url is not set" in warning for warning in body["manifest"]["warnings"])


@pytest.mark.parametrize(
    ("payload", "fragment"),
    [
        ({"text": ""}, "text"),
        ({"text": "A plan.", "tier": 3}, "tier"),
        ({"text": "A plan.", "extra": 1}, "extra"),
    ],
)
def test_post_critic_bad_bodies_are_422_problems(client, payload, fragment):
    response = client.post("/critic", json=payload)
    assert response.status_code == 422 and response.headers["content-type"].startswith("application/problem+json")
    assert fragment in response.json()["detail"]


def test_post_critic_a_draft_with_no_sentence_is_a_422_problem(client):
    response = client.post("/critic", json={"text": "# Only a heading\n"})
    assert response.status_code == 422 and "no prose sentence" in response.json()["detail"]


def test_critic_page_highlights_the_same_findings_with_legend_and_exports(client):
    form = client.get("/critic/page")
    assert form.status_code == 200 and 'id="critic-text"' in form.text and "<style" not in form.text
    text = EXAMPLE.read_text(encoding="utf-8")
    page = client.post("/critic/page", data={"text": text, "tier": "1"})
    assert page.status_code == 200, page.text
    api = client.post("/critic", json={"text": text}).json()
    for number, finding in enumerate(api["findings"], start=1):
        assert f'id="finding-{number}" class="critic-finding critic-{finding["label"]}"' in page.text
    assert 'id="critic-labels">L1, L2, L3, L4, L5, L6<' in page.text
    assert page.text.count('<li data-label="') == 6  # the legend
    assert '<script src="/static/critic.js"' in page.text and "<script>" not in page.text
    css = client.get("/critic/style.css")
    assert css.status_code == 200 and ".critic-L1" in css.text and css.headers["content-type"].startswith("text/css")
    assert client.get("/static/critic.js").status_code == 200
    export = re.search(r'href="(/critic/exports/critique-[0-9a-f]+)\.json"', page.text).group(1)
    exported = client.get(f"{export}.json").json()
    assert exported["findings"] == api["findings"]
    html = client.get(f"{export}.html")
    assert html.status_code == 200 and "attachment" in html.headers["content-disposition"]
    assert client.get("/critic/exports/critique-0000.json").status_code == 404


def test_critic_page_shows_errors_in_the_form(client):
    page = client.post("/critic/page", data={"text": "   ", "tier": "1"})
    assert page.status_code == 422 and "there is no draft to critique" in page.text
    assert client.post("/critic/page", data={"text": "A plan.", "tier": "9"}).status_code == 422
