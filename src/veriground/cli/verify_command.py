"""`verify`: check a text claim by claim against the corpus or an evidence pack."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from veriground.cli.app import (
    AllowDownloadOption,
    ConfigOption,
    CorpusOption,
    DomainOption,
    EvidenceKindsOption,
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
    read_text_argument,
)
from veriground.cli.progress import progress_bar

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
    top_k: Annotated[int | None, typer.Option("-k", "--top-k", help="Passages retrieved per claim.")] = None,
    min_entailment_prob: Annotated[
        float | None, typer.Option(help="P(supported) a Supported claim needs (default: the aggregator's).")
    ] = None,
    weak_entailment_prob: Annotated[
        float | None, typer.Option(help="P(supported) below which a claim is Unsupported (default: the aggregator's).")
    ] = None,
    min_supporting_sources: Annotated[int | None, typer.Option(help="Independent sources a claim needs.")] = None,
    max_contradiction_prob: Annotated[
        float | None, typer.Option(help="P(contradicted) tolerated (default: the aggregator's).")
    ] = None,
    aggregator: Annotated[
        str | None, typer.Option("--aggregator", help="calibrated, or raw: the NLI's own probabilities.")
    ] = None,
    domain: DomainOption = None,
    evidence_kinds: EvidenceKindsOption = None,
    dependencies: Annotated[
        bool | None,
        typer.Option("--dependencies/--no-dependencies", help="Check terms used before their definition."),
    ] = None,
    strict_dependencies: Annotated[
        bool | None,
        typer.Option("--strict-dependencies/--lenient-dependencies", help="Such claims are at most Low Confidence."),
    ] = None,
    graph: Annotated[
        Path | None, typer.Option("--graph", help="Also write the claim–evidence graph as node-link JSON.")
    ] = None,
    contradiction_policy: Annotated[str | None, typer.Option(help="surface or abstain_on_high.")] = None,
    max_claims: Annotated[int | None, typer.Option(help="Refuse texts with more claims.")] = None,
    max_input_chars: Annotated[int | None, typer.Option(help="Refuse longer texts.")] = None,
    details: Annotated[bool, typer.Option("--details", help="Show every signal and passage.")] = False,
    retrieval: RetrievalOption = None,
    reranker: RerankerOption = None,
    nli: NLIOption = None,
    runtime: RuntimeOption = None,
    allow_download: AllowDownloadOption = None,
    llm_judge: Annotated[
        bool | None,
        typer.Option(
            "--llm-judge/--no-llm-judge",
            help="Also let the LLM server (llm.base_url) judge each claim's passages (config llm.judge).",
        ),
    ] = None,
    corpus: CorpusOption = None,
    config_file: ConfigOption = None,
    as_json: JsonOption = False,
) -> None:
    """Check a text claim by claim against the corpus (or an evidence pack): verdict, rule, signals, passage."""
    from veriground.backends.registry import build_nli
    from veriground.engine import verify_text
    from veriground.evidence.gather import CorpusEvidence, PackEvidence
    from veriground.evidence.pack import read_pack
    from veriground.reports.files import check_report_path, write_report
    from veriground.reports.verification_view import print_verification
    from veriground.retrieval.search import build_retriever

    config = config_from(
        config_file,
        **{
            "corpus.dir": corpus,
            "retrieval.top_k": top_k,
            "verification.min_entailment_prob": min_entailment_prob,
            "verification.weak_entailment_prob": weak_entailment_prob,
            "verification.aggregator": aggregator,
            "verification.domain": domain,
            "verification.dependencies": dependencies,
            "verification.strict_dependencies": strict_dependencies,
            "verification.min_supporting_sources": min_supporting_sources,
            "verification.max_contradiction_prob": max_contradiction_prob,
            "verification.contradiction_policy": contradiction_policy,
            "verification.max_claims": max_claims,
            "verification.max_input_chars": max_input_chars,
            **model_overrides(
                retrieval=retrieval,
                reranker=reranker,
                nli=nli,
                runtime=runtime,
                allow_download=allow_download,
                evidence_kinds=evidence_kinds,
            ),
            "llm.judge": llm_judge,
        },
    )
    if report is not None:
        check_report_path(report)
    judge = None
    if config.llm.judge:  # the LLM client (httpx) is imported only when a judge is asked for
        from veriground.backends.openai_chat import build_judge

        judge = build_judge(config)
    text = read_text_argument(source, config.verification.max_input_chars)
    nli_model = build_nli(config.models)
    if evidence is not None:
        corpus_store = open_store(config) if (config.corpus.dir / "corpus.sqlite3").exists() else None
        try:
            resolve = None if corpus_store is None else (lambda passage_id: corpus_store.passage(passage_id).text)
            pack = read_pack(evidence, resolve)
            pack_source = PackEvidence(pack, config.retrieval)
            with progress_bar(VERIFY_LABEL, enabled=not as_json) as on_progress:
                result = verify_text(
                    text,
                    config=config,
                    source=pack_source,
                    nli=nli_model,
                    query=query or pack.query,
                    judge=judge,
                    on_progress=on_progress,
                )
        finally:
            if corpus_store is not None:
                corpus_store.close()
    else:
        with open_store(config) as store, progress_bar(VERIFY_LABEL, enabled=not as_json) as on_progress:
            evidence_source = CorpusEvidence(store, config.retrieval, build_retriever(store, config))
            result = verify_text(
                text,
                config=config,
                source=evidence_source,
                nli=nli_model,
                query=query,
                judge=judge,
                on_progress=on_progress,
            )
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


def _write_graph(result, path: Path) -> None:  # noqa: ANN001 - a VerificationReport
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
