"""HTML view of a verification: VerificationReport -> the page body (summary, trace, failed-claim inspector,
claims, manifest) for a server page to embed, or one self-contained page (inline CSS, no scripts).

Every piece of report text goes through `html.escape`: claims, passages and the answer are untrusted.
"""

from __future__ import annotations

from html import escape

from veriground.reports.html_parts import (
    REPORT_STYLE,
    render_definitions,
    render_manifest,
    render_page,
    render_table,
    text_cells,
    verdict_badge,
)
from veriground.reports.report_facts import (
    CONFLICT_COLUMNS,
    LLM_JUDGEMENT_COLUMNS,
    MITIGATION_TEXT,
    NLI_COLUMNS,
    RAW_SIGNAL_COLUMNS,
    EvidenceView,
    actions_text,
    answer_warning_segments,
    citation_targets,
    claim_fact_rows,
    claim_origin,
    conflict_cells,
    decision_input_rows,
    evidence_views,
    format_number,
    highlight_segments,
    llm_judgement_rows,
    mean_confidence_text,
    missing_primary,
    mitigation_summary_text,
    named_signals,
    nli_backend_lines,
    nli_signal_cells,
    passage_location,
    raw_signal_cells,
    reference_lines,
    signal_rows,
    span_offsets,
    summary_stats_text,
    verdict_counts,
)
from veriground.schema import ClaimReport, VerificationReport

__all__ = ["REPORT_STYLE", "render_html", "render_verification_body"]

TRACE_COLUMNS = ("claim", "verdict", "citations → passage", "primary evidence", "evidence span")
_NAV = (
    '<nav class="toc" aria-label="Sections"><a href="#trace">Trace</a><a href="#inspector">Failed-claim inspector</a>'
    '<a href="#claims">Claims</a><a href="#manifest">Manifest</a></nav>'
)


def render_html(report: VerificationReport) -> str:
    """The whole report as one HTML page that needs no network, no scripts and no other file."""
    return render_page("Verification report", render_verification_body(report))


def render_verification_body(report: VerificationReport) -> str:
    """The contents of the page's <main>, without <html>/<head>; style it with REPORT_STYLE."""
    claims = "\n".join(_claim(position, item) for position, item in enumerate(report.claims, start=1))
    return "\n".join(
        [
            _header(report),
            _trace(report),
            _inspector(report),
            '<section id="claims"><h2>Claims</h2>',
            claims or "<p>No claims were extracted from the answer.</p>",
            "</section>",
            _graph(report),
            render_manifest(report.manifest),
        ]
    )


def _graph(report: VerificationReport) -> str:
    """The claim–evidence graph (support, contradiction and dependency edges) as a static SVG, and its metrics."""
    from veriground.reports.claim_graph import build_claim_graph, graph_metrics, render_graph_svg

    if not report.claims:
        return ""
    warnings = [warning for item in report.claims for warning in item.dependency_warnings]
    graph = build_claim_graph(report, warnings)
    metrics = graph_metrics(graph)
    shown = render_definitions(
        [(name.replace("_", " "), format_number(value) if isinstance(value, float | None) else str(value))
         for name, value in sorted(metrics.items()) if not isinstance(value, dict)]
    )  # fmt: skip
    svg = render_graph_svg(graph).replace(' xmlns="http://www.w3.org/2000/svg"', "")  # inline SVG needs none
    return f'<section id="graph"><h2>Claim–evidence graph</h2>{svg}{shown}</section>'


def _link(claim_id: str) -> str:
    return f'<a href="#claim-{escape(claim_id)}">{escape(claim_id)}</a>'


