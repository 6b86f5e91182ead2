"""`ask`: a cited-or-silent answer from the corpus, or an abstention that says why."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from veriground.cli import options
from veriground.cli.app import app, open_workspace, print_json


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="The question, in quotes.")],
    mode: options.AnswerMode = None,
    filters: Annotated[
        list[str] | None,
        typer.Option(
            "--filter", help="key=value, repeatable: doc=<doc id or folder>, source=<id>, source_type=<type>."
        ),
    ] = None,
    baseline: options.Baseline = None,
    top_k: options.AnswerTopK = None,
    min_query_coverage: options.MinQueryCoverage = None,
    min_rerank_prob: options.MinRerankProb = None,
    min_sentence_coverage: options.MinSentenceCoverage = None,
    min_verified_share: options.MinVerifiedShare = None,
    medium_verified_share: options.MediumVerifiedShare = None,
    high_verified_share: options.HighVerifiedShare = None,
    max_claims_brief: options.MaxClaimsBrief = None,
    max_claims_detailed: options.MaxClaimsDetailed = None,
    verify: options.AnswerVerify = None,
    question_fit: options.QuestionFit = None,
    report: Annotated[
        Path | None, typer.Option("--report", help="Also write the answer: out.json, or out.html (audit page).")
    ] = None,
    details: Annotated[bool, typer.Option("--details", help="Show the gate, each sentence's check, backends.")] = False,
    retrieval: options.Retrieval = None,
    reranker: options.Reranker = None,
    nli: options.NLI = None,
    runtime: options.Runtime = None,
    allow_download: options.AllowDownload = None,
    corpus: options.Corpus = None,
    config_file: options.ConfigFile = None,
    as_json: options.Json = False,
) -> None:
    """Answer from the corpus with a citation on every sentence, or abstain and say how to ask again."""
    from veriground.answering.pipeline import ANSWER_STAGES, parse_filters
    from veriground.cli.progress import progress_bar
    from veriground.reports.answer_view import print_answer
    from veriground.reports.files import write_answer_report

    with open_workspace(ask, locals()) as workspace:
        parsed = parse_filters(filters or [])
        if report is not None and report.suffix.lower() not in (".json", ".html"):
            raise typer.BadParameter(f"{report} must end in .json or .html", param_hint="--report")
        workspace.store  # noqa: B018 - a missing corpus fails before the progress bar starts
        with progress_bar("Answering", enabled=not as_json) as on_progress:
            on_progress(0, ANSWER_STAGES)  # loading the models can be the longest wait
            answer = workspace.ask(question, on_progress=on_progress, **parsed)
    if report is not None:
        write_answer_report(answer, report)
    if as_json:
        print_json(answer.model_dump(mode="json"))
    else:
        print_answer(answer, details=details)
        if report is not None:
            sys.stdout.write(f"answer written to {report}\n")
