"""The web page in a real browser: Playwright drives Debian's headless Chromium (installed by `make test`)
against `veriground serve` on a free loopback port. Screenshots land in test-artifacts/."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import pytest

from headless_chromium import ARTIFACTS, launch_chromium
from live_server import live_server
from veriground.config import load_config
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore

PHONE = {"width": 375, "height": 812}


@pytest.fixture(scope="module")
def demo_root():
    with resources.as_file(resources.files("veriground") / "demo_corpus") as root:
        yield root


@pytest.fixture(scope="module")
def server(demo_root, tmp_path_factory):
    corpus = tmp_path_factory.mktemp("ui") / "corpus"
    with CorpusStore(corpus) as store:
        assert not ingest_paths([demo_root], store, load_config(None, environ={}).ingest).failed
    with live_server(corpus) as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    with launch_chromium() as launched:
        yield launched


@pytest.fixture
def page(browser):
    context = browser.new_context(accept_downloads=True)
    yield context.new_page()
    context.close()


def test_paste_text_see_badges_open_evidence_and_export(server, page, demo_root, tmp_path):
    from playwright.sync_api import expect

    example = (demo_root / "EXAMPLE_ANSWER.md").read_text(encoding="utf-8")
    page.goto(f"{server}/")
    page.fill("#text", example)
    page.click("#verify-button")
    expect(page.locator("#result")).to_be_visible()

    verdicts = page.locator("section.claim").evaluate_all("els => els.map(e => e.dataset.verdict)")
    assert {"Supported", "Contradictory"} <= set(verdicts), verdicts
    badge_texts = set(page.locator("section.claim h3 .badge").all_inner_texts())
    assert {"Supported", "Contradictory"} <= badge_texts  # the verdict is written, not only coloured
    expect(page.locator("#summary")).to_contain_text("Contradictory")
    expect(page.locator("#inspector li.failed").first).to_be_visible()

    # The inspector links to a failed claim; following it opens that claim's signals and evidence.
    failed = page.locator('section.claim[data-verdict="Contradictory"]').first
    claim_id = failed.get_attribute("id")
    page.locator(f'#inspector a[href="#{claim_id}"]').first.click()
    signals = failed.locator("details.signals")
    expect(signals).to_have_attribute("open", "")
    expect(signals.locator("table").first).to_be_visible()
    for column in ("entailment", "contradiction", "coverage", "numeric", "rule fired", "reason"):
        expect(signals.locator("th", has_text=re.compile(column, re.IGNORECASE)).first).to_be_visible()

    # A supported claim opened from the keyboard shows its passage with the supporting span marked.
    supported = page.locator('section.claim[data-verdict="Supported"]').first
    supported.locator("details.signals > summary").focus()
    page.keyboard.press("Enter")
    expect(supported.locator("details.signals")).to_have_attribute("open", "")
    expect(supported.locator("mark").first).to_be_visible()

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "ui-verify.png"), full_page=True)

    with page.expect_download() as html_download:
        page.click("#export-html")
    exported = Path(html_download.value.path()).read_text(encoding="utf-8")
    assert exported.startswith("<!DOCTYPE html>") and "<script" not in exported and claim_id in exported
    with page.expect_download() as json_download:
        page.click("#export-json")
    report = json.loads(Path(json_download.value.path()).read_text(encoding="utf-8"))
    assert [item["decision"]["status"] for item in report["claims"]] == verdicts


def test_upload_a_file_to_check(server, page, tmp_path):
    from playwright.sync_api import expect

    notes = tmp_path / "notes.md"
    notes.write_text("Kinetic energy does not depend on the speed of an object.\n", encoding="utf-8")
    page.goto(f"{server}/")
    page.set_input_files("#file", str(notes))
    page.click("#verify-button")
    expect(page.locator('section.claim[data-verdict="Contradictory"]')).to_have_count(1)


def test_bad_input_shows_a_message_not_a_traceback(server, page, tmp_path):
    from playwright.sync_api import expect

    binary = tmp_path / "image.txt"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    page.goto(f"{server}/")
    page.set_input_files("#file", str(binary))
    page.click("#verify-button")
    expect(page.locator('[role="alert"]')).to_contain_text("binary")
    assert "Traceback" not in page.content()


def test_ask_gives_a_cited_answer_or_an_abstention(server, page):
    from playwright.sync_api import expect

    page.goto(f"{server}/ask")
    page.fill("#query", "What is kinetic energy?")
    page.click("#ask-button")
    expect(page.locator("#answer")).to_be_visible()
    expect(page.locator("a.citation").first).to_be_visible()
    page.fill("#query", "Who won the 1998 World Cup?")
    page.click("#ask-button")
    expect(page.locator("#abstention")).to_be_visible()
    expect(page.locator("#summary")).to_contain_text("insufficient")


def test_phone_width_has_no_sideways_scroll(server, browser, demo_root):
    context = browser.new_context(viewport=PHONE, device_scale_factor=1)
    page = context.new_page()
    page.goto(f"{server}/")
    page.fill("#text", (demo_root / "EXAMPLE_ANSWER.md").read_text(encoding="utf-8"))
    page.click("#verify-button")
    page.locator("#result").wait_for()
    page.locator("details.signals").evaluate_all("els => els.forEach(e => { e.open = true; })")
    width = page.evaluate("document.documentElement.scrollWidth")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "ui-verify-phone.png"), full_page=False)
    context.close()
    assert width <= PHONE["width"], f"page is {width}px wide on a {PHONE['width']}px screen"


def test_api_docs_render_without_a_network(server, page):
    from playwright.sync_api import expect

    page.goto(f"{server}/docs")  # Swagger UI comes from the package; Chromium here has no network at all
    expect(page.locator(".opblock-summary-path", has_text="/qa/verify").first).to_be_visible()