def _header(report: VerificationReport) -> str:
    counts = "".join(f"<li>{verdict_badge(verdict)} {count}</li>" for verdict, count in verdict_counts(report))
    summary = (
        f'<div class="summary" id="summary"><ul aria-label="Claims per verdict">{counts}</ul>'
        f"<p>Mean overall confidence {escape(mean_confidence_text(report))}</p>"
        f'<p class="suppressed">{escape(mitigation_summary_text(report))}</p></div>'
    )
    nli = "".join(f"<p>{escape(line)}</p>" for line in nli_backend_lines(report.manifest))
    facts = render_definitions(
        [
            ("Claims", str(len(report.claims))),
            ("Summary stats", summary_stats_text(report)),
            ("Mitigation actions", actions_text(report)),
        ]
    )
    answer = "".join(
        f'<strong class="warning">{escape(piece)}</strong>' if is_warning else escape(piece)
        for piece, is_warning in answer_warning_segments(report.final_response)
    )
    return (
        f"<h1>Verification report</h1>{summary}{_NAV}{facts}{nli}"
        f'<h2 id="answer">Answer after mitigation</h2><blockquote class="answer">{answer}</blockquote>'
        + _references(report)
    )


def _references(report: VerificationReport) -> str:
    items = "".join(f"<li>{escape(line)}</li>" for line in reference_lines(report))
    return f'<h3 id="references">References</h3><ol class="references">{items}</ol>' if items else ""


def _trace(report: VerificationReport) -> str:
    rows = [
        [
            f"<td>{_link(item.claim.claim_id)}</td>",
            f"<td>{verdict_badge(item.decision.status)}</td>",
            f"<td>{_citations_cell(item)}</td>",
            f"<td>{_primary_cell(item)}</td>",
            f"<td>{_spans_cell(item)}</td>",
        ]
        for item in report.claims
    ]
    table = render_table(TRACE_COLUMNS, rows, "trace") if rows else "<p>No claims were extracted.</p>"
    return (
        '<section id="trace"><h2>Trace</h2><p>Each claim, the citations it carried and the passage each resolved '
        f"to, and the primary evidence with its location and the offsets of the evidence span.</p>{table}</section>"
    )


def _citations_cell(item: ClaimReport) -> str:
    targets = citation_targets(item)
    if not targets:
        return "no citations"
    located = {chunk.passage_id: chunk for chunk in item.evidence}
    lines = []
    for target in targets:
        line = f"{escape(target.label)} → {escape(target.passage_id or 'unknown passage')} ({escape(target.outcome)})"
        chunk = located.get(target.passage_id or "")
        if chunk is not None:
            line += f"<br>{escape(passage_location(chunk))}"
        lines.append(line)
    return "<br>".join(lines)


def _primary_cell(item: ClaimReport) -> str:
    primary = item.decision.primary_evidence
    if primary is None:
        return "no primary evidence"
    if missing_primary(item):
        return f"{escape(primary)} (not among the retrieved passages)"
    chunk = next(chunk for chunk in item.evidence if chunk.passage_id == primary)
    return f"{escape(primary)}<br>{escape(passage_location(chunk))}"


def _spans_cell(item: ClaimReport) -> str:
    views, _ = evidence_views(item)
    spans = [span for view in views if view.is_primary for span in view.spans]
    if not spans:
        return "no evidence span in the primary passage"
    return "<br>".join(f"{escape(span_offsets(span))} of the passage: {escape(span.text)}" for span in spans)


def _inspector(report: VerificationReport) -> str:
    failed = [item for item in report.claims if item.decision.status != "Supported"]
    if not failed:
        body = "<p>No claim was rejected or flagged.</p>"
    else:
        body = '<ul class="inspector">' + "".join(_failed(item) for item in failed) + "</ul>"
    return f'<section id="inspector"><h2>Failed-claim inspector</h2>{body}</section>'


def _failed(item: ClaimReport) -> str:
    decision = item.decision
    facts = render_definitions(
        [
            ("Why", decision.explanation or decision.rationale),
            ("Rule fired", decision.rule),
            ("Reason", f"{decision.verification_status.value} ({decision.reason.value}): {decision.rationale}"),
            ("Mitigation", f"{item.mitigation}: {MITIGATION_TEXT[item.mitigation]}"),
        ]
    )
    return (
        f'<li class="failed" data-verdict="{escape(decision.status)}">{_link(item.claim.claim_id)} '
        f"{verdict_badge(decision.status)}<blockquote>{escape(item.claim.text)}</blockquote>{facts}</li>"
    )


