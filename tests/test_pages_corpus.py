"""The web page's whole job, in process (FastAPI TestClient over the real app, real corpus, lexical NLI): the
Documents pages (upload, list, document, passage view), same-name uploads, Ask filters, Verify's domain profile,
references linked to the passage view, and pages without inline script or style."""

from __future__ import annotations

import re
from html import unescape
from importlib import resources
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from veriground.config import load_config
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore
from veriground.domains.profiles import PROFILES
from veriground.service.api_routes import DomainName
from veriground.service.app import create_app

LOOPBACK = "http://127.0.0.1"
LAB = b"# Pendulum lab\n\nA simple pendulum of length 1.0 m has a period of about 2.0 seconds.\n"
OTHER_LAB = b"# Chemistry lab\n\nSodium chloride dissolves readily in water at room temperature.\n"
PASTED = (
    "A simple pendulum of length 1.0 m has a period of about 2.0 seconds.\n\n"
    "A simple pendulum of length 1.0 m has a period of about 20 seconds."
)


@pytest.fixture
def client(tmp_path: Path):
    corpus = tmp_path / "corpus"
    with resources.as_file(resources.files("veriground") / "demo_corpus") as root, CorpusStore(corpus) as store:
        assert not ingest_paths([root / "physics"], store, load_config(None, environ={}).ingest).failed
    config = load_config(None, {"corpus.dir": corpus, "models.nli": "lexical"}, environ={})
    with TestClient(create_app(config), base_url=LOOPBACK) as test_client:
        yield test_client


def upload(client: TestClient, name: str, data: bytes, **form: str):
    return client.post("/ui/documents", files={"file": (name, data)}, data=form)


def hrefs(html: str, css: str) -> list[str]:
    return [unescape(href) for href in re.findall(rf'<a class="{css}" href="([^"]+)"', html)]


def test_a_different_file_with_a_taken_name_is_refused_with_409_and_search_keeps_the_first(client):
    assert client.post("/documents", files={"file": ("lab.md", LAB)}).status_code == 201
    refused = client.post("/documents", files={"file": ("lab.md", OTHER_LAB)})
    assert refused.status_code == 409
    detail = refused.json()["detail"]
    assert "uploads/lab.md: an earlier upload with this name holds a different file" in detail
    assert "rename the file to keep both, or send replace=true" in detail and "version 2 of uploads/lab" in detail
    passages = client.get("/documents").json()
    assert [doc["version"] for doc in passages if doc["doc_id"] == "uploads/lab"] == [1]
    answer = client.post("/qa", json={"query": "What is the period of a simple pendulum?"}).json()
    assert any("2.0 seconds" in claim["text"] for claim in answer["claims"])  # the first file is still searched

    page = upload(client, "lab.md", OTHER_LAB)
    assert page.status_code == 409 and 'role="alert"><strong>Name already taken</strong> (409)' in page.text
    assert 'id="upload-replace" name="replace" type="checkbox"' in page.text  # the way out is on the page

    assert client.post("/documents", files={"file": ("lab.md", LAB)}).status_code == 200  # same bytes: unchanged
    replaced = client.post("/documents", files={"file": ("lab.md", OTHER_LAB)}, data={"replace": "true"})
    assert replaced.status_code == 201 and replaced.json()["items"][0]["outcome"] == "new_version"


def test_the_upload_page_shows_what_ingest_did_and_lists_the_document(client):
    page = upload(client, "lab.md", LAB, source_type="lecture_notes", source_id="lab-book")
    assert page.status_code == 200
    row = re.search(r'<tr data-outcome="added">.*?</tr>', page.text).group()
    assert '<a href="/corpus/document?id=uploads%2Flab">uploads/lab</a>' in row and "<td>1</td>" in row
    listing = client.get("/corpus").text
    assert "<td>lab-book</td><td>lecture_notes</td><td>1 of 1</td>" in listing
    failed = upload(client, "empty.md", b"\x89PNG\r\n\x1a\n\x00\x00")
    assert failed.status_code == 422 and "Nothing was ingested" in failed.text and "binary" in failed.text
    bad_name = upload(client, "../x.md", LAB)
    assert bad_name.status_code == 422 and "is a path" in bad_name.text and "Traceback" not in bad_name.text


