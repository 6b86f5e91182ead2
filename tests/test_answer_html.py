"""The HTML answer page over answers from the real `ask` pipeline on a tiny corpus (BM25, lexical NLI, no LLM):
citations that link to their passages, a visible abstention, the trace, the failed-claim inspector, escaping,
determinism, and an answer with no trace."""

from __future__ import annotations

import re
from html import escape

import pytest

from conftest import write_file
from veriground.answering.pipeline import AnswerBackends, answer_question
from veriground.backends.lexical_nli import LexicalNLIModel
from veriground.config import AnswerConfig, Config, IngestConfig
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore
from veriground.reports.answer_html import render_answer_body, render_answer_html
from veriground.reports.html import REPORT_STYLE
from veriground.reports.report_facts import format_number
from veriground.retrieval.search import CorpusRetriever
from veriground.schema import GroundedAnswer

DOCS = {
    # An independent source (another top-level folder) says the opposite of "never negative": verification finds the
    # sources disagree and removes the drafted claim.
    "physics/energy.md": "Kinetic energy is the energy of motion. A moving object has kinetic energy. "
    "Kinetic energy is never negative.\n\nPotential energy is stored energy of position.\n",
    "myths/energy.md": "Kinetic energy is sometimes negative.\n",
    "physics/work.md": "Kinetic energy is the energy an object has because of its motion. "
    "Kinetic energy grows with the square of speed.\n\nWork transfers energy to an object.\n",
    "physics/notes.txt": "Kinetic energy notes <script>alert(1)</script> for the exam.\n",
}
ANSWERED = "kinetic energy"
HOSTILE_QUESTION = "Who won the 1998 World Cup <script>alert(2)</script>?"


@pytest.fixture(scope="module")
def answers(tmp_path_factory) -> dict[str, GroundedAnswer]:
    root = tmp_path_factory.mktemp("answer-html")
    for name, text in DOCS.items():
        write_file(root / "lib", name, text)
    config = Config(answer=AnswerConfig(mode="detailed"))
    with CorpusStore(root / "corpus") as store:
        ingest_paths([root / "lib"], store, IngestConfig(min_passage_chars=10))
        backends = AnswerBackends(
            store=store, retriever=CorpusRetriever(store, config.retrieval), nli=LexicalNLIModel(), llm=None
        )
        return {
            "answered": answer_question(ANSWERED, config=config, backends=backends),
            "again": answer_question(ANSWERED, config=config, backends=backends),
            "abstained": answer_question(HOSTILE_QUESTION, config=config, backends=backends),
        }


def section(page: str, section_id: str) -> str:
    """The HTML of one top-level section (these sections hold no nested <section>)."""
    start = page.index(f'<section id="{section_id}"')
    return page[start : page.index("</section>", start)]


def test_an_answered_question_links_every_citation_to_its_passage_with_location_and_text(answers):
    answer = answers["answered"]
    assert answer.claims and answer.abstention_reason is None
    page = render_answer_html(answer)
    assert 'id="abstention"' not in page
    chunks = {chunk.passage_id: chunk for chunk in answer.trace.evidence}
    shown = section(page, "answer")
    for claim in answer.claims:
        item = next(li for li in re.findall(r"<li>(.*?)</li>", shown) if li.startswith(escape(claim.text)))
        for citation in claim.supporting_citations:
            anchor = re.search(
                rf'<a class="citation" href="#(passage-\d+)">\[\d\] {re.escape(citation.passage_id)}</a>', item
            )
            assert anchor, (claim.text, item)
            target = re.search(rf'<div class="passage" id="{anchor.group(1)}">(.*?)</div>', page).group(1)
            chunk = chunks[citation.passage_id]
            assert f"<h3>{citation.passage_id}</h3>" in target
            assert f"version {chunk.version}" in target and f"chars {chunk.char_start}-{chunk.char_end}" in target
            assert escape(chunk.text) in target


