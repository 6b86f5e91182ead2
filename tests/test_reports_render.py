"""The three report views (Markdown, HTML, terminal) over one hand-built report: same facts, escaped, stable; and
the HTML sections (summary bar, trace, failed-claim inspector, signals) over a report the engine builds from a
tiny evidence pack with a fake NLI."""

from __future__ import annotations

import io
import re
from html import escape as escape_html
from html.parser import HTMLParser
from pathlib import Path

import pytest
from rich.console import Console

from veriground.backends.fakes import FakeNLIModel
from veriground.config import Config
from veriground.engine import verify_text
from veriground.evidence.gather import PackEvidence
from veriground.reports import terminal
from veriground.reports.evidence_facts import citation_targets
from veriground.reports.html import REPORT_STYLE, render_html, render_verification_body
from veriground.reports.markdown import render_markdown
from veriground.reports.verification_view import print_verification
from veriground.schema import (
    AnnotatedAnswer,
    BackendInfo,
    CitationFormatterOutput,
    CitationSignal,
    CiteEvalSystemExample,
    Claim,
    ClaimDecision,
    ClaimEvidencePair,
    ClaimReport,
    ClaimSignals,
    ClaimType,
    CoverageSignal,
    DecisionConfidence,
    DecisionInputs,
    EvidenceChunk,
    EvidenceConflict,
    EvidencePack,
    EvidenceSpan,
    NLIScores,
    NLISignal,
    NumericSignal,
    PackPassage,
    RejectionReason,
    ReportManifest,
    SignalStatus,
    SourceType,
    SummaryStats,
    VerificationReport,
    VerificationStatus,
)

COMPUTED, UNAVAILABLE, NOT_APPLICABLE = SignalStatus.COMPUTED, SignalStatus.UNAVAILABLE, SignalStatus.NOT_APPLICABLE
NLI_NAME = "lexical-nli.v1"
LEXICAL_NOTE = "transparent lexical heuristic (word overlap, negation, antonym and number cues), not a trained model"
INPUT_SHA = "ab" * 32

LIGHT_TEXT = "Light is fast. In vacuum, light travels at 3.0e8 m/s. It slows down in glass."
LIGHT_SPAN = "In vacuum, light travels at 3.0e8 m/s."
WATER_TEXT = "Water boils at 100 degrees Celsius at sea level. Pressure changes the boiling point."
WATER_SPAN = "Water boils at 100 degrees Celsius at sea level."
ICE_TEXT = "Water never boils at 100 degrees Celsius, according to this contrarian note."
OCEAN_TEXT = "The ocean covers most of the planet and holds most of its water."


def chunk(passage_id: str, doc_id: str, text: str, rank: int, source: str) -> EvidenceChunk:
    return EvidenceChunk(
        doc_id=doc_id,
        sent_id=0,
        passage_id=passage_id,
        text=text,
        char_start=100,
        char_end=100 + len(text),
        rank=rank,
        source=source,
        source_type=SourceType.TEXTBOOK,
        version=f"{doc_id}@v2",
    )


def span(passage_id: str, doc_id: str, text: str, start: int | None) -> EvidenceSpan:
    end = None if start is None else start + len(text)
    return EvidenceSpan(
        doc_id=doc_id, sent_id=0, text=text, rank=1, passage_id=passage_id, char_start=start, char_end=end
    )


def nli(passage_id: str, entail: float, neutral: float, contra: float) -> NLISignal:
    return NLISignal(
        status=COMPUTED,
        passage_id=passage_id,
        entailment_prob=entail,
        neutral_prob=neutral,
        contradiction_prob=contra,
        model=NLI_NAME,
    )


def computed_signals(nli_signals: tuple[NLISignal, ...], numeric: NumericSignal | None = None) -> ClaimSignals:
    return ClaimSignals(
        nli=nli_signals,
        coverage=CoverageSignal(
            status=COMPUTED,
            entity_coverage=1.0,
            number_coverage=0.5,
            token_coverage=0.8,
            jaccard=0.4,
            missing_terms=("vacuum",),
        ),
        numeric=numeric or NumericSignal(status=NOT_APPLICABLE, reason="the claim states no quantity"),
        citation=CitationSignal(status=NOT_APPLICABLE, reason="the claim cites nothing"),
    )