def _claim(position: int, item: ClaimReport) -> str:
    claim, decision = item.claim, item.decision
    origin = claim_origin(claim)
    parts = [
        f'<section class="claim" id="claim-{escape(claim.claim_id)}" data-verdict="{escape(decision.status)}">',
        f"<h3>{position}. Claim {escape(claim.claim_id)} {verdict_badge(decision.status)}</h3>",
        f'<p class="note">{escape(origin)}</p>' if origin else "",
        f"<blockquote>{escape(claim.text)}</blockquote>",
        render_definitions(claim_fact_rows(item)),
        f'<details class="signals"><summary>Signals and evidence for claim {position}</summary>',
        render_table(RAW_SIGNAL_COLUMNS, [text_cells(raw_signal_cells(item))], "raw-signals"),
        "<h4>Values the rule read</h4>",
        render_definitions(decision_input_rows(item.inputs)),
        _signals(item),
        _evidence(item),
        "</details>",
    ]
    if item.conflicts:
        rows = [text_cells(conflict_cells(conflict)) for conflict in item.conflicts]
        parts.append(f"<h4>Evidence conflicts</h4>{render_table(CONFLICT_COLUMNS, rows)}")
    judged = [text_cells(cells) for cells in llm_judgement_rows(item)]
    if judged:
        parts.append(f"<h4>LLM judge (tier 2)</h4>{render_table(LLM_JUDGEMENT_COLUMNS, judged)}")
    parts.append("</section>")
    return "".join(parts)


def _signals(item: ClaimReport) -> str:
    rows = []
    for passage, values, model in (nli_signal_cells(signal) for signal in item.signals.nli):
        if isinstance(values, tuple):
            rows.append(text_cells([passage, *values, model]))
        else:
            rows.append([*text_cells([passage]), f'<td colspan="3">{escape(values)}</td>', *text_cells([model])])
    nli = render_table(NLI_COLUMNS, rows) if rows else "<p>No NLI signal: the claim had no evidence.</p>"
    parts = [f"<h4>NLI per passage</h4>{nli}"]
    parts += [f"<h4>{name}</h4>{render_definitions(signal_rows(signal))}" for name, signal in named_signals(item)]
    return "".join(parts)


def _passage(view: EvidenceView) -> str:
    role = "Primary evidence" if view.is_primary else "Evidence"
    text = "".join(
        f"<mark>{escape(piece)}</mark>" if is_span else escape(piece)
        for piece, is_span in highlight_segments(view.chunk.text, view.spans)
    )
    spans = "".join(f"<li>Evidence span ({span_offsets(span)}): {escape(span.text)}</li>" for span in view.spans)
    return (
        f"<h5>{role}: {escape(view.chunk.passage_id)}</h5><p>{escape(passage_location(view.chunk))}</p>"
        f"<blockquote>{text}</blockquote>" + (f"<ul>{spans}</ul>" if spans else "")
    )


def _evidence(item: ClaimReport) -> str:
    views, loose = evidence_views(item)
    parts = ["<h4>Evidence</h4>"]
    absent = missing_primary(item)
    if absent:
        parts.append(f"<p>Primary evidence {escape(absent)} is not among the retrieved passages.</p>")
    if not views:
        parts.append("<p>No evidence passages.</p>")
    parts += [_passage(view) for view in views]
    if loose:
        items = "".join(
            f"<li>{escape(span.passage_id or span.doc_id)} ({span_offsets(span)}): {escape(span.text)}</li>"
            for span in loose
        )
        parts.append(f"<p>Evidence spans outside these passages:</p><ul>{items}</ul>")
    return "".join(parts)
