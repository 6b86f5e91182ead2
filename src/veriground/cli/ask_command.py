"""`ask`: a cited-or-silent answer from the corpus, or an abstention that says why."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from veriground.cli.app import (
    AllowDownloadOption,
    ConfigOption,
    CorpusOption,
    JsonOption,
    NLIOption,
    RerankerOption,
    RetrievalOption,
    RuntimeOption,
    app,
    config_from,
    model_overrides,
    open_store,
    print_json,
)

if TYPE_CHECKING:
    from veriground.backends.protocols import LLM
    from veriground.config import Config


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="The question, in quotes.")],
    mode: Annotated[str | None, typer.Option("--mode", help="brief or detailed (config answer.mode).")] = None,
    filters: Annotated[
        list[str] | None,
        typer.Option(
            "--filter", help="key=value, repeatable: doc=<doc id or folder>, source=<id>, source_type=<type>."
        ),
    ] = None,
    baseline: Annotated[
        str | None, typer.Option("--baseline", help="B3 full pipeline (default), B2 naive RAG, B1 prompt-only LLM.")
    ] = None,
    top_k: Annotated[int | None, typer.Option("-k", "--top-k", help="Passages in the evidence pack.")] = None,
    min_query_coverage: Annotated[
        float | None,
        typer.Option(
            "--min-query-coverage", min=0, max=1, help="Evidence gate without a reranker (answer.min_query_coverage)."
        ),
    ] = None,
    min_rerank_prob: Annotated[
        float | None,
        typer.Option("--min-rerank-prob", min=0, max=1, help="Evidence gate with a reranker (answer.min_rerank_prob)."),
    ] = None,
    min_verified_share: Annotated[
        float | None,
        typer.Option(
            "--min-verified-share",
            min=0,
            max=1,
            help="Share of drafted sentences that must verify (answer.min_verified_share).",
        ),
    ] = None,
    report: Annotated[
        Path | None, typer.Option("--report", help="Also write the answer: out.json, or out.html (audit page).")
    ] = None,
    details: Annotated[bool, typer.Option("--details", help="Show the gate, each sentence's check, backends.")] = False,
    retrieval: RetrievalOption = None,
    reranker: RerankerOption = None,
    nli: NLIOption = None,
    runtime: RuntimeOption = None,
    allow_download: AllowDownloadOption = None,
    corpus: CorpusOption = None,
    config_file: ConfigOption = None,
    as_json: JsonOption = False,
) -> None:
    """Answer from the corpus with a citation on every sentence, or abstain and say how to ask again."""
    from veriground.answering.pipeline import ANSWER_STAGES, AnswerBackends, answer_question, parse_filters
    from veriground.backends.registry import build_nli
    from veriground.cli.progress import progress_bar
    from veriground.reports.answer_view import print_answer
    from veriground.reports.files import write_answer_report
    from veriground.retrieval.search import build_retriever

    config = config_from(
        config_file,
        **{
            "corpus.dir": corpus,
            "answer.mode": mode,
            "answer.baseline": baseline,
            "answer.top_k": top_k,
            "answer.min_query_coverage": min_query_coverage,
            "answer.min_rerank_prob": min_rerank_prob,
            "answer.min_verified_share": min_verified_share,
            **model_overrides(
                retrieval=retrieval, reranker=reranker, nli=nli, runtime=runtime, allow_download=allow_download
            ),
        },
    )
    parsed = parse_filters(filters or [])
    if report is not None and report.suffix.lower() not in (".json", ".html"):
        raise typer.BadParameter(f"{report} must end in .json or .html", param_hint="--report")
    with open_store(config) as store, progress_bar("Answering", enabled=not as_json) as on_progress:
        on_progress(0, ANSWER_STAGES)  # loading the models can be the longest wait
        backends = AnswerBackends(
            store=store, retriever=build_retriever(store, config), nli=build_nli(config.models), llm=_llm_of(config)
        )
        answer = answer_question(question, config=config, backends=backends, filters=parsed, on_progress=on_progress)
    if report is not None:
        write_answer_report(answer, report)
    if as_json:
        print_json(answer.model_dump(mode="json"))
    else:
        print_answer(answer, details=details)
        if report is not None:
            sys.stdout.write(f"answer written to {report}\n")


def _llm_of(config: Config) -> LLM | None:
    """The configured chat model; the LLM client (httpx) is imported only when llm.base_url names a server."""
    if not config.llm.base_url:
        return None
    from veriground.backends.openai_chat import build_llm

    return build_llm(config)