def claim_report(
    claim_id: str,
    text: str,
    *,
    verdict: str,
    status: VerificationStatus,
    reason: RejectionReason,
    rule: str,
    inputs: DecisionInputs,
    evidence: tuple[EvidenceChunk, ...] = (),
    spans: tuple[EvidenceSpan, ...] = (),
    signals: ClaimSignals,
    mitigation: str = "kept",
    overall: float | None = 0.5,
    band: str | None = "Medium",
    conflicts: tuple[EvidenceConflict, ...] = (),
    parent: tuple[str, str] | None = None,
) -> ClaimReport:
    primary = evidence[0].passage_id if evidence else None
    return ClaimReport(
        claim=Claim(
            claim_id=claim_id,
            answer_id="answer-1",
            text=text,
            answer_char_span=(0, len(text)),
            extraction_method="sentence",
            claim_type=ClaimType.FACTUAL,
            parent_claim_id=parent[0] if parent else None,
            atomicity_rule=parent[1] if parent else None,
        ),
        decision=ClaimDecision(
            claim_id=claim_id,
            status=verdict,
            rationale=f"rationale of {claim_id}",
            primary_evidence=primary,
            confidence=DecisionConfidence(overall_confidence=overall, band=band, support_prob=overall),
            verification_status=status,
            reason=reason,
            rule=rule,
        ),
        inputs=inputs,
        evidence=evidence,
        pair=ClaimEvidencePair(
            claim_id=claim_id,
            evidence_candidates=tuple(item.passage_id for item in evidence),
            top_evidence=primary,
            evidence_spans=spans,
        ),
        signals=signals,
        conflicts=conflicts,
        mitigation=mitigation,
    )


