"""Terminal view of a GroundedAnswer: the answer with inline [n] citations and its references, or the
abstention with its reason and suggestions; with `details`, the gate, each drafted sentence's fate and the
backends. Text is printed as `Text`, never as markup, so evidence holding "[red]" prints literally."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from veriground.reports import terminal
from veriground.schema import AnswerConfidence, AnswerTrace, GroundedAnswer

_CONFIDENCE_STYLE = {
    AnswerConfidence.HIGH: "bold green",
    AnswerConfidence.MEDIUM: "bold yellow",
    AnswerConfidence.LOW: "bold red",
    AnswerConfidence.INSUFFICIENT_EVIDENCE: "bold magenta",
}


def print_answer(answer: GroundedAnswer, console: Console | None = None, *, details: bool = False) -> None:
    out = console or terminal.console
    out.print(Text("Question: ", style="bold") + Text(answer.query))
    label = answer.confidence.value.replace("_", " ")
    out.print(Text("Confidence: ", style="bold") + Text(label, style=_CONFIDENCE_STYLE[answer.confidence]))
    out.print()
    out.print(Text(answer.answer_summary))
    if answer.references:
        out.print()
        out.print(Text("References" if answer.claims else "Nearest references", style="bold"))
        for number, reference in enumerate(answer.references, start=1):
            title = f" ({reference.title})" if reference.title else ""
            out.print(Text(f"[{number}] {reference.work_id}{title}, source {reference.source_id}"))
            for passage_id in reference.passage_ids:
                out.print(Text(f"    {passage_id}"))
    _print_list(out, "Limitations", answer.limitations)
    _print_list(out, "Try instead", answer.query_refinements)
    _print_list(out, "Filters that narrow the search", [f"--filter {value}" for value in answer.filter_suggestions])
    if details and answer.trace is not None:
        _print_trace(out, answer.trace)


def _print_list(out: Console, title: str, items) -> None:
    if not items:
        return
    out.print()
    out.print(Text(title, style="bold"))
    for item in items:
        out.print(Text(f"- {item}"))


def _print_trace(out: Console, trace: AnswerTrace) -> None:
    out.print()
    if trace.gate is not None:
        gate = trace.gate
        verdict = "passed" if gate.passed else "failed"
        out.print(
            Text(
                f"Evidence gate {verdict}: max of top 5 {gate.score_kind} {gate.max_top5:.3f}, "
                f"mean of top 3 {gate.mean_top3:.3f}, threshold {gate.threshold:.2f}"
            )
        )
    table = Table(title="Drafted sentences", title_justify="left")
    for column in ("kept", "class", "verdict", "rule", "entail", "support", "cited", "reason"):
        table.add_column(column, overflow="fold")
    for claim in trace.claims:
        table.add_row(
            *(
                Text(value)
                for value in (
                    "yes" if claim.kept else "no",
                    claim.claim_class.value,
                    claim.verdict or "-",
                    claim.rule or "-",
                    "-" if claim.entailment_prob is None else f"{claim.entailment_prob:.2f}",
                    claim.support_level or "-",
                    ", ".join(claim.cited_ids) or "-",
                    claim.reason,
                )
            )
        )
    if trace.claims:
        out.print(table)
    _print_list(out, "Citation problems", trace.citation_problems)
    backends = [f"{b.role}: {b.name} {b.model_id} sha256 {b.checksum or '-'}" for b in trace.manifest.backends]
    _print_list(out, "Backends", backends)
    _print_list(out, "Warnings", trace.manifest.warnings)
