"""The "Critique a draft" page in a real browser (Playwright, Debian's headless Chromium, as test_ui_browser.py):
the page shows the same findings as POST /critic, as highlighted spans with a legend, a span's rationale on
click, and the audit exports. Screenshots land in test-artifacts/."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import httpx
import pytest

from headless_chromium import ARTIFACTS, launch_chromium
from live_server import live_server
from veriground.config import load_config
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore

EXAMPLE = resources.files("veriground") / "eval_data" / "critic_example.md"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    corpus = tmp_path_factory.mktemp("critic-ui") / "corpus"
    with resources.as_file(resources.files("veriground") / "demo_corpus") as root, CorpusStore(corpus) as store:
        assert not ingest_paths([root], store, load_config(None, environ={}).ingest).failed
    with live_server(corpus) as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    with launch_chromium() as launched:
        yield launched


def test_page_and_api_give_the_same_findings_and_a_span_shows_its_rationale(server, browser):
    from playwright.sync_api import expect

    text = EXAMPLE.read_text(encoding="utf-8")
    api = httpx.post(f"{server}/critic", json={"text": text}, timeout=60).json()
    assert api["summary"]["labels"] == ["L1", "L2", "L3", "L4", "L5", "L6"]

    context = browser.new_context(accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("response", lambda response: errors.append(response.url) if response.status >= 400 else None)
    page.goto(f"{server}/critic/page")
    page.fill("#critic-text", text)
    page.click("#critic-button")
    expect(page.locator("#result")).to_be_visible()

    shown = page.locator("#critic-findings li.critic-finding").evaluate_all("els => els.map(e => e.dataset.label)")
    assert shown == [finding["label"] for finding in api["findings"]]
    expect(page.locator("#critic-legend li")).to_have_count(6)
    marked = page.locator("#critic-draft a.critic-mark").evaluate_all("els => els.map(e => e.dataset.labels)")
    assert {label for labels in marked for label in labels.split()} == set(api["summary"]["labels"])
    colour = page.locator("#critic-draft a.critic-mark").first.evaluate("e => getComputedStyle(e).backgroundColor")
    assert colour not in ("rgba(0, 0, 0, 0)", "transparent")  # the label colours load despite the CSP

    # Selecting the L5 span shows its finding's rationale beside the draft.
    l5 = next(n for n, f in enumerate(api["findings"], start=1) if f["label"] == "L5")
    page.locator(f'#critic-draft a.critic-mark[data-finding="finding-{l5}"]').first.click()
    detail = page.locator("#critic-detail")
    expect(detail).to_be_visible()
    expect(detail).to_contain_text(api["findings"][l5 - 1]["rationale"])
    expect(page.locator(f"#finding-{l5}")).to_have_class("critic-finding critic-L5 critic-open")

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "ui-critic.png"), full_page=True)
    with page.expect_download() as json_download:
        page.click("#critic-export-json")
    exported = json.loads(Path(json_download.value.path()).read_text(encoding="utf-8"))
    assert exported["findings"] == api["findings"]
    assert not errors, errors
    context.close()