def build_claims() -> tuple[ClaimReport, ...]:
    light = chunk("p-light", "physics", LIGHT_TEXT, 1, "textbook-a")
    light_b = chunk("p-light-b", "optics", LIGHT_TEXT, 2, "textbook-b")
    water = chunk("p-water", "chemistry", WATER_TEXT, 1, "textbook-a")
    ice = chunk("p-ice", "notes", ICE_TEXT, 2, "notes-z")
    ocean = chunk("p-ocean", "geo", OCEAN_TEXT, 1, "atlas")
    supported = claim_report(
        "c1",
        "Light travels at 3.0e8 m/s in vacuum. <script>alert(1)</script>",
        verdict="Supported",
        status=VerificationStatus.VERIFIED,
        reason=RejectionReason.SUFFICIENT_EVIDENCE,
        rule="sufficient-evidence",
        inputs=DecisionInputs(
            evidence_count=2,
            nli_status=COMPUTED,
            max_entailment=0.91,
            max_contradiction=0.02,
            entailing_sources=2,
            strongest_entailment_passage="p-light",
            strongest_contradiction_passage="p-light-b",
            numeric_outcome="match",
        ),
        evidence=(light, light_b),
        spans=(span("p-light", "physics", LIGHT_SPAN, LIGHT_TEXT.index(LIGHT_SPAN)),),
        signals=computed_signals((nli("p-light", 0.91, 0.07, 0.02), nli("p-light-b", 0.88, 0.1, 0.02))),
        overall=0.9,
        band="High",
    )
    conflict = EvidenceConflict(
        claim_id="c2",
        passage_a="p-water",
        passage_b="p-ice",
        sentence_a=WATER_SPAN,
        sentence_b="Water never boils at 100 degrees Celsius",
        kind="negation",
        contradiction_prob=0.91,
        severity="high",
    )
    split = claim_report(
        "c2",
        "Water boils at 100 degrees Celsius at sea level.",
        verdict="Low Confidence",
        status=VerificationStatus.LOW_CONFIDENCE,
        reason=RejectionReason.CONFLICTING_VERDICTS,
        rule="conflicting-verdicts",
        inputs=DecisionInputs(
            evidence_count=2,
            nli_status=COMPUTED,
            max_entailment=0.8,
            max_contradiction=0.7,
            entailing_sources=1,
            high_evidence_conflicts=1,
        ),
        evidence=(water, ice),
        spans=(span("p-water", "chemistry", WATER_SPAN, 0),),
        signals=computed_signals((nli("p-water", 0.8, 0.15, 0.05), nli("p-ice", 0.1, 0.2, 0.7))),
        mitigation="flagged",
        conflicts=(conflict,),
        parent=("c-parent", "R3-conjunction"),
    )
    mismatch = NumericSignal(
        status=COMPUTED,
        outcome="mismatch",
        claim_quantities=("3.0e9 m/s",),
        evidence_quantities=("3.0e8 m/s",),
        mismatches=("claim 3.0e9 m/s vs evidence 3.0e8 m/s",),
    )
    contradictory = claim_report(
        "c3",
        "Light travels at 3.0e9 m/s [red]in vacuum[/red].",
        verdict="Contradictory",
        status=VerificationStatus.REJECTED,
        reason=RejectionReason.NUMERIC_MISMATCH,
        rule="numeric-mismatch",
        inputs=DecisionInputs(
            evidence_count=1,
            nli_status=COMPUTED,
            max_entailment=0.2,
            max_contradiction=0.75,
            entailing_sources=0,
            numeric_outcome="mismatch",
        ),
        evidence=(light,),
        spans=(span("p-light", "physics", LIGHT_SPAN, LIGHT_TEXT.index(LIGHT_SPAN)),),
        signals=computed_signals((nli("p-light", 0.2, 0.05, 0.75),), numeric=mismatch),
        mitigation="flagged",
        overall=0.25,
        band="Low",
    )
    unsupported = claim_report(
        "c4",
        "The moon is made of cheese.",
        verdict="Unsupported",
        status=VerificationStatus.REJECTED,
        reason=RejectionReason.NO_EVIDENCE,
        rule="no-evidence",
        inputs=DecisionInputs(evidence_count=0, nli_status=NOT_APPLICABLE, nli_reason="no evidence to judge"),
        signals=ClaimSignals(
            nli=(),
            coverage=CoverageSignal(status=NOT_APPLICABLE, reason="no evidence passages"),
            numeric=NumericSignal(status=NOT_APPLICABLE, reason="the claim states no quantity"),
            citation=CitationSignal(status=NOT_APPLICABLE, reason="the claim cites nothing"),
        ),
        mitigation="suppressed",
        overall=0.0,
        band="Low",
    )
    unverified = claim_report(
        "c5",
        "The ocean covers most of the planet.",
        verdict="Unverified",
        status=VerificationStatus.UNVERIFIED,
        reason=RejectionReason.SIGNAL_UNAVAILABLE,
        rule="nli-unavailable",
        inputs=DecisionInputs(evidence_count=1, nli_status=UNAVAILABLE, nli_reason="NLI backend timed out after 30 s"),
        evidence=(ocean,),
        # Offsets past the passage end: the passage must still show, just without a highlight.
        spans=(span("p-ocean", "geo", "The ocean covers most of the planet", 500),),
        signals=ClaimSignals(
            nli=(
                NLISignal(
                    status=UNAVAILABLE,
                    passage_id="p-ocean",
                    reason="NLI backend timed out after 30 s",
                    model=NLI_NAME,
                ),
            ),
            coverage=CoverageSignal(status=COMPUTED, token_coverage=0.9, jaccard=0.5),
            numeric=NumericSignal(status=NOT_APPLICABLE, reason="the claim states no quantity"),
            citation=CitationSignal(status=NOT_APPLICABLE, reason="the claim cites nothing"),
        ),
        mitigation="flagged",
        overall=None,
        band=None,
    )
    return supported, split, contradictory, unsupported, unverified


def build_report() -> VerificationReport:
    claims = build_claims()
    stats = SummaryStats(
        claims_total=5,
        supported_high=1,
        supported_low=1,
        contradicted=1,
        insufficient=2,
        mean_overall_confidence=0.4125,
        unverified=1,
    )
    return VerificationReport(
        manifest=ReportManifest(
            package_version="9.8.7",
            config={"verification": {"min_entailment_prob": 0.6}, "corpus": {"dir": Path("corpus-dir")}},
            backends=(
                BackendInfo(role="retriever", name="bm25", model_id="bm25s"),
                BackendInfo(role="nli", name=NLI_NAME, model_id=NLI_NAME),
            ),
            evidence_mode="corpus",
            input_sha256=INPUT_SHA,
            evidence_sha256={"p-light": "1" * 64, "p-light-b": "2" * 64, "p-water": "3" * 64},
        ),
        annotated_answer=AnnotatedAnswer(
            answer_id="answer-1",
            query_id=None,
            raw_answer="raw answer",
            claims=tuple(item.decision for item in claims),
            summary_stats=stats,
            mitigation_actions=("suppressed c4", "flagged c2, c3, c5"),
            version="1",
        ),
        claims=claims,
        final_response="Light travels at 3.0e8 m/s in vacuum [1]. Water boils at 100 degrees Celsius [2].",
        citations=CitationFormatterOutput(formatted_text="", citation_map={}, passages=()),
        citeeval=CiteEvalSystemExample(id="answer-1", query="How fast is light?", passages=(), pred=""),
    )