def test_document_and_passage_views_link_each_other(client):
    upload(client, "lab.md", LAB)
    document = client.get("/corpus/document", params={"id": "uploads/lab"})
    assert document.status_code == 200 and "<h1>Pendulum lab</h1>" in document.text
    [link] = hrefs(document.text, "passage-link")
    passage = client.get(link)
    assert passage.status_code == 200
    assert "A simple pendulum of length 1.0 m has a period of about 2.0 seconds." in passage.text
    passage_id = unescape(re.search(r'<code id="passage-id">([^<]+)</code>', passage.text).group(1))
    assert link == f"/corpus/passage?id={passage_id.replace('/', '%2F').replace('#', '%23')}"
    assert client.get(f"/passages/{passage_id.replace('#', '%23')}").json()["doc_id"] == "uploads/lab"
    anchor = passage_id.rpartition("#")[2]
    assert f'href="/corpus/document?id=uploads%2Flab&amp;version=1#p-{anchor}"' in passage.text
    assert f'<li id="p-{anchor}"' in document.text
    missing = client.get("/corpus/passage", params={"id": "uploads/lab#000000000000"})
    assert missing.status_code == 404 and "no passage &#x27;uploads/lab#000000000000&#x27;" in missing.text
    assert client.get("/corpus/document", params={"id": "nope"}).status_code == 404


def test_ask_filters_narrow_the_evidence_and_citations_link_to_the_passage_view(client):
    upload(client, "lab.md", LAB, source_type="lecture_notes")
    question = {"query": "What is the period of a simple pendulum of length 1.0 m?"}
    narrowed = client.post("/ui/ask", data={**question, "filter_doc": "uploads", "mode": "detailed"})
    cited = hrefs(narrowed.text, "citation")
    assert cited and all(href.startswith("/corpus/passage?id=uploads%2Flab%23") for href in cited)
    assert "<dt>Filters</dt><dd>doc=uploads</dd>" in narrowed.text and "<dt>Mode</dt><dd>detailed</dd>" in narrowed.text
    assert '<option value="detailed" selected>' in narrowed.text  # the form keeps what was asked
    elsewhere = client.post("/ui/ask", data={**question, "filter_source_type": "policy"})
    assert 'id="abstention"' in elsewhere.text  # no policy document holds it
    bad = client.post("/ui/ask", data={**question, "filter_source_type": "poem"})
    assert bad.status_code == 422 and "source type &#x27;poem&#x27; is not one of: textbook" in bad.text
    form = client.get("/ask").text
    for field in ("filter_doc", "filter_source", "filter_source_type"):
        assert f'<label for="{field}">' in form and f'id="{field}" name="{field}"' in form
    assert '<option value="physics"></option>' in form and '<option value="uploads"></option>' in form  # folders


def test_verify_page_applies_the_chosen_domain_links_references_and_colours_span_roles(client):
    upload(client, "lab.md", LAB)
    page = client.post("/ui/verify", data={"text": PASTED, "domain": "physics"})
    assert page.status_code == 200
    export_id = re.search(r'href="/exports/([^"]+)\.json"', page.text).group(1)
    report = client.get(f"/exports/{export_id}.json").json()
    assert report["manifest"]["config"]["verification"]["domain"] == "physics"
    assert '<option value="physics" selected>Introductory physics</option>' in page.text
    assert "<dt>Domain profile</dt><dd>Introductory physics (physics)</dd>" in page.text
    [reference] = hrefs(page.text, "citation")
    assert reference.startswith("/corpus/passage?id=uploads%2Flab%23")
    assert client.get(reference).status_code == 200
    assert '<li id="ref-1"><a class="passage-link" href="/corpus/passage?id=uploads%2Flab%23' in page.text
    assert '<mark class="supports"' in page.text and '<mark class="contradicts"' in page.text
    assert '<p class="legend" id="legend">' in page.text
    trace = page.text[page.text.index('<section id="trace">') : page.text.index('<section id="inspector">')]
    assert "<td>A simple pendulum of length 1.0 m has a period of about 20 seconds.</td>" in trace
    unknown = client.post("/ui/verify", data={"text": PASTED, "domain": "astrology"})
    assert unknown.status_code == 400 and "valid domains: general, physics" in unknown.text


