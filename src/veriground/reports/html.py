"""HTML view of a verification: VerificationReport -> one self-contained HTML page (inline CSS, no scripts).

Every piece of report text goes through `html.escape`: claims, passages and the answer are untrusted.
"""

from __future__ import annotations

from html import escape

from veriground.reports.report_facts import (
    CONFLICT_COLUMNS,
    LLM_JUDGEMENT_COLUMNS,
    NLI_COLUMNS,
    EvidenceView,
    actions_text,
    claim_fact_rows,
    claim_origin,
    config_json,
    conflict_cells,
    decision_input_rows,
    evidence_views,
    highlight_segments,
    llm_judgement_rows,
    manifest_rows,
    mean_confidence_text,
    missing_primary,
    named_signals,
    nli_backend_lines,
    nli_signal_cells,
    passage_location,
    signal_rows,
    span_offsets,
    summary_stats_text,
    verdict_counts,
)
from veriground.schema import ClaimReport, VerificationReport

# Badge colours follow the usual traffic-light reading; the label text carries the meaning on its own.
_VERDICT_CLASS = {
    "Supported": "supported",
    "Low Confidence": "low",
    "Contradictory": "contradictory",
    "Unsupported": "unsupported",
    "Unverified": "unverified",
}

_STYLE = """
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1b1b1b; background: #fff; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.3rem; margin-top: 2rem; } h3 { font-size: 1.1rem; }
section.claim { border-top: 2px solid #ccc; margin-top: 1.5rem; padding-top: 0.5rem; }
.badge { display: inline-block; padding: 0.1rem 0.5rem; border-radius: 0.3rem; font-weight: 600;
  border: 1px solid currentColor; white-space: nowrap; }
.supported { color: #0b5d1e; background: #e3f4e6; }
.low { color: #6b4a00; background: #fff3d1; }
.contradictory { color: #8a1020; background: #fde3e6; }
.unsupported { color: #5a2d82; background: #efe6f8; }
.unverified { color: #3a3a3a; background: #ececec; }
blockquote { margin: 0.5rem 0; padding: 0.25rem 0.75rem; border-left: 4px solid #999; background: #f7f7f7; }
.answer { white-space: pre-wrap; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 0.5rem 0; }
th, td { border: 1px solid #ccc; padding: 0.2rem 0.5rem; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
td, dd, p, li, blockquote { overflow-wrap: anywhere; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.2rem 1rem; }
dt { font-weight: 600; } dd { margin: 0; }
@media (max-width: 36rem) { dl { grid-template-columns: 1fr; } dd { margin-left: 1rem; } }
mark { background: #ffe98a; padding: 0 0.1rem; }
.note { font-style: italic; }
pre { overflow-x: auto; background: #f7f7f7; padding: 0.5rem; }
details { margin: 0.5rem 0; } summary { cursor: pointer; font-weight: 600; }
"""


def _badge(verdict: str) -> str:
    return f'<span class="badge {_VERDICT_CLASS.get(verdict, "unverified")}">{escape(verdict)}</span>'


def _definitions(rows: list[tuple[str, str]]) -> str:
    items = "".join(f"<dt>{escape(label)}</dt><dd>{escape(value)}</dd>" for label, value in rows)
    return f"<dl>{items}</dl>"


def _table(header: tuple[str, ...], rows: list[list[str]]) -> str:
    """Rows hold already-escaped cell HTML, so a cell may carry a colspan."""
    head = "".join(f"<th>{escape(name)}</th>" for name in header)
    body = "".join(f"<tr>{''.join(cells)}</tr>" for cells in rows)
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def _cells(values: tuple[str, ...] | list[str]) -> list[str]:
    return [f"<td>{escape(value)}</td>" for value in values]


def _header(report: VerificationReport) -> str:
    counts = "".join(f"<li>{_badge(verdict)} {count}</li>" for verdict, count in verdict_counts(report))
    nli = "".join(f"<p>{escape(line)}</p>" for line in nli_backend_lines(report.manifest))
    facts = _definitions(
        [
            ("Claims", str(len(report.claims))),
            ("Summary stats", summary_stats_text(report)),
            ("Mean overall confidence", mean_confidence_text(report)),
            ("Mitigation actions", actions_text(report)),
        ]
    )
    return (
        f"<h1>Verification report</h1><ul>{counts}</ul>{facts}{nli}"
        f'<h2>Answer after mitigation</h2><blockquote class="answer">{escape(report.final_response)}</blockquote>'
    )


def _claim(position: int, item: ClaimReport) -> str:
    claim, decision = item.claim, item.decision
    origin = claim_origin(claim)
    parts = [
        f'<section class="claim" id="claim-{escape(claim.claim_id)}">',
        f"<h3>{position}. Claim {escape(claim.claim_id)} {_badge(decision.status)}</h3>",
        f'<p class="note">{escape(origin)}</p>' if origin else "",
        f"<blockquote>{escape(claim.text)}</blockquote>",
        _definitions(claim_fact_rows(item)),
        "<details open><summary>Values the rule read</summary>",
        _definitions(decision_input_rows(item.inputs)),
        "</details>",
        f"<details><summary>Signals</summary>{_signals(item)}</details>",
        _evidence(item),
    ]
    if item.conflicts:
        rows = [_cells(cells) for cells in (conflict_cells(conflict) for conflict in item.conflicts)]
        parts.append(f"<h4>Evidence conflicts</h4>{_table(CONFLICT_COLUMNS, rows)}")
    judged = [_cells(cells) for cells in llm_judgement_rows(item)]
    if judged:
        parts.append(f"<h4>LLM judge (tier 2)</h4>{_table(LLM_JUDGEMENT_COLUMNS, judged)}")
    parts.append("</section>")
    return "".join(parts)


def _signals(item: ClaimReport) -> str:
    rows = []
    for passage, values, model in (nli_signal_cells(signal) for signal in item.signals.nli):
        if isinstance(values, tuple):
            rows.append(_cells([passage, *values, model]))
        else:
            rows.append([*_cells([passage]), f'<td colspan="3">{escape(values)}</td>', *_cells([model])])
    nli = _table(NLI_COLUMNS, rows) if rows else "<p>No NLI signal: the claim had no evidence.</p>"
    parts = [f"<h4>NLI per passage</h4>{nli}"]
    parts += [f"<h4>{name}</h4>{_definitions(signal_rows(signal))}" for name, signal in named_signals(item)]
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


def _manifest(report: VerificationReport) -> str:
    return (
        f"<footer><h2>Manifest</h2>{_definitions(manifest_rows(report.manifest))}"
        f"<p>Resolved config:</p><pre>{escape(config_json(report.manifest))}</pre></footer>"
    )


def render_html(report: VerificationReport) -> str:
    """The whole report as one HTML page that needs no network, no scripts and no other file."""
    claims = "\n".join(_claim(position, item) for position, item in enumerate(report.claims, start=1))
    body = f"{_header(report)}\n<h2>Claims</h2>\n" + (claims or "<p>No claims were extracted from the answer.</p>")
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>Verification report</title>\n<style>{_STYLE}</style>\n</head>\n"
        f"<body>\n<main>\n{body}\n{_manifest(report)}\n</main>\n</body>\n</html>\n"
    )