class _VisibleText(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.parts.append(" ")

    def handle_endtag(self, tag):
        self.parts.append(" ")

    def handle_data(self, data):
        self.parts.append(data)


def visible_html_text(page: str) -> str:
    parser = _VisibleText()
    parser.feed(page)
    return " ".join("".join(parser.parts).split())


def render_terminal(report: VerificationReport) -> str:
    out = Console(file=io.StringIO(), width=240, color_system=None, soft_wrap=True)
    print_verification(report, out, details=True)
    return out.file.getvalue()


VIEWS = {
    "markdown": render_markdown,
    "html": lambda report: visible_html_text(render_html(report)),
    "terminal": render_terminal,
}


@pytest.fixture(scope="module")
def report() -> VerificationReport:
    return build_report()


@pytest.fixture(params=sorted(VIEWS), scope="module")
def rendered(request, report) -> str:
    return VIEWS[request.param](report)


def claim_section(text: str, position: int, claim_id: str) -> str:
    """The part of a rendered report about one claim: from its heading to the next claim or the manifest."""
    heading = f"{position}. Claim {claim_id}"
    start = text.index(heading)
    after = start + len(heading)
    following = [index for index in (text.find(". Claim ", after), text.find("Manifest", after)) if index != -1]
    return text[start : min(following)]


def test_the_header_counts_each_verdict_and_gives_mean_confidence_and_actions(rendered):
    for verdict in ("Supported", "Low Confidence", "Contradictory", "Unsupported", "Unverified"):
        assert re.search(rf"{verdict}\W+1\b", rendered), verdict
    assert "claims_total 5, supported_high 1, supported_low 1, contradicted 1, insufficient 2, unverified 1" in rendered
    assert re.search(r"mean overall confidence\W+0\.412\b", rendered, re.IGNORECASE)
    assert "suppressed c4; flagged c2, c3, c5" in rendered


def test_the_header_names_the_nli_and_says_the_lexical_one_is_a_heuristic(rendered):
    assert "NLI backend: lexical-nli.v1 (model lexical-nli.v1; rule-based, no weights)" in rendered
    assert LEXICAL_NOTE in rendered


def test_a_trained_nli_shows_its_checksum_and_no_heuristic_warning(report):
    trained = BackendInfo(role="nli", name="onnx-nli", model_id="cross-encoder/nli-deberta-v3", checksum="c0ffee")
    swapped = report.model_copy(update={"manifest": report.manifest.model_copy(update={"backends": (trained,)})})
    for render in VIEWS.values():
        text = render(swapped)
        assert "onnx-nli (model cross-encoder/nli-deberta-v3; checksum c0ffee)" in text
        assert LEXICAL_NOTE not in text


def test_the_mitigated_answer_is_shown(rendered):
    assert "Water boils at 100 degrees Celsius" in rendered
    assert re.search(r"vacuum \\?\[1\\?\]", rendered)


def test_claims_come_in_answer_order_with_their_verdict_labels(rendered):
    headings = [(1, "c1", "Supported"), (2, "c2", "Low Confidence"), (3, "c3", "Contradictory")]
    headings += [(4, "c4", "Unsupported"), (5, "c5", "Unverified")]
    positions = [rendered.index(f"{position}. Claim {claim_id}") for position, claim_id, _ in headings]
    assert positions == sorted(positions)
    for position, claim_id, verdict in headings:
        section = claim_section(rendered, position, claim_id)
        assert re.search(rf"Verdict\W+{verdict}\b", section), claim_id


def test_a_supported_claim_shows_rule_rationale_confidence_and_the_values_read(rendered):
    section = claim_section(rendered, 1, "c1")
    assert "VERIFIED (reason sufficient_evidence)" in section
    assert re.search(r"Rule\W+sufficient-evidence", section)
    assert "rationale of c1" in section
    assert "band High, overall 0.900" in section
    assert re.search(r"Claim type\W+factual", section)
    for name, value in [("evidence_count", "2"), ("max_entailment", "0.910"), ("entailing_sources", "2")]:
        assert re.search(rf"{name}\W+{re.escape(value)}\b", section), name
    assert re.search(r"numeric_outcome\W+match", section)
    assert re.search(r"p-light-b\W+0\.880\W+0\.100\W+0\.020", section)
    assert re.search(r"missing_terms\W+vacuum", section)


def test_a_split_claim_names_its_parent_and_rule(rendered):
    assert "split from c-parent by R3-conjunction" in claim_section(rendered, 2, "c2")
    assert "split from" not in claim_section(rendered, 1, "c1")


def test_an_evidence_conflict_shows_both_sentences_kind_probability_and_severity(rendered):
    section = claim_section(rendered, 2, "c2")
    assert "Water never boils at 100 degrees Celsius" in section
    assert re.search(r"negation\W+0\.910\W+high", section)
    assert re.search(r"high_evidence_conflicts\W+1\b", section)
    assert re.search(r"Mitigation\W+flagged", section)


def test_a_numeric_mismatch_shows_the_quantities_that_disagree(rendered):
    section = claim_section(rendered, 3, "c3")
    assert "claim 3.0e9 m/s vs evidence 3.0e8 m/s" in section
    assert re.search(r"numeric_outcome\W+mismatch", section)
    assert re.search(r"NUMERIC_MISMATCH|numeric_mismatch", section)


def test_a_suppressed_claim_without_evidence_says_so(rendered):
    section = claim_section(rendered, 4, "c4")
    assert re.search(r"Mitigation\W+suppressed", section)
    assert "No evidence passages." in section
    assert "not_applicable: no evidence passages" in section
    assert re.search(r"Rule\W+no-evidence", section)


def test_unavailable_nli_shows_the_reason_and_no_numbers(rendered):
    section = claim_section(rendered, 5, "c5")
    assert section.count("NLI backend timed out after 30 s") >= 2  # the signal and the values the rule read
    assert "unavailable: NLI backend timed out after 30 s" in section
    assert re.search(r"max_entailment\W+n/a", section)
    assert "overall n/a" in section
    assert "UNVERIFIED (reason signal_unavailable)" in section


def test_no_missing_value_prints_as_none_or_nan(rendered):
    assert "None" not in rendered
    assert not re.search(r"\bnan\b", rendered, re.IGNORECASE)


def test_evidence_shows_primary_passage_first_with_location_and_span(rendered):
    section = claim_section(rendered, 1, "c1")
    assert section.index("Primary evidence: p-light") < section.index("Evidence: p-light-b")
    assert "doc physics, version physics@v2, source textbook-a (textbook), chars 100-" in section
    span_start = LIGHT_TEXT.index(LIGHT_SPAN)
    assert f"chars {span_start}-{span_start + len(LIGHT_SPAN)}" in section
    assert LIGHT_SPAN in section


def test_the_manifest_footer_lists_version_hashes_and_sorted_config(rendered):
    footer = rendered[rendered.rindex("Manifest") :]
    assert re.search(r"package_version\W+9\.8\.7", footer)
    assert re.search(r"evidence_mode\W+corpus", footer)
    assert INPUT_SHA in footer
    assert re.search(r"evidence passages hashed\W+3\b", footer)
    assert footer.index('"corpus"') < footer.index('"verification"')
    assert '"dir": "corpus-dir"' in footer


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_output_is_deterministic(view, report):
    rebuilt = VerificationReport.model_validate(report.model_dump())
    assert VIEWS[view](report) == VIEWS[view](rebuilt)


def test_html_escapes_untrusted_text(report):
    page = render_html(report)
    assert "<script" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_html_is_one_self_contained_phone_sized_page(report):
    page = render_html(report)
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    assert "max-width" in page
    for external in ("http://", "https://", "<link", " src=", "@import"):
        assert external not in page


def test_html_badges_carry_their_text_label(report):
    page = render_html(report)
    for verdict, css in [("Supported", "supported"), ("Low Confidence", "low"), ("Contradictory", "contradictory")]:
        assert f'<span class="badge {css}">{verdict}</span>' in page
    for verdict, css in [("Unsupported", "unsupported"), ("Unverified", "unverified")]:
        assert f'<span class="badge {css}">{verdict}</span>' in page


def test_html_marks_the_evidence_span_inside_the_passage(report):
    page = render_html(report)
    # The claim is Supported and rests on this passage: its span is marked as supporting (green, with a legend).
    marked = f'<mark class="supports" title="supports the claim">{LIGHT_SPAN}</mark>'
    assert f"Light is fast. {marked} It slows down in glass." in page
    assert '<p class="legend" id="legend">' in page


def test_html_shows_a_passage_whole_when_span_offsets_are_out_of_range(report):
    page = render_html(report)
    assert f"<blockquote>{OCEAN_TEXT}</blockquote>" in page


def test_markdown_escapes_markup_and_bolds_the_span(report):
    text = render_markdown(report)
    assert "<script>" not in text
    assert r"\<script\>alert(1)\</script\>" in text
    assert f"> Light is fast. **{LIGHT_SPAN}** It slows down in glass." in text
    assert f"> {OCEAN_TEXT}" in text


def test_markdown_tables_keep_their_columns_when_text_holds_a_pipe(report):
    first = report.claims[0]
    piped = first.model_copy(update={"decision": first.decision.model_copy(update={"rationale": "a | b"})})
    text = render_markdown(report.model_copy(update={"claims": (piped, *report.claims[1:])}))
    assert r"| Rationale | a \| b |" in text


def test_terminal_prints_claim_text_literally_not_as_markup(report):
    text = render_terminal(report)
    assert "Light travels at 3.0e9 m/s [red]in vacuum[/red]." in text


def test_terminal_uses_the_shared_console_by_default(report, monkeypatch):
    shared = Console(file=io.StringIO(), width=240, color_system=None, soft_wrap=True)
    monkeypatch.setattr(terminal, "console", shared)
    print_verification(report, details=True)
    assert "5. Claim c5: Unverified" in shared.file.getvalue()


# --- HTML sections over a report the engine builds --------------------------------------------------------------

BOOK = "Merge sort is stable. <script>alert(1)</script>"
NOTES = "Merge sort is a stable sort."
HEAP = "Heapsort is not stable."
ENGINE_ANSWER = "Merge sort is stable [1][2]. Heapsort is stable [3]. The moon is made of <script>cheese</script> [9]."
ENTAILS = NLIScores(entail=0.9, neutral=0.1, contradict=0.0)
NEUTRAL = NLIScores(entail=0.1, neutral=0.9, contradict=0.0)
CONTRADICTS = NLIScores(entail=0.0, neutral=0.1, contradict=0.9)


@pytest.fixture(scope="module")
def engine_report() -> VerificationReport:
    """Claim 1 Supported by two sources, claim 2 Contradictory (suppressed), claim 3 cites a passage that does not
    exist (flagged)."""
    pack = EvidencePack(
        passages=(
            PackPassage(passage_id="book/sorting#p1", text=BOOK, source_id="knuth"),
            PackPassage(passage_id="notes/sorting#p2", text=NOTES, source_id="lecture"),
            PackPassage(passage_id="notes/heap#p3", text=HEAP, source_id="lecture"),
        )
    )
    table = {
        (BOOK, "Merge sort is stable."): ENTAILS,
        (NOTES, "Merge sort is stable."): ENTAILS,
        (HEAP, "Heapsort is stable."): CONTRADICTS,
    }
    config = Config()
    source = PackEvidence(pack, config.retrieval)
    return verify_text(ENGINE_ANSWER, config=config, source=source, nli=FakeNLIModel(table, NEUTRAL))


def html_section(page: str, section_id: str) -> str:
    """The HTML of one top-level section that holds no nested <section>."""
    start = page.index(f'<section id="{section_id}"')
    return page[start : page.index("</section>", start)]


def test_the_engine_report_has_the_verdicts_these_tests_rely_on(engine_report):
    verdicts = [(item.decision.status, item.mitigation) for item in engine_report.claims]
    assert verdicts == [("Supported", "kept"), ("Contradictory", "suppressed"), ("Unsupported", "flagged")]


def test_the_summary_bar_counts_verdicts_and_says_how_many_claims_were_suppressed(engine_report, report):
    page = render_html(engine_report)
    bar = page[page.index('<div class="summary"') : page.index("</div>", page.index('<div class="summary"'))]
    for verdict, css, count in [("Supported", "supported", 1), ("Contradictory", "contradictory", 1)]:
        assert f'<span class="badge {css}">{verdict}</span> {count}</li>' in bar
    assert '<span class="badge unverified">Unverified</span> 0</li>' in bar
    assert "Mean overall confidence" in bar
    assert "1 of 3 claims suppressed (replaced by a warning in the answer after mitigation); 1 flagged; 1 kept" in bar
    assert "1 of 5 claims suppressed (replaced by a warning in the answer after mitigation); 3 flagged; 1 kept" in (
        render_html(report)
    )


def test_the_mitigated_answer_shows_each_warning_visibly(engine_report):
    page = render_html(engine_report)
    block = page[page.index('<blockquote class="answer">') : page.index("</blockquote>", page.index('class="answer"'))]
    removed = "[Warning: a claim was removed because it contradicts the source (notes/heap#p3)]"
    assert f'<strong class="warning">{removed}</strong>' in block
    assert '<strong class="warning">[Unsupported: it cites a passage that does not exist]</strong>' in block
    assert "Heapsort is stable" not in block
    hostile = engine_report.model_copy(
        update={"final_response": "A. [Unverified: this could not be checked] [Warning: x (<b>)]"}
    )
    assert '<strong class="warning">[Warning: x (&lt;b&gt;)]</strong>' in render_html(hostile)


def test_the_trace_has_one_row_per_claim_with_citations_and_primary_evidence(engine_report):
    page = render_html(engine_report)
    trace = html_section(page, "trace")
    ids = [item.claim.claim_id for item in engine_report.claims]
    assert re.findall(r'<tr><td><a href="#claim-([^"]+)">', trace) == ids
    assert all(f'<section class="claim" id="claim-{claim_id}"' in page for claim_id in ids)  # links land
    rows = re.findall(r"<tr><td><a.*?</tr>", trace)
    assert '<span class="badge supported">Supported</span>' in rows[0]
    assert "1 → book/sorting#p1 (resolved)" in rows[0] and "2 → notes/sorting#p2 (resolved)" in rows[0]
    assert "9 → 9 (dangling: no such passage)" in rows[2]
    primary = engine_report.claims[1].evidence[0]
    assert primary.passage_id == "notes/heap#p3"
    assert f"notes/heap#p3<br>doc {primary.doc_id}, version {primary.version}" in rows[1]
    assert f"chars {primary.char_start}-{primary.char_end}" in rows[1]
    heap_span = engine_report.claims[1].pair.evidence_spans[0]
    assert f"chars {heap_span.char_start}-{heap_span.char_end} of the passage: {HEAP}" in rows[1]


def test_the_inspector_lists_exactly_the_claims_that_are_not_supported(engine_report):
    inspector = html_section(render_html(engine_report), "inspector")
    failed = [item for item in engine_report.claims if item.decision.status != "Supported"]
    assert re.findall(r'<li class="failed" data-verdict="[^"]+"><a href="#claim-([^"]+)">', inspector) == [
        item.claim.claim_id for item in failed
    ]
    for item in failed:
        assert f"<dt>Rule fired</dt><dd>{item.decision.rule}</dd>" in inspector
        assert escape_html(item.decision.rationale) in inspector
    assert "<dd>suppressed: replaced by a warning in the answer after mitigation</dd>" in inspector
    assert "<dd>flagged: kept with a visible warning in the answer after mitigation</dd>" in inspector


def test_the_inspector_says_so_when_every_claim_is_supported(report):
    supported_only = report.model_copy(update={"claims": report.claims[:1]})
    assert "No claim was rejected or flagged." in html_section(render_html(supported_only), "inspector")
    assert "No claim was rejected or flagged." not in render_html(report)


def test_each_claim_keeps_its_verdict_and_puts_signals_and_evidence_in_a_details_element(report):
    page = render_html(report)
    for position, item in enumerate(report.claims, start=1):
        verdict = item.decision.status
        opening = f'<section class="claim" id="claim-{item.claim.claim_id}" data-verdict="{verdict}">'
        start = page.index(opening)
        claim = page[start : page.index("</section>", start)]
        details = claim[claim.index('<details class="signals">') : claim.index("</details>")]
        assert f"<summary>Signals and evidence for claim {position}</summary>" in details
        for column in ("entailment", "contradiction", "coverage", "numeric", "entailing sources", "rule fired"):
            assert f"<th>{column}</th>" in details
        assert f"<td>{item.decision.rule}</td><td>{item.decision.reason.value}</td>" in details
    light = page[page.index('id="claim-c1"') :]
    assert light.index("<mark class=") < light.index("</details>")


def test_the_body_is_the_page_main_without_head_or_style(engine_report):
    body = render_verification_body(engine_report)
    assert "<html" not in body and "<head" not in body and "<style" not in body
    page = render_html(engine_report)
    assert f"<main>\n{body}\n</main>" in page and f"<style>{REPORT_STYLE}</style>" in page


def test_engine_report_html_escapes_hostile_claims_and_passages_and_is_deterministic(engine_report):
    page = render_html(engine_report)
    assert "<script" not in page
    assert "The moon is made of &lt;script&gt;cheese&lt;/script&gt;." in page
    assert "Merge sort is stable. &lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert page == render_html(VerificationReport.model_validate(engine_report.model_dump()))


@pytest.mark.parametrize(
    ("labels", "resolved", "expected"),
    [
        (("1", "[1]"), ("p-light",), [("1", "p-light"), ("[1]", "p-light")]),
        (("p-light", "2"), ("p-light", "p-light-b"), [("p-light", "p-light"), ("2", "p-light-b")]),
        # Two labels, one passage: the number's passage is not recorded, so it is not guessed.
        (("p-light", "1"), ("p-light",), [("p-light", "p-light"), ("1", None)]),
    ],
)
def test_citation_targets_map_each_label_to_its_passage_only_when_the_report_says_which(
    report, labels, resolved, expected
):
    item = report.claims[0]
    cited = CitationSignal(status=COMPUTED, cited_ids=resolved)
    item = item.model_copy(
        update={
            "claim": item.claim.model_copy(update={"cited_ids": labels}),
            "signals": item.signals.model_copy(update={"citation": cited}),
        }
    )
    assert [(target.label, target.passage_id) for target in citation_targets(item)] == expected


def test_every_view_of_the_mitigated_answer_ends_with_its_references(engine_report):
    from veriground.reports.markdown import render_markdown
    from veriground.reports.report_facts import reference_lines

    lines = reference_lines(engine_report)
    cited = [passage.passage_id for passage in engine_report.citations.passages]
    assert len(lines) == len(cited) >= 1
    for number, (line, passage_id) in enumerate(zip(lines, cited, strict=True), start=1):
        assert line.startswith(f"[{number}] ") and passage_id in line
    page, markdown = render_html(engine_report), render_markdown(engine_report)
    assert '<ol class="references">' in page and "### References" in markdown
    for passage_id in cited:
        assert passage_id in page[page.index('<ol class="references">') :]


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_every_view_lists_the_sentences_that_were_not_checked_and_why(view):
    from veriground.backends.lexical_nli import LexicalNLIModel
    from veriground.config import load_config
    from veriground.schema import EvidencePack, PackPassage

    config = load_config(None, {"models.nli": "lexical"}, environ={})
    pack = EvidencePack(passages=(PackPassage(passage_id="p1", text="Work is force times distance."),))
    text = "Isn't work a vector? Yes it does. Work is force times distance."
    report = verify_text(text, config=config, source=PackEvidence(pack, config.retrieval), nli=LexicalNLIModel())
    assert [(item.text, item.reason) for item in report.unchecked] == [
        ("Isn't work a vector?", "question"),
        ("Yes it does.", "to-the-reader"),
    ]
    assert all(text[item.char_start : item.char_end] == item.text for item in report.unchecked)
    shown = VIEWS[view](report)
    assert "Not checked" in shown and "Isn't work a vector?" in shown and "a question" in shown
    assert "Yes it does." in shown and "only replies" in shown


def test_a_text_whose_every_sentence_makes_a_claim_lists_nothing_unchecked(report):
    assert report.unchecked == ()
    assert all("Not checked" not in view(report) for view in VIEWS.values())