def test_verify_api_takes_a_domain_and_the_pages_name_every_profile(client):
    assert set(DomainName.__args__) == set(PROFILES)
    report = client.post("/verify", json={"text": PASTED, "domain": "algorithms"}).json()
    assert report["manifest"]["config"]["verification"]["domain"] == "algorithms"
    refused = client.post("/verify", json={"text": PASTED, "domain": "astrology"})
    assert refused.status_code == 422 and "'general', 'physics'" in refused.json()["detail"]
    form = client.get("/").text
    assert all(f'<option value="{name}">' in form for name in PROFILES)


@pytest.mark.parametrize("path", ["/", "/ask", "/corpus", "/corpus/document?id=physics/speed-and-velocity"])
def test_pages_carry_no_inline_script_or_style_and_label_every_field(client, path):
    response = client.get(path)
    assert response.status_code == 200
    html = response.text
    assert re.findall(r"<script(?![^>]*\bsrc=)", html) == [] and " style=" not in html and "<style" not in html
    fields = re.findall(r'<(?:input|select|textarea) id="([^"]+)"', html)
    assert all(f'<label for="{field}"' in html for field in fields), fields
    assert "<div onclick" not in html and 'role="button"' not in html  # actions are real buttons and links


def test_the_exported_audit_page_keeps_explanations_and_references_without_the_server(client):
    upload(client, "lab.md", LAB)
    page = client.post("/ui/verify", data={"text": PASTED}).text
    export_id = re.search(r'href="/exports/([^"]+)\.html"', page).group(1)
    exported = client.get(f"/exports/{export_id}.html").text
    explanations = re.findall(r'<p class="explanation">.*?</p>', page)
    assert len(explanations) == 2 and re.findall(r'<p class="explanation">.*?</p>', exported) == explanations
    assert "your text says 20 seconds" in explanations[1]
    assert '<a class="citation" href="#ref-1">[1]</a>' in exported and "/corpus/" not in exported
    reference = re.search(r'<li id="ref-1">(.*?)</li>', exported, re.S).group(1)
    assert reference.startswith("[1] Pendulum lab: uploads/lab#") and "period of about 2.0 seconds" in reference


def test_a_busy_engine_leaves_the_forms_usable_with_the_suggestions_of_the_last_snapshot(client):
    import asyncio
    import threading

    assert 'id="domain-suggestion"' in client.get("/").text
    assert '<option value="uploads">' not in client.get("/ask").text
    upload(client, "lab.md", LAB)  # an upload takes the facets again, with /health's counts
    assert '<option value="uploads">' in client.get("/ask").text
    release, started = threading.Event(), threading.Semaphore(0)
    worker = client.app.state.worker

    def hold(_ctx):
        started.release()
        release.wait(10)

    # A long job on every engine thread.
    busy = [threading.Thread(target=asyncio.run, args=(worker.run(hold),)) for _ in range(worker.workers)]
    for thread in busy:
        thread.start()
    try:
        for _ in busy:
            assert started.acquire(timeout=10)
        form = client.get("/")
        assert form.status_code == 200 and 'id="verify-button"' in form.text
        assert 'id="domain-suggestion"' in form.text  # from the snapshot: the form never queues for the engine
    finally:
        release.set()
        for thread in busy:
            thread.join()
    assert 'id="domain-suggestion"' in client.get("/").text
