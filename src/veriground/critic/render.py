"""Views of a CriticReport: terminal text, Markdown, and HTML (the draft with each finding's span highlighted
and linked to its rationale, a label legend, both tiers, the manifest) as a page body or a self-contained page."""

from __future__ import annotations

from html import escape
from pathlib import Path

from veriground.critic.pipeline import LABEL_NAMES
from veriground.reports.files import check_report_path, write_by_suffix
from veriground.schema import CriticFinding, CriticReport, CriticTierResult

CRITIC_REPORT_SUFFIXES = (".md", ".html", ".json")
# One colour per label, each with a dark text colour readable on it (WCAG AA contrast on these tints).
LABEL_COLOURS = {
    "L1": "#ffd6d6",
    "L2": "#ffe8b3",
    "L3": "#d6e4ff",
    "L4": "#e8d6ff",
    "L5": "#c8f0d8",
    "L6": "#ffd6f0",
}
CRITIC_STYLE = (
    ".critic-draft { white-space: pre-wrap; border: 1px solid #ccc; border-radius: 6px; padding: 0.8rem; }\n"
    ".critic-mark { color: inherit; text-decoration: none; border-bottom: 2px solid #555; border-radius: 3px; }\n"
    ".critic-mark:focus, .critic-mark:hover { outline: 2px solid #1a4480; }\n"
    ".critic-legend { display: flex; flex-wrap: wrap; gap: 0.4rem 1rem; padding: 0; list-style: none; }\n"
    ".critic-swatch { display: inline-block; width: 1rem; height: 1rem; border: 1px solid #555; "
    "vertical-align: middle; margin-right: 0.3rem; }\n"
    ".critic-finding:target, .critic-finding.critic-open { outline: 3px solid #1a4480; }\n"
    ".critic-finding { margin-bottom: 0.5rem; padding: 0.3rem 0.5rem; border-radius: 4px; }\n"
    ".critic-detail { border: 2px solid #1a4480; border-radius: 6px; padding: 0.5rem 0.8rem; margin: 0.5rem 0; }\n"
    + "".join(f".critic-{label} {{ background: {colour}; }}\n" for label, colour in LABEL_COLOURS.items())
)


def check_critic_report_path(path: Path) -> None:
    """Refuse an unknown report type before any work is done."""
    check_report_path(path, CRITIC_REPORT_SUFFIXES)


def write_critic_report(report: CriticReport, path: Path) -> None:
    check_critic_report_path(path)
    write_by_suffix(path, report, render_critic_html, render_critic_markdown)


# --- terminal ---------------------------------------------------------------------------------------------


def render_critic_text(report: CriticReport) -> str:
    summary = report.summary
    labels = ", ".join(summary.labels) or "none"
    lines = [
        f"critique {report.draft_id}: {summary.sentences} sentences, {summary.flagged_sentences} flagged; "
        f"labels: {labels} (final tier {summary.final_tier})"
    ]
    for finding in report.findings:
        lines.append(
            f"  s{finding.sentence_index:<3} {finding.label} {LABEL_NAMES[finding.label]:<30} "
            f"[{finding.span[0]}:{finding.span[1]}] “{_short(finding.trigger)}” "
            f"(tier {finding.tier}, confidence {finding.confidence:.2f})"
        )
        lines.append(f"        {finding.rationale}")
    for check in report.checks:
        if check.status != "checked":
            lines.append(f"  {check.label} {check.status.replace('_', ' ')}: {check.reason}")
    if report.tier2 is not None:
        lines.append(_tier_line(report.tier1, report.tier2))
    lines += [f"  warning: {warning}" for warning in report.manifest.warnings]
    return "\n".join(lines) + "\n"


