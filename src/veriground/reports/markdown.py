"""Markdown view of a verification: VerificationReport -> one deterministic Markdown document."""

from __future__ import annotations

import re
from collections.abc import Sequence

from veriground.reports.evidence_facts import (
    evidence_views,
    highlight_segments,
    missing_primary,
    passage_location,
    span_offsets,
)
from veriground.reports.report_facts import (
    CONFLICT_COLUMNS,
    LLM_JUDGEMENT_COLUMNS,
    NLI_COLUMNS,
    UNCHECKED_TITLE,
    actions_text,
    claim_fact_rows,
    claim_origin,
    config_json,
    conflict_cells,
    decision_input_rows,
    llm_judgement_rows,
    manifest_rows,
    mean_confidence_text,
    named_signals,
    nli_backend_lines,
    nli_signal_cells,
    reference_lines,
    signal_rows,
    summary_stats_text,
    unchecked_rows,
    verdict_counts,
)
from veriground.schema import ClaimReport, EvidenceSpan, VerificationReport

# Every ASCII punctuation mark may be backslash-escaped in CommonMark; these are the ones that start markup.
# An underscore inside a word cannot open emphasis, so names like max_entailment stay readable unescaped.
_MARKDOWN_SPECIALS = re.compile(r"([\\`*\[\]<>|~#&]|_(?![^\W_])|(?<![^\W_])_)")
_LINE_START_MARKER = re.compile(r"^(\s*)([-+=])", re.MULTILINE)
_LINE_START_ORDINAL = re.compile(r"^(\s*\d+)([.)])", re.MULTILINE)


def escape_markdown(text: str) -> str:
    """Untrusted text shown literally inside a line: no links, emphasis, code or raw HTML survive."""
    return _MARKDOWN_SPECIALS.sub(r"\\\1", text)


def _cell(text: str) -> str:
    return escape_markdown(" ".join(text.split()))


def _table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(value) for value in row) + " |" for row in rows]
    return lines + [""]


def _quote(text: str) -> list[str]:
    """Escaped text as a block quote; a line that would open a list or heading inside the quote is defused."""
    text = _LINE_START_ORDINAL.sub(r"\1\\\2", _LINE_START_MARKER.sub(r"\1\\\2", text))
    return [f"> {line}".rstrip() for line in text.splitlines()] or [">"]


def _bold_run(piece: str) -> str:
    # Emphasis must not open or close on whitespace (CommonMark flanking rules), so keep it outside the **.
    core = piece.strip()
    if not core:
        return piece
    lead = piece[: len(piece) - len(piece.lstrip())]
    trail = piece[len(piece.rstrip()) :]
    return f"{lead}**{core}**{trail}"


def _passage_quote(text: str, spans: tuple[EvidenceSpan, ...]) -> list[str]:
    runs = highlight_segments(text, spans)
    body = "".join(_bold_run(escape_markdown(piece)) if is_span else escape_markdown(piece) for piece, is_span in runs)
    # One line: a passage is one paragraph, and a line break inside it could start a list or heading.
    return _quote(" ".join(body.split()))


def _fence(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _header_lines(report: VerificationReport) -> list[str]:
    counts = " · ".join(f"{verdict} {count}" for verdict, count in verdict_counts(report))
    lines = [
        "# Verification report",
        "",
        f"- **Claims:** {len(report.claims)} ({counts})",
        f"- **Summary stats:** {summary_stats_text(report)}",
        f"- **Mean overall confidence:** {mean_confidence_text(report)}",
        f"- **Mitigation actions:** {_cell(actions_text(report))}",
    ]
    lines += [f"- {_cell(line)}" for line in nli_backend_lines(report.manifest)]
    references = [f"- {escape_markdown(line)}" for line in reference_lines(report)]
    lines = lines + ["", "## Answer after mitigation", "", *_quote(escape_markdown(report.final_response)), ""]
    return lines + (["### References", "", *references, ""] if references else [])


def _claim_lines(position: int, item: ClaimReport) -> list[str]:
    claim, decision = item.claim, item.decision
    lines = [f"### {position}. Claim {_cell(claim.claim_id)}: {decision.status}", ""]
    origin = claim_origin(claim)
    if origin:
        lines += [f"_{_cell(origin)}_", ""]
    lines += [*_quote(_cell(claim.text)), ""]
    lines += _table(("field", "value"), claim_fact_rows(item))
    lines += ["#### Values the rule read", "", *_table(("input", "value"), decision_input_rows(item.inputs))]
    lines += ["#### Signals", "", "NLI per passage:", ""]
    nli_rows = []
    for passage, values, model in (nli_signal_cells(signal) for signal in item.signals.nli):
        probabilities = values if isinstance(values, tuple) else (values, "", "")
        nli_rows.append((passage, *probabilities, model))
    lines += _table(NLI_COLUMNS, nli_rows) if nli_rows else ["No NLI signal: the claim had no evidence.", ""]
    for name, signal in named_signals(item):
        lines += [f"{name}:", "", *_table(("field", "value"), signal_rows(signal))]
    lines += _evidence_lines(item)
    if item.conflicts:
        lines += ["#### Evidence conflicts", "", *_table(CONFLICT_COLUMNS, [conflict_cells(c) for c in item.conflicts])]
    judged = llm_judgement_rows(item)
    if judged:
        lines += ["#### LLM judge (tier 2)", "", *_table(LLM_JUDGEMENT_COLUMNS, judged)]
    return lines


def _evidence_lines(item: ClaimReport) -> list[str]:
    lines = ["#### Evidence", ""]
    views, loose = evidence_views(item)
    absent = missing_primary(item)
    if absent:
        lines += [f"Primary evidence {_cell(absent)} is not among the retrieved passages.", ""]
    if not views:
        lines += ["No evidence passages.", ""]
    for view in views:
        role = "Primary evidence" if view.is_primary else "Evidence"
        lines += [f"**{role}: {_cell(view.chunk.passage_id)}**, {_cell(passage_location(view.chunk))}", ""]
        lines += [*_passage_quote(view.chunk.text, view.spans), ""]
        lines += [f"- Evidence span ({span_offsets(span)}): {_cell(span.text)}" for span in view.spans]
        lines += [""] if view.spans else []
    if loose:
        lines += ["Evidence spans outside these passages:", ""]
        lines += [
            f"- {_cell(span.passage_id or span.doc_id)} ({span_offsets(span)}): {_cell(span.text)}" for span in loose
        ]
        lines += [""]
    return lines


def _manifest_lines(report: VerificationReport) -> list[str]:
    text = config_json(report.manifest)
    fence = _fence(text)
    lines = ["## Manifest", "", *_table(("field", "value"), manifest_rows(report.manifest))]
    return lines + ["Resolved config:", "", f"{fence}json", text, fence, ""]


def render_markdown(report: VerificationReport) -> str:
    """The whole report as Markdown; untrusted text (claims, passages, answer) is escaped."""
    lines = _header_lines(report)
    lines += ["## Claims", ""]
    if not report.claims:
        lines += ["No claims were extracted from the answer.", ""]
    for position, item in enumerate(report.claims, start=1):
        lines += _claim_lines(position, item)
    if report.unchecked:
        lines += [f"## {UNCHECKED_TITLE}", "", *_table(("sentence", "why"), unchecked_rows(report))]
    lines += _manifest_lines(report)
    return "\n".join(lines)
