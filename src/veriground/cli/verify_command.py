"""`verify`: check a text claim by claim against the corpus or an evidence pack."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from veriground.cli import options
from veriground.cli.app import app, open_workspace, print_json, read_text_argument
from veriground.cli.progress import progress_bar

if TYPE_CHECKING:
    from veriground.schema import VerificationReport
    from veriground.workspace import Workspace

VERIFY_LABEL = "Verifying (stages)"


@app.command()
def verify(
    source: Annotated[str, typer.Argument(help="Text file to verify (Markdown or plain), or - for stdin.")],
    evidence: Annotated[
        Path | None, typer.Option("--evidence", help="Check only against this evidence pack (JSON).")
    ] = None,
    report: Annotated[
        Path | None, typer.Option("--report", help="Also write the report: out.md, .html or .json.")
    ] = None,
    query: Annotated[str | None, typer.Option("--query", help="The question the text answers, if any.")] = None,
    top_k: options.TopK = None,
    min_entailment_prob: options.MinEntailmentProb = None,
    weak_entailment_prob: options.WeakEntailmentProb = None,
    min_supporting_sources: options.MinSupportingSources = None,
    max_contradiction_prob: options.MaxContradictionProb = None,
    aggregator: options.Aggregator = None,
    aggregator_path: options.AggregatorPath = None,
    domain: options.Domain = None,
    evidence_kinds: options.EvidenceKinds = None,
    dependencies: options.Dependencies = None,
    strict_dependencies: options.StrictDependencies = None,
    contradictions: options.Contradictions = None,
    atomic: options.Atomic = None,
    frames: options.Frames = None,
    graph: Annotated[
        Path | None, typer.Option("--graph", help="Also write the claim–evidence graph as node-link JSON.")
    ] = None,
    contradiction_policy: options.ContradictionPolicy = None,
    conflict_high_prob: options.ConflictHighProb = None,
    units_per_passage: options.UnitsPerPassage = None,
    hard_rejection_support: options.HardRejectionSupport = None,
    max_claims: options.MaxClaims = None,
    max_input_chars: options.MaxInputChars = None,
    details: options.Details = False,
    retrieval: options.Retrieval = None,
    reranker: options.Reranker = None,
    nli: options.NLI = None,
    runtime: options.Runtime = None,
    allow_download: options.AllowDownload = None,
    llm_judge: options.LLMJudge = None,
    corpus: options.Corpus = None,
    config_file: options.ConfigFile = None,
    as_json: options.Json = False,
) -> None:
    """Check a text claim by claim against the corpus (or an evidence pack): verdict, rule, signals, passage."""
    from veriground.reports.files import check_report_path, write_report
    from veriground.reports.verification_view import print_verification

    with open_workspace(verify, locals()) as workspace:
        if report is not None:
            check_report_path(report)
        workspace.judge  # noqa: B018 - a judge asked for without a server fails before the text is read
        text = read_text_argument(source, workspace.config.verification.max_input_chars)
        workspace.nli  # noqa: B018 - a missing model fails before the corpus is opened
        result = _verify(workspace, text, evidence, query, show_progress=not as_json)
    if report is not None:
        write_report(result, report)
    if graph is not None:
        _write_graph(result, graph)
    if as_json:
        print_json(result.model_dump(mode="json"))
    else:
        print_verification(result, details=details)
        if report is not None:
            sys.stdout.write(f"report written to {report}\n")


def _verify(
    workspace: Workspace, text: str, evidence: Path | None, query: str | None, *, show_progress: bool
) -> VerificationReport:
    """`text` checked against the corpus, or only against the pack file `evidence` (its passages given by id are
    read from the corpus when there is one; `query` defaults to the pack's)."""
    from veriground.evidence.pack import pack_chunks, read_pack

    chunks = None
    if evidence is not None:
        resolve = (lambda passage_id: workspace.store.passage(passage_id).text) if workspace.has_corpus else None
        pack = read_pack(evidence, resolve)  # complete: its chunks go to the workspace as they are
        chunks = pack_chunks(pack)
        query = query or pack.query  # an empty --query leaves the pack's
    with progress_bar(VERIFY_LABEL, enabled=show_progress) as on_progress:
        return workspace.verify(text, evidence=chunks, question=query, on_progress=on_progress)


def _write_graph(result: VerificationReport, path: Path) -> None:
    """The claim–evidence graph (claims, passages, sources; support, contradiction, dependency edges) and its
    metrics as node-link JSON."""
    import json

    from veriground.errors import InputFileError
    from veriground.reports.claim_graph import build_claim_graph, graph_metrics, graph_to_json

    warnings = [warning for item in result.claims for warning in item.dependency_warnings]
    graph = build_claim_graph(result, warnings)
    document = {"graph": graph_to_json(graph), "metrics": graph_metrics(graph)}
    try:
        path.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    except OSError as err:
        raise InputFileError(path, f"cannot be written ({err.strerror})", "choose a writable --graph path") from None