def test_the_confidence_label_is_a_badge_with_text(answers):
    answered, abstained = answers["answered"], answers["abstained"]
    value = answered.confidence.value
    assert f'<span class="badge confidence-{value}">{value}</span>' in render_answer_html(answered)
    assert '<span class="badge confidence-insufficient_evidence">insufficient evidence</span>' in render_answer_html(
        abstained
    )
    assert f'data-confidence="{value}"' in render_answer_html(answered)


def test_an_abstention_shows_its_reason_refinements_and_filter_suggestions(answers):
    answer = answers["abstained"]
    assert answer.abstention_reason and answer.query_refinements and not answer.claims
    shown = section(render_answer_html(answer), "abstention")
    assert f'<p class="reason">{escape(answer.abstention_reason)}</p>' in shown
    for refinement in answer.query_refinements:
        assert escape(refinement) in shown
    for suggestion in answer.filter_suggestions:
        assert f"--filter {escape(suggestion)}" in shown


def test_the_trace_has_one_row_per_drafted_claim_with_verdict_rule_reason_and_outcome(answers):
    answer = answers["answered"]
    rows = re.findall(r"<tr>(.*?)</tr>", section(render_answer_html(answer), "trace"))[1:]  # skip the header
    assert len(rows) == len(answer.trace.claims) >= 2
    for row, claim in zip(rows, answer.trace.claims, strict=True):
        assert escape(claim.text) in row and escape(claim.reason) in row and claim.rule in row
        assert f">{claim.verdict}</span>" in row
        assert row.endswith(">kept</td>" if claim.kept else ">removed</td>")
        for passage_id in claim.cited_ids:
            assert re.search(rf'<a href="#passage-\d+">{re.escape(passage_id)}</a>', row)


def test_the_gate_values_are_shown(answers):
    gate = answers["answered"].trace.gate
    shown = section(render_answer_html(answers["answered"]), "trace")
    assert "<dt>Outcome</dt><dd>passed</dd>" in shown
    assert f"<dt>Max of top 5</dt><dd>{format_number(gate.max_top5)}</dd>" in shown
    assert f"<dt>Threshold</dt><dd>{format_number(gate.threshold)}</dd>" in shown


def test_the_inspector_lists_exactly_the_removed_claims(answers):
    answer = answers["answered"]
    removed = [claim for claim in answer.trace.claims if not claim.kept]
    assert removed, "the corpus is built so that verification removes one drafted claim"
    shown = section(render_answer_html(answer), "inspector")
    assert re.findall(r"<blockquote>(.*?)</blockquote>", shown) == [escape(claim.text) for claim in removed]
    for claim in removed:
        assert escape(claim.reason) in shown and claim.rule in shown
    kept_only = answer.trace.model_copy(update={"claims": tuple(c for c in answer.trace.claims if c.kept)})
    page = render_answer_html(answer.model_copy(update={"trace": kept_only}))
    assert "No drafted claim was removed." in section(page, "inspector")


def test_an_answer_without_a_trace_still_renders_its_citations(answers):
    answer = answers["answered"].model_copy(update={"trace": None})
    page = render_answer_html(answer)
    assert "No trace was recorded for this answer." in section(page, "trace")
    assert "No manifest was recorded." in page
    assert '<a class="citation" href="#ref-1">' in page and 'id="ref-1"' in page


def test_hostile_text_in_question_and_passages_is_escaped(answers):
    for answer in answers.values():
        page = render_answer_html(answer)
        assert "<script" not in page
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in render_answer_html(answers["abstained"])
    assert "Kinetic energy notes &lt;script&gt;alert(1)&lt;/script&gt;" in render_answer_html(answers["answered"])


def test_the_page_is_deterministic_and_wraps_the_body(answers):
    answer = answers["answered"]
    page = render_answer_html(answer)
    assert page == render_answer_html(GroundedAnswer.model_validate(answer.model_dump()))
    assert page == render_answer_html(answers["again"])
    body = render_answer_body(answer)
    assert "<html" not in body and "<head" not in body and "<style" not in body
    assert f"<main>\n{body}\n</main>" in page and f"<style>{REPORT_STYLE}</style>" in page
