"""HTML view of a verification: VerificationReport -> the page body (summary, trace, failed-claim inspector,
claims, manifest) for a server page to embed, or one self-contained page (inline CSS, no scripts).

Every piece of report text goes through `html.escape`: claims, passages and the answer are untrusted.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html import escape

from veriground.reports.evidence_facts import (
    EvidenceView,
    citation_targets,
    evidence_views,
    highlight_segments,
    missing_primary,
    passage_location,
    span_offsets,
)
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
    UNCHECKED_TITLE,
    actions_text,
    answer_warning_segments,
    claim_fact_rows,
    claim_origin,
    conflict_cells,
    decision_input_rows,
    format_number,
    llm_judgement_rows,
    mean_confidence_text,
    mitigation_summary_text,
    named_signals,
    nli_backend_lines,
    nli_signal_cells,
    raw_signal_cells,
    reference_lines,
    signal_rows,
    summary_stats_text,
    unchecked_rows,
    verdict_counts,
)
from veriground.schema import ClaimReport, DisplayVerdict, VerificationReport

__all__ = ["REPORT_STYLE", "passage_link", "render_html", "render_verification_body"]

TRACE_COLUMNS = ("claim", "claim text", "verdict", "citations → passage", "primary evidence", "evidence span")
# Where a passage id links: the server's passage view on the page; None in the offline export, whose reference list
# carries each cited passage's text itself.
PassageHref = Callable[[str], str] | None
_MARKER = re.compile(r"\[(\d+)\]")
SPAN_ROLE_TITLE = {"supports": "supports the claim", "contradicts": "contradicts the claim"}
_LEGEND = (
    '<p class="legend" id="legend"><span>Highlighted evidence:</span>'
    '<mark class="supports">supports the claim</mark><mark class="contradicts">contradicts the claim</mark>'
    "<mark>read, neither supports nor contradicts</mark></p>"
)
_NAV = (
    '<nav class="toc" aria-label="Sections"><a href="#trace">Trace</a><a href="#inspector">Failed-claim inspector</a>'
    '<a href="#claims">Claims</a><a href="#manifest">Manifest</a></nav>'
)


def render_html(report: VerificationReport) -> str:
    """The whole report as one HTML page that needs no network, no scripts and no other file."""
    return render_page("Verification report", render_verification_body(report))


def render_verification_body(report: VerificationReport, passage_href: PassageHref = None) -> str:
    """The contents of the page's <main>, without <html>/<head>; style it with REPORT_STYLE. `passage_href` turns
    passage ids (references [i], evidence headings) into links to a passage view."""
    claims = "\n".join(_claim(position, item, passage_href) for position, item in enumerate(report.claims, start=1))
    return "\n".join(
        [
            _header(report, passage_href),
            _trace(report, passage_href),
            _inspector(report),
            f'<section id="claims"><h2>Claims</h2>{_LEGEND}',
            claims or "<p>No claims were extracted from the answer.</p>",
            "</section>",
            _unchecked(report),
            _graph(report),
            render_manifest(report.manifest),
        ]
    )


def _unchecked(report: VerificationReport) -> str:
    """The sentences of the text that made no claim, and why (none: nothing)."""
    rows = unchecked_rows(report)
    if not rows:
        return ""
    items = "".join(f"<li>“{escape(sentence)}”: {escape(why)}</li>" for sentence, why in rows)
    return f'<section id="unchecked"><h2>{UNCHECKED_TITLE}</h2><ul>{items}</ul></section>'


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


def passage_link(passage_id: str, href: str | None, css_class: str | None = None) -> str:
    """The passage id, escaped, as a link to `href` (with `css_class`), or as plain text when there is no href."""
    if href is None:
        return escape(passage_id)
    css = f' class="{css_class}"' if css_class else ""
    return f'<a{css} href="{escape(href)}">{escape(passage_id)}</a>'


def _passage_ref(passage_id: str, passage_href: PassageHref) -> str:
    return passage_link(passage_id, None if passage_href is None else passage_href(passage_id), "passage-link")


def _header(report: VerificationReport, passage_href: PassageHref) -> str:
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
            ("Domain profile", _domain_text(report)),
        ]
    )
    answer = "".join(
        f'<strong class="warning">{escape(piece)}</strong>'
        if is_warning
        else _linked_markers(piece, report, passage_href)
        for piece, is_warning in answer_warning_segments(report.final_response)
    )
    return (
        f"<h1>Verification report</h1>{summary}{_NAV}{facts}{nli}"
        f'<h2 id="answer">Answer after mitigation</h2><blockquote class="answer">{answer}</blockquote>'
        + _references(report, passage_href)
    )


def _domain_text(report: VerificationReport) -> str:
    """The profile the report was verified under, from the resolved config its manifest records."""
    from veriground.domains.profiles import DEFAULT_DOMAIN, PROFILES

    config = report.manifest.config if report.manifest is not None else {}
    verification = config.get("verification")
    name = str(verification.get("domain", DEFAULT_DOMAIN)) if isinstance(verification, dict) else DEFAULT_DOMAIN
    profile = PROFILES.get(name)
    return f"{profile.display_name} ({name})" if profile is not None else name


def _linked_markers(text: str, report: VerificationReport, passage_href: PassageHref) -> str:
    """Answer text with each reference marker [i] linked: to its passage's view, else to its reference item."""
    passages = report.citations.passages
    parts, cursor = [], 0
    for marker in _MARKER.finditer(text):
        number = int(marker.group(1))
        if not 1 <= number <= len(passages):
            continue  # the text's own brackets, not a reference
        passage_id = passages[number - 1].passage_id
        href = passage_href(passage_id) if passage_href is not None and passage_id else f"#ref-{number}"
        parts += [escape(text[cursor : marker.start()]), f'<a class="citation" href="{escape(href)}">[{number}]</a>']
        cursor = marker.end()
    return "".join(parts) + escape(text[cursor:])


