"""A new user's first hour on the web page, in a real browser (Playwright + Debian's headless Chromium, as
test_ui_browser.py): upload a .md file, ask a question it answers with a filter, verify a pasted text with one wrong
number, open the wrong claim and read its explanation, follow reference [1] to the passage, export the audit HTML and
read it offline with the same explanations and references. Keyboard use and the progress indicator are checked too.

A screenshot of each state lands in test-artifacts/screenshots/ (created when missing); CI uploads that folder.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import pytest

from headless_chromium import ARTIFACTS, launch_chromium
from live_server import live_server
from veriground.config import load_config
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore

SCREENSHOTS = ARTIFACTS / "screenshots"
LAB_NOTES = (
    "# Pendulum lab\n\n"
    "A simple pendulum of length 1.0 m has a period of about 2.0 seconds.\n\n"
    "The period of a simple pendulum does not depend on the mass of the bob.\n"
)
QUESTION = "What is the period of a simple pendulum of length 1.0 m?"
PASTED = (
    "The period of a simple pendulum does not depend on the mass of the bob.\n\n"
    "A simple pendulum of length 1.0 m has a period of about 20 seconds."
)
# A new user's server: the shipped decision rules, not the seed decision tree conftest.py pins for unit tests.
SHIPPED_DEFAULTS = {
    "VERIGROUND_VERIFICATION__AGGREGATOR": "calibrated",
    "VERIGROUND_VERIFICATION__MIN_SUPPORTING_SOURCES": "1",
}
SNAKE_CASE = re.compile(r"\b[a-z]+_[a-z_]+\b")
RAW_PROBABILITY = re.compile(r"\b0\.\d{2,}\b")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    corpus = tmp_path_factory.mktemp("walk") / "corpus"
    with resources.as_file(resources.files("veriground") / "demo_corpus") as root, CorpusStore(corpus) as store:
        assert not ingest_paths([root / "physics"], store, load_config(None, environ={}).ingest).failed
    with live_server(corpus, env=SHIPPED_DEFAULTS) as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    with launch_chromium() as launched:
        yield launched


def shoot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def test_upload_ask_verify_follow_reference_and_export_offline(server, browser, tmp_path):
    from playwright.sync_api import expect

    context = browser.new_context(accept_downloads=True)
    page = context.new_page()
    failures: list[str] = []
    page.on("pageerror", lambda error: failures.append(f"script error: {error}"))
    page.on("response", lambda response: failures.append(response.url) if response.status >= 400 else None)

    # 1. Upload a .md file and see what ingest did.
    notes = tmp_path / "pendulum-lab.md"
    notes.write_text(LAB_NOTES, encoding="utf-8")
    page.goto(f"{server}/corpus")
    page.set_input_files("#upload-file", str(notes))
    page.select_option("#upload-source-type", "lecture_notes")
    page.click("#upload-button")
    added = page.locator('#ingest-result tr[data-outcome="added"]')
    expect(added).to_have_count(1)
    expect(added).to_contain_text("uploads/pendulum-lab")
    expect(page.locator("table.documents")).to_contain_text("uploads/pendulum-lab")
    shoot(page, "1-upload-result")

    # 2. Ask a question it answers, narrowed by a filter.
    page.goto(f"{server}/ask")
    page.fill("#query", QUESTION)
    page.select_option("#filter_source_type", "lecture_notes")
    page.click("#ask-button")
    expect(page.locator("#answer")).to_be_visible()
    expect(page.locator("#answer .answer")).to_contain_text("2.0 seconds")
    expect(page.locator("#trace")).to_contain_text("source_type=lecture_notes")
    cited = page.locator("#answer a.citation").evaluate_all("els => els.map(e => e.getAttribute('href'))")
    assert cited and all(href.startswith("/corpus/passage?id=uploads%2Fpendulum-lab%23") for href in cited), cited
    shoot(page, "2-ask-answer")

    # 3. Verify a pasted text with one wrong number.
    page.goto(f"{server}/")
    page.fill("#text", PASTED)
    page.select_option("#domain", "physics")
    page.click("#verify-button")
    expect(page.locator("#result")).to_be_visible()
    shoot(page, "3-verify-result")
    wrong = page.locator('section.claim[data-verdict="Contradictory"]')
    expect(wrong).to_have_count(1)
    expect(page.locator('section.claim[data-verdict="Supported"]')).to_have_count(1)

    # 4. Open the wrong claim from the inspector and read its plain-language explanation.
    claim_id = wrong.get_attribute("id")
    page.locator(f'#inspector a[href="#{claim_id}"]').click()
    expect(wrong.locator("details.signals")).to_have_attribute("open", "")
    explanation = wrong.locator("p.explanation").inner_text()
    assert "20 seconds" in explanation and re.search(r"\b2(\.0)? seconds", explanation), explanation
    assert not SNAKE_CASE.search(explanation) and not RAW_PROBABILITY.search(explanation), explanation
    expect(wrong.locator("mark.contradicts").first).to_be_visible()
    expect(page.locator("#legend mark.contradicts")).to_be_visible()
    contradicting = wrong.locator("mark.contradicts").first.evaluate("e => getComputedStyle(e).backgroundColor")
    supporting = page.locator("#legend mark.supports").evaluate("e => getComputedStyle(e).backgroundColor")
    assert contradicting != supporting  # the two roles are told apart (and the stylesheet loaded despite the CSP)
    expect(page.locator("table.trace")).to_contain_text("about 20 seconds")  # the claim text is in the trace
    shoot(page, "4-wrong-claim-open")
    explanations = page.locator("p.explanation").all_inner_texts()
    references = page.locator("ol.references > li > a").all_inner_texts()
    assert len(references) == 1 and references[0].startswith("[1] "), references
    export_href = page.locator("#export-html").get_attribute("href")

    # 5. Follow reference [1] in the mitigated answer to the passage.
    page.locator("blockquote.answer a.citation", has_text="[1]").click()
    expect(page.locator("#passage-text")).to_contain_text("period of about 2.0 seconds")
    expect(page.locator("#passage-id")).to_contain_text("uploads/pendulum-lab#")
    shoot(page, "5-passage-view")

    # 6. Export the audit HTML from the result page and open it offline.
    page.go_back()
    expect(page.locator("#export-html")).to_have_attribute("href", export_href)
    with page.expect_download() as download:
        page.click("#export-html")
    exported = tmp_path / "audit.html"
    exported.write_bytes(Path(download.value.path()).read_bytes())
    context.close()

    offline = browser.new_context(offline=True)
    requested: list[str] = []
    offline.on("request", lambda request: requested.append(request.url))
    audit = offline.new_page()
    audit.goto(exported.as_uri())
    assert audit.locator("p.explanation").all_inner_texts() == explanations
    assert audit.locator("ol.references > li").evaluate_all("els => els.map(e => e.firstChild.textContent)") == (
        references
    )
    audit.locator("blockquote.answer a.citation", has_text="[1]").click()
    assert audit.url.endswith("#ref-1")
    expect(audit.locator("#ref-1 blockquote")).to_contain_text("period of about 2.0 seconds")
    shoot(audit, "6-audit-export-offline")
    assert [url for url in requested if not url.startswith("file:")] == []
    offline.close()
    assert not failures, failures


def test_forms_work_from_the_keyboard_and_a_running_job_shows_its_elapsed_time(server, browser):
    from playwright.sync_api import expect

    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{server}/ask")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip"  # first stop: skip to the content
    page.focus("#query")
    order = []
    for _ in range(5):
        page.keyboard.press("Tab")
        order.append(page.evaluate("document.activeElement.id"))
    assert order == ["mode", "filter_doc", "filter_source", "filter_source_type", "ask-button"]
    for field in ("query", "mode", "filter_doc", "filter_source", "filter_source_type"):
        expect(page.locator(f'label[for="{field}"]')).to_have_count(1)  # every field is labelled

    # A 204 answer leaves the submitting page in place (Playwright cannot read a page whose navigation is still
    # pending), so the page goes on showing what a user watches while a long job runs: the indicator counting up.
    page.route("**/ui/ask", lambda route: route.fulfill(status=204))
    page.fill("#query", QUESTION)
    page.focus("#ask-button")
    page.keyboard.press("Enter")
    progress = page.locator(".progress[role=status]")
    expect(progress).to_be_visible()
    expect(progress).to_contain_text("Searching the corpus")
    expect(page.locator("#ask-button")).to_be_disabled()
    expect(progress.locator(".elapsed")).to_have_text(re.compile(r"^[1-9]\d* s elapsed$"), timeout=10_000)
    shoot(page, "0-job-in-progress")
    page.unroute("**/ui/ask")
    page.reload()
    page.fill("#query", "What is kinetic energy?")  # the demo physics documents answer it
    page.focus("#ask-button")
    page.keyboard.press("Enter")
    expect(page.locator("#answer")).to_be_visible()
    expect(page.locator(".progress")).to_have_count(0)  # the result page starts without one
    context.close()


def test_browse_documents_open_one_and_step_through_its_passages(server, browser):
    from playwright.sync_api import expect

    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{server}/corpus")
    page.locator("table.documents a", has_text="physics/speed-and-velocity").click()
    expect(page.locator("h1")).to_have_text("Speed and Velocity")
    links = page.locator("ol.passages a.passage-link")
    assert links.count() > 2
    second_id, third_id = links.nth(1).inner_text(), links.nth(2).inner_text()
    shoot(page, "7-document-passages")
    links.nth(1).click()
    expect(page.locator("#passage-id")).to_have_text(second_id)
    page.locator('nav.steps a[rel="next"]').click()
    expect(page.locator("#passage-id")).to_have_text(third_id)
    page.locator('nav.steps a[rel="prev"]').click()
    expect(page.locator("#passage-id")).to_have_text(second_id)
    page.locator("dd a", has_text="Speed and Velocity").click()  # back into the document, at this passage
    assert page.url.endswith(f"#p-{second_id.rpartition('#')[2]}")
    expect(page.locator(f"li#p-{second_id.rpartition('#')[2]}")).to_be_in_viewport()
    context.close()