def _tier_line(tier1: CriticTierResult, tier2: CriticTierResult) -> str:
    if tier2.status == "fallback":
        return f"  tier 2 fell back to tier 1: {tier2.reason}"
    added = ", ".join(tier2.added_labels) or "none"
    dropped = ", ".join(tier2.dropped_labels) or "none"
    return (
        f"  tier 1 labels: {', '.join(tier1.labels) or 'none'}; tier 2 labels: {', '.join(tier2.labels) or 'none'} "
        f"(added {added}; dropped {dropped})"
    )


def _short(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


# --- Markdown ---------------------------------------------------------------------------------------------


def render_critic_markdown(report: CriticReport) -> str:
    summary = report.summary
    out = [
        f"# Critique of draft {report.draft_id}",
        "",
        f"{summary.sentences} sentences, {summary.flagged_sentences} flagged; labels found: "
        f"{', '.join(summary.labels) or 'none'}; final tier {summary.final_tier}.",
        "",
        "## Labels",
        "",
        "| label | name | findings | check |",
        "|---|---|---|---|",
    ]
    for check in report.checks:
        status = check.status.replace("_", " ") + (f": {check.reason}" if check.reason else "")
        count = summary.findings_by_label[check.label]
        out.append(f"| {check.label} | {check.name} | {count} | {_md_cell(status)} |")
    out += ["", "## Findings", ""]
    out += _md_findings(report.findings)
    if report.tier2 is not None:
        out += ["", "## Tiers", "", _tier_line(report.tier1, report.tier2).strip()]
        if report.tier2.status == "ran":
            out += ["", "### Tier 1 findings", ""] + _md_findings(report.tier1.findings)
    out += ["", "## Manifest", ""]
    out += [f"- {name}: `{sha}`" for name, sha in sorted(report.manifest.lexicon_sha256.items())]
    out += [f"- backend {info.role}: {info.name} ({info.model_id})" for info in report.manifest.backends]
    out += [f"- warning: {warning}" for warning in report.manifest.warnings]
    return "\n".join(out) + "\n"


def _md_findings(findings: tuple[CriticFinding, ...]) -> list[str]:
    if not findings:
        return ["No findings."]
    rows = ["| sentence | label | span | trigger | rationale | tier | confidence |", "|---|---|---|---|---|---|---|"]
    for f in findings:
        rows.append(
            f"| {f.sentence_index} | {f.label} {LABEL_NAMES[f.label]} | {f.span[0]}–{f.span[1]} | "
            f"{_md_cell(_short(f.trigger))} | {_md_cell(f.rationale)} | {f.tier} | {f.confidence:.2f} |"
        )
    return rows


def _md_cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


# --- HTML -------------------------------------------------------------------------------------------------


def render_critic_html(report: CriticReport) -> str:
    """A self-contained page: inline CSS, no scripts, nothing fetched; marks link to their rationale."""
    from veriground.reports.html_parts import REPORT_STYLE

    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>Critique {escape(report.draft_id)}</title>\n<style>{REPORT_STYLE}{CRITIC_STYLE}</style>\n</head>\n"
        f"<body>\n<main>\n{render_critic_body(report)}\n</main>\n</body>\n</html>\n"
    )


def render_critic_body(report: CriticReport) -> str:
    summary = report.summary
    parts = [
        f'<section id="critic-summary"><h2>Critique of draft <code>{escape(report.draft_id)}</code></h2>'
        f"<p>{summary.sentences} sentences, {summary.flagged_sentences} flagged; labels found: "
        f'<strong id="critic-labels">{escape(", ".join(summary.labels) or "none")}</strong>; final tier '
        f"{summary.final_tier}.</p></section>",
        _legend(report),
        "<section><h3>Draft</h3><p>Select a highlighted span to read why it was flagged.</p>"
        f'<div class="critic-draft" id="critic-draft">{_highlighted(report.text, report.findings)}</div>'
        '<div id="critic-detail" class="critic-detail" hidden></div></section>',
        f'<section id="critic-findings"><h3>Findings</h3>{_finding_list(report.findings, "finding")}</section>',
    ]
    if report.tier2 is not None:
        parts.append(_tiers(report))
    parts.append(_manifest(report))
    return "\n".join(parts)


