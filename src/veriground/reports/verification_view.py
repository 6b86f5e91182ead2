"""Terminal view of a verification (rich): VerificationReport -> the same facts as the Markdown/HTML reports.

Report text is printed as `Text`, never as console markup, so a claim holding "[red]" prints literally.
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from veriground.reports import report_facts as facts
from veriground.reports import terminal
from veriground.reports.evidence_facts import (
    EvidenceView,
    evidence_views,
    missing_primary,
    passage_location,
    span_offsets,
)
from veriground.reports.report_facts import UNCHECKED_TITLE, unchecked_rows
from veriground.schema import ClaimReport, DisplayVerdict, VerificationReport

# Colour is a second cue only: every verdict is also printed as its text label.
_VERDICT_STYLE: dict[DisplayVerdict, str] = {
    DisplayVerdict.SUPPORTED: "bold green",
    DisplayVerdict.LOW_CONFIDENCE: "bold yellow",
    DisplayVerdict.CONTRADICTORY: "bold red",
    DisplayVerdict.UNSUPPORTED: "bold magenta",
    DisplayVerdict.UNVERIFIED: "bold",
}


def _verdict(verdict: DisplayVerdict) -> Text:
    return Text(verdict, style=_VERDICT_STYLE.get(verdict, "bold"))


def _fields(title: str | None, rows: list[tuple[str, str]]) -> Table:
    table = Table(title=title, title_justify="left", show_header=False)
    table.add_column("field", style="bold", no_wrap=True)
    table.add_column("value", overflow="fold")
    for label, value in rows:
        table.add_row(Text(label), Text(value))
    return table


def _print_header(report: VerificationReport, out: Console) -> None:
    out.rule("Verification report")
    counts = Text(f"{len(report.claims)} claims: ")
    for index, (verdict, count) in enumerate(facts.verdict_counts(report)):
        counts.append_text(Text(" · " if index else ""))
        counts.append_text(_verdict(verdict))
        counts.append(f" {count}")
    out.print(counts)
    out.print(Text(f"summary stats: {facts.summary_stats_text(report)}"))
    out.print(Text(f"mean overall confidence: {facts.mean_confidence_text(report)}"))
    out.print(Text(f"mitigation actions: {facts.actions_text(report)}"))
    for line in facts.nli_backend_lines(report.manifest):
        out.print(Text(line))
    out.rule("Answer after mitigation")
    out.print(Text(report.final_response))
    references = facts.reference_lines(report)
    if references:
        out.print(Text("References", style="bold"))
        for line in references:
            out.print(Text(line))


def _print_claim(position: int, item: ClaimReport, out: Console) -> None:
    claim, decision = item.claim, item.decision
    out.rule(Text.assemble(f"{position}. Claim {claim.claim_id}: ", _verdict(decision.status)))
    origin = facts.claim_origin(claim)
    if origin:
        out.print(Text(origin, style="italic"))
    out.print(Text(claim.text))
    out.print(_fields(None, facts.claim_fact_rows(item)))
    out.print(_fields("Values the rule read", facts.decision_input_rows(item.inputs)))
    _print_signals(item, out)
    _print_evidence(item, out)
    if item.conflicts:
        table = Table(*facts.CONFLICT_COLUMNS, title="Evidence conflicts", title_justify="left")
        for conflict in item.conflicts:
            table.add_row(*(Text(cell) for cell in facts.conflict_cells(conflict)))
        out.print(table)
    judged = facts.llm_judgement_rows(item)
    if judged:
        table = Table(*facts.LLM_JUDGEMENT_COLUMNS, title="LLM judge (tier 2)", title_justify="left")
        for row in judged:
            table.add_row(*(Text(cell) for cell in row))
        out.print(table)


def _print_signals(item: ClaimReport, out: Console) -> None:
    if item.signals.nli:
        table = Table(*facts.NLI_COLUMNS, title="NLI per passage", title_justify="left")
        for passage, values, model in (facts.nli_signal_cells(signal) for signal in item.signals.nli):
            probabilities = values if isinstance(values, tuple) else (values, "", "")
            table.add_row(*(Text(cell) for cell in (passage, *probabilities, model)))
        out.print(table)
    else:
        out.print(Text("No NLI signal: the claim had no evidence."))
    for name, signal in facts.named_signals(item):
        out.print(_fields(name, facts.signal_rows(signal)))


def _print_passage(view: EvidenceView, out: Console) -> None:
    role = "Primary evidence" if view.is_primary else "Evidence"
    out.print(Text.assemble((f"{role}: ", "bold"), (view.chunk.passage_id, "bold cyan")))
    out.print(Text(f"   {passage_location(view.chunk)}", style="dim"))
    out.print(Text("   " + terminal.snippet(view.chunk.text)))
    for span in view.spans:
        out.print(Text.assemble(f"   evidence span ({span_offsets(span)}): ", (span.text, "bold")))


def _print_evidence(item: ClaimReport, out: Console) -> None:
    views, loose = evidence_views(item)
    absent = missing_primary(item)
    if absent:
        out.print(Text(f"Primary evidence {absent} is not among the retrieved passages."))
    if not views:
        out.print(Text("No evidence passages."))
    for view in views:
        _print_passage(view, out)
    for span in loose:
        where = f"evidence span outside these passages: {span.passage_id or span.doc_id} ({span_offsets(span)}): "
        out.print(Text.assemble(where, (span.text, "bold")))


def _print_manifest(report: VerificationReport, out: Console) -> None:
    out.rule("Manifest")
    out.print(_fields(None, facts.manifest_rows(report.manifest)))
    out.print(Text("resolved config:"))
    out.print(Text(facts.config_json(report.manifest)))


def _print_claim_brief(position: int, item: ClaimReport, out: Console) -> None:
    claim, decision = item.claim, item.decision
    out.print(Text.assemble(f"{position}. ", _verdict(decision.status), f"  {claim.claim_id}  ", claim.text))
    origin = facts.claim_origin(claim)
    if origin:
        out.print(Text(f"   {origin}", style="italic"))
    reason = f"{decision.verification_status.value}/{decision.reason.value}"
    if decision.explanation:
        out.print(Text(f"   {decision.explanation}"))
    out.print(Text(f"   rule {decision.rule} ({reason}): {decision.rationale}", style="dim"))
    views, _ = evidence_views(item)
    primary = next((view for view in views if view.is_primary), None)
    if primary is not None:
        out.print(Text.assemble("   evidence ", (primary.chunk.passage_id, "cyan")))
        for span in primary.spans[:1]:
            out.print(Text(f"   “{terminal.snippet(span.text)}”"))
    for warning in item.dependency_warnings:
        out.print(Text(f"   dependency {warning.kind} ({warning.severity}): {warning.reason}", style="yellow"))
    for conflict in item.conflicts:
        out.print(
            Text(
                f"   evidence conflict ({conflict.kind}, {conflict.severity}): "
                f"{conflict.passage_a} vs {conflict.passage_b}"
            )
        )


def print_verification(report: VerificationReport, console: Console | None = None, *, details: bool = False) -> None:
    """Print the report claim by claim: verdict, rule, rationale and evidence span; with `details`, every
    signal, every passage and the manifest (passages shortened to a snippet, span sentences whole)."""
    out = console or terminal.console
    _print_header(report, out)
    if not report.claims:
        out.print(Text("No claims were extracted from the answer."))
    if not details:
        out.rule("Claims")
        for position, item in enumerate(report.claims, start=1):
            _print_claim_brief(position, item, out)
        _print_unchecked(report, out)
        out.print(Text(f"input sha256 {report.manifest.input_sha256}; --details or --report for every signal"))
        return
    for position, item in enumerate(report.claims, start=1):
        _print_claim(position, item, out)
    _print_unchecked(report, out)
    _print_manifest(report, out)


def _print_unchecked(report: VerificationReport, out: Console) -> None:
    if not report.unchecked:
        return
    out.rule(UNCHECKED_TITLE)
    for sentence, why in unchecked_rows(report):
        out.print(Text(f"“{sentence}”: {why}"))