def _references(report: VerificationReport, passage_href: PassageHref) -> str:
    items = []
    lines = reference_lines(report)  # one line per cited passage, in the same order
    for number, (line, passage) in enumerate(zip(lines, report.citations.passages, strict=True), start=1):
        target = passage_href(passage.passage_id) if passage_href is not None and passage.passage_id else None
        shown = f'<a class="passage-link" href="{escape(target)}">{escape(line)}</a>' if target else escape(line)
        items.append(f'<li id="ref-{number}">{shown}<blockquote>{escape(passage.text)}</blockquote></li>')
    return f'<h3 id="references">References</h3><ol class="references">{"".join(items)}</ol>' if items else ""


def _trace(report: VerificationReport, passage_href: PassageHref) -> str:
    rows = [
        [
            f"<td>{_link(item.claim.claim_id)}</td>",
            f"<td>{escape(item.claim.text)}</td>",
            f"<td>{verdict_badge(item.decision.status)}</td>",
            f"<td>{_citations_cell(item)}</td>",
            f"<td>{_primary_cell(item, passage_href)}</td>",
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


def _primary_cell(item: ClaimReport, passage_href: PassageHref) -> str:
    primary = item.decision.primary_evidence
    if primary is None:
        return "no primary evidence"
    if missing_primary(item):
        return f"{escape(primary)} (not among the retrieved passages)"
    chunk = next(chunk for chunk in item.evidence if chunk.passage_id == primary)
    return f"{_passage_ref(primary, passage_href)}<br>{escape(passage_location(chunk))}"


def _spans_cell(item: ClaimReport) -> str:
    views, _ = evidence_views(item)
    spans = [span for view in views if view.is_primary for span in view.spans]
    if not spans:
        return "no evidence span in the primary passage"
    return "<br>".join(f"{escape(span_offsets(span))} of the passage: {escape(span.text)}" for span in spans)


def _inspector(report: VerificationReport) -> str:
    failed = [item for item in report.claims if item.decision.status != DisplayVerdict.SUPPORTED]
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


def _claim(position: int, item: ClaimReport, passage_href: PassageHref) -> str:
    claim, decision = item.claim, item.decision
    origin = claim_origin(claim)
    why = decision.explanation or decision.rationale
    parts = [
        f'<section class="claim" id="claim-{escape(claim.claim_id)}" data-verdict="{escape(decision.status)}">',
        f"<h3>{position}. Claim {escape(claim.claim_id)} {verdict_badge(decision.status)}</h3>",
        f'<p class="note">{escape(origin)}</p>' if origin else "",
        f"<blockquote>{escape(claim.text)}</blockquote>",
        f'<p class="explanation"><strong>Why:</strong> {escape(why)}</p>',
        render_definitions(claim_fact_rows(item)),
        f'<details class="signals"><summary>Signals and evidence for claim {position}</summary>',
        render_table(RAW_SIGNAL_COLUMNS, [text_cells(raw_signal_cells(item))], "raw-signals"),
        "<h4>Values the rule read</h4>",
        render_definitions(decision_input_rows(item.inputs)),
        _signals(item),
        _evidence(item, passage_href),
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


def span_role(item: ClaimReport, view: EvidenceView) -> str:
    """The role of a passage's spans: "supports" or "contradicts" when the verdict rests on it so, else ""."""
    status, inputs = item.decision.status, item.inputs
    passage_id = view.chunk.passage_id
    if status == DisplayVerdict.CONTRADICTORY and (
        view.is_primary or passage_id == inputs.strongest_contradiction_passage
    ):
        return "contradicts"
    if status in (DisplayVerdict.SUPPORTED, DisplayVerdict.LOW_CONFIDENCE) and (
        view.is_primary or passage_id in inputs.supporting_passages
    ):
        return "supports"
    return ""


def _mark(piece: str, role: str) -> str:
    if not role:
        return f"<mark>{escape(piece)}</mark>"
    return f'<mark class="{role}" title="{SPAN_ROLE_TITLE[role]}">{escape(piece)}</mark>'


def _passage(view: EvidenceView, role: str, passage_href: PassageHref) -> str:
    heading = "Primary evidence" if view.is_primary else "Evidence"
    text = "".join(
        _mark(piece, role) if is_span else escape(piece)
        for piece, is_span in highlight_segments(view.chunk.text, view.spans)
    )
    spans = "".join(f"<li>Evidence span ({span_offsets(span)}): {escape(span.text)}</li>" for span in view.spans)
    return (
        f"<h5>{heading}: {_passage_ref(view.chunk.passage_id, passage_href)}</h5>"
        f"<p>{escape(passage_location(view.chunk))}</p>"
        f"<blockquote>{text}</blockquote>" + (f"<ul>{spans}</ul>" if spans else "")
    )


def _evidence(item: ClaimReport, passage_href: PassageHref) -> str:
    views, loose = evidence_views(item)
    parts = ["<h4>Evidence</h4>"]
    absent = missing_primary(item)
    if absent:
        parts.append(f"<p>Primary evidence {escape(absent)} is not among the retrieved passages.</p>")
    if not views:
        parts.append("<p>No evidence passages.</p>")
    parts += [_passage(view, span_role(item, view), passage_href) for view in views]
    if loose:
        items = "".join(
            f"<li>{escape(span.passage_id or span.doc_id)} ({span_offsets(span)}): {escape(span.text)}</li>"
            for span in loose
        )
        parts.append(f"<p>Evidence spans outside these passages:</p><ul>{items}</ul>")
    return "".join(parts)