def _legend(report: CriticReport) -> str:
    items = []
    for check in report.checks:
        status = "" if check.status == "checked" else f" — {check.status.replace('_', ' ')}: {check.reason}"
        count = report.summary.findings_by_label[check.label]
        items.append(
            f'<li data-label="{check.label}"><span class="critic-swatch critic-{check.label}"></span>'
            f"<strong>{check.label}</strong> {escape(check.name)} ({count}){escape(status)}</li>"
        )
    return f'<section id="critic-legend"><h3>Labels</h3><ul class="critic-legend">{"".join(items)}</ul></section>'


def _highlighted(text: str, findings: tuple[CriticFinding, ...]) -> str:
    """The draft, escaped, with each stretch covered by findings wrapped in a link to the first of them."""
    cuts = sorted({0, len(text)} | {edge for f in findings for edge in f.span})
    out = []
    for low, high in zip(cuts, cuts[1:], strict=False):
        covering = [n for n, f in enumerate(findings, start=1) if f.span[0] <= low and high <= f.span[1]]
        piece = escape(text[low:high])
        if not covering:
            out.append(piece)
            continue
        labels = sorted({findings[n - 1].label for n in covering})
        first = covering[0]
        names = "; ".join(f"{label} {LABEL_NAMES[label]}" for label in labels)
        out.append(
            f'<a class="critic-mark critic-{labels[0]}" href="#finding-{first}" data-finding="finding-{first}" '
            f'data-labels="{" ".join(labels)}" title="{escape(names)}">{piece}</a>'
        )
    return "".join(out)


def _finding_list(findings: tuple[CriticFinding, ...], prefix: str) -> str:
    if not findings:
        return "<p>No findings.</p>"
    items = []
    for number, f in enumerate(findings, start=1):
        items.append(
            f'<li id="{prefix}-{number}" class="critic-finding critic-{f.label}" data-label="{f.label}">'
            f"<strong>{f.label} {escape(LABEL_NAMES[f.label])}</strong> — “{escape(_short(f.trigger, 120))}” "
            f"(sentence {f.sentence_index}, chars {f.span[0]}–{f.span[1]}, tier {f.tier}, confidence "
            f'{f.confidence:.2f}, <code>{escape(f.rule)}</code>)<p class="critic-rationale">{escape(f.rationale)}</p>'
            "</li>"
        )
    return f"<ol>{''.join(items)}</ol>"


def _tiers(report: CriticReport) -> str:
    tier2 = report.tier2
    assert tier2 is not None
    line = escape(_tier_line(report.tier1, tier2).strip())
    body = f'<section id="critic-tiers"><h3>Tier 1 and tier 2</h3><p>{line}</p>'
    if tier2.status == "ran":
        body += f"<h4>Tier 1 findings</h4>{_finding_list(report.tier1.findings, 'tier1-finding')}"
    return body + "</section>"


def _manifest(report: CriticReport) -> str:
    manifest = report.manifest
    rows = [f"<li>{escape(name)}: <code>{sha}</code></li>" for name, sha in sorted(manifest.lexicon_sha256.items())]
    rows += [f"<li>{info.role}: {escape(info.name)} ({escape(info.model_id)})</li>" for info in manifest.backends]
    rows += [f"<li>{escape(key)} = {value:g}</li>" for key, value in sorted(manifest.thresholds.items())]
    warnings = "".join(f"<li>{escape(warning)}</li>" for warning in manifest.warnings)
    warned = f'<h4>Warnings</h4><ul id="critic-warnings">{warnings}</ul>' if warnings else ""
    return (
        f'<section id="critic-manifest"><h3>Manifest</h3><p>{escape(manifest.critic_version)}, input sha256 '
        f"<code>{manifest.input_sha256}</code></p><ul>{''.join(rows)}</ul>{warned}</section>"
    )
