"""HTML pieces shared by the verification and answer pages: the stylesheet, badges, definition lists, tables,
the manifest footer and the page shell. Plain text in -> escaped HTML out (every value goes through html.escape).
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from veriground.reports.report_facts import config_json, manifest_rows
from veriground.schema import DisplayVerdict, ReportManifest

# Badge colours follow the usual traffic-light reading; the label text carries the meaning on its own.
VERDICT_CLASS: dict[DisplayVerdict, str] = {
    DisplayVerdict.SUPPORTED: "supported",
    DisplayVerdict.LOW_CONFIDENCE: "low",
    DisplayVerdict.CONTRADICTORY: "contradictory",
    DisplayVerdict.UNSUPPORTED: "unsupported",
    DisplayVerdict.UNVERIFIED: "unverified",
}

REPORT_STYLE = """
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1b1b1b; background: #fff; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.3rem; margin-top: 2rem; } h3 { font-size: 1.1rem; }
h1, h2, h3, h4, h5 { overflow-wrap: anywhere; }
nav.toc { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; margin: 0.75rem 0; } nav.toc a { white-space: nowrap; }
section.claim { border-top: 2px solid #ccc; margin-top: 1.5rem; padding-top: 0.5rem; }
svg.claim-graph { max-width: 100%; height: auto; }
.summary { display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; align-items: center; padding: 0.5rem 0.75rem;
  border: 1px solid #ccc; border-radius: 0.3rem; background: #fafafa; }
.summary ul { display: flex; flex-wrap: wrap; gap: 0.5rem; list-style: none; margin: 0; padding: 0; }
.summary p { margin: 0; }
.badge { display: inline-block; padding: 0.1rem 0.5rem; border-radius: 0.3rem; font-weight: 600;
  border: 1px solid currentColor; white-space: nowrap; }
.supported, .confidence-high { color: #0b5d1e; background: #e3f4e6; }
.low, .confidence-medium { color: #6b4a00; background: #fff3d1; }
.contradictory, .confidence-low { color: #8a1020; background: #fde3e6; }
.unsupported { color: #5a2d82; background: #efe6f8; }
.unverified, .confidence-insufficient_evidence { color: #3a3a3a; background: #ececec; }
.warning { color: #8a1020; background: #fde3e6; border: 1px solid currentColor; border-radius: 0.2rem; }
.abstention { border: 2px solid #8a1020; border-radius: 0.3rem; padding: 0 0.75rem 0.5rem; }
.reason { font-weight: 600; }
blockquote { margin: 0.5rem 0; padding: 0.25rem 0.75rem; border-left: 4px solid #999; background: #f7f7f7; }
.answer { white-space: pre-wrap; }
.scroll { overflow-x: auto; max-width: 100%; }
/* On a phone a table keeps readable columns and scrolls sideways inside .scroll, not the page. */
.scroll table { min-width: 32rem; } .scroll table.trace { min-width: 48rem; }
table.trace td:first-child { white-space: nowrap; }
table { border-collapse: collapse; margin: 0.5rem 0; }
th, td { border: 1px solid #ccc; padding: 0.2rem 0.5rem; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
td, dd, p, li, blockquote { overflow-wrap: anywhere; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.2rem 1rem; }
dt { font-weight: 600; } dd { margin: 0; min-width: 0; }
@media (max-width: 36rem) { dl { grid-template-columns: 1fr; } dd { margin-left: 1rem; } }
mark { background: #ffe98a; padding: 0 0.1rem; }
/* Supporting and contradicting spans differ in colour and in underline style, so neither hue alone carries it. */
mark.supports { background: #c4ebcd; border-bottom: 2px solid #0b5d1e; }
mark.contradicts { background: #f9c5cc; border-bottom: 2px dashed #8a1020; }
ol.references blockquote { white-space: pre-wrap; }
.legend { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; align-items: baseline; }
.explanation { font-size: 1.05rem; }
.note { font-style: italic; }
pre { overflow-x: auto; background: #f7f7f7; padding: 0.5rem; }
details { margin: 0.5rem 0; } summary { cursor: pointer; font-weight: 600; }
a:focus-visible, summary:focus-visible { outline: 3px solid #1a5fb4; outline-offset: 2px; }
"""


def render_badge(label: str, css: str) -> str:
    return f'<span class="badge {escape(css)}">{escape(label)}</span>'


def verdict_badge(verdict: DisplayVerdict) -> str:
    return render_badge(verdict, VERDICT_CLASS.get(verdict, "unverified"))


def render_definitions(rows: Sequence[tuple[str, str]]) -> str:
    items = "".join(f"<dt>{escape(label)}</dt><dd>{escape(value)}</dd>" for label, value in rows)
    return f"<dl>{items}</dl>"


def render_table(
    header: Sequence[str], rows: Sequence[Sequence[str]], css: str = "", *, row_attributes: Sequence[str] = ()
) -> str:
    """Rows hold already-escaped cell HTML (`<td>...</td>`), so a cell may carry a link, a badge or a colspan;
    `row_attributes`, when given, holds each row's already-escaped attributes (' data-outcome="failed"')."""
    head = "".join(f"<th>{escape(name)}</th>" for name in header)
    attributes = [*row_attributes, *[""] * (len(rows) - len(row_attributes))]
    body = "".join(f"<tr{extra}>{''.join(cells)}</tr>" for extra, cells in zip(attributes, rows, strict=True))
    kind = f' class="{escape(css)}"' if css else ""
    return f'<div class="scroll"><table{kind}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def text_cells(values: Sequence[str]) -> list[str]:
    return [f"<td>{escape(value)}</td>" for value in values]


def render_list(title: str, items: Sequence[str], css: str = "") -> str:
    """A heading and a bulleted list of plain-text items; nothing when there are no items."""
    if not items:
        return ""
    kind = f' class="{escape(css)}"' if css else ""
    lines = "".join(f"<li>{escape(item)}</li>" for item in items)
    return f"<h3>{escape(title)}</h3><ul{kind}>{lines}</ul>"


def render_manifest(manifest: ReportManifest | None) -> str:
    if manifest is None:
        return '<footer id="manifest"><h2>Manifest</h2><p>No manifest was recorded.</p></footer>'
    return (
        f'<footer id="manifest"><h2>Manifest</h2>{render_definitions(manifest_rows(manifest))}'
        f"<p>Resolved config:</p><pre>{escape(config_json(manifest))}</pre></footer>"
    )


def render_page(title: str, body: str) -> str:
    """One self-contained page: inline CSS, no scripts, nothing fetched from the network."""
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)}</title>\n<style>{REPORT_STYLE}</style>\n</head>\n"
        f"<body>\n<main>\n{body}\n</main>\n</body>\n</html>\n"
    )
