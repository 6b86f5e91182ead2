"""The `veriground` command line: parses flags, resolves config, calls a stage, prints records.

`main` is the one error boundary: VerigroundError -> one line on stderr and its exit code; no tracebacks.
"""

from __future__ import annotations

import os
import sys
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

import typer

from veriground.config import Config, load_config
from veriground.errors import InputTextError, VerigroundError

app = typer.Typer(
    name="veriground",
    help="Cited-or-silent answers and claim-by-claim verification against a local corpus.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
corpus_app = typer.Typer(help="Inspect the corpus: documents, versions and passages.", no_args_is_help=True)
app.add_typer(corpus_app, name="corpus")
models_app = typer.Typer(
    help="Model backends: what is registered, installed and loadable offline.", no_args_is_help=True
)
app.add_typer(models_app, name="models")

EXIT_INTERNAL_ERROR = 70  # sysexits.h EX_SOFTWARE
DEMO_CORPUS_DIR = Path(".veriground-demo")
DEMO_EXAMPLE_NAME = "EXAMPLE_ANSWER.md"

CorpusOption = Annotated[
    Path | None,
    typer.Option(
        "--corpus", help="Corpus directory (config corpus.dir, default ./.veriground).", envvar="VERIGROUND_CORPUS"
    ),
]
ConfigOption = Annotated[
    Path | None, typer.Option("--config", help="TOML config file (default ./veriground.toml if present).")
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the schema records as JSON.")]
RetrievalOption = Annotated[
    str | None, typer.Option("--retrieval", help="bm25, dense or hybrid (config retrieval.mode).")
]
RerankerOption = Annotated[
    str | None, typer.Option("--reranker", help="Cross-encoder folder or hub id (config models.reranker).")
]
AllowDownloadOption = Annotated[
    bool | None,
    typer.Option("--allow-download/--offline", help="Let a model missing on disk come from the hub (default off)."),
]


def _config(config_file: Path | None, **overrides: Any) -> Config:
    return load_config(config_file, overrides)


def _print_json(data: Any) -> None:
    from veriground.reports.files import json_text

    sys.stdout.write(json_text(data))


def _open_store(config: Config, *, create: bool = False):
    from veriground.corpus.store import CorpusStore

    return CorpusStore(config.corpus.dir, create=create)


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders to ingest.")],
    corpus: CorpusOption = None,
    config_file: ConfigOption = None,
    source_type: Annotated[str | None, typer.Option(help="Label every document: textbook, policy, …")] = None,
    source_id: Annotated[str | None, typer.Option(help="Count every document as this one source.")] = None,
    max_file_mb: Annotated[float | None, typer.Option(help="Refuse files larger than this.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Ingest files (.txt .md .html .pdf .tex .ptx .jsonl) into the corpus; unchanged files are skipped."""
    from veriground.corpus.ingest import ingest_paths
    from veriground.reports.terminal import print_ingest_item, print_ingest_summary
    from veriground.retrieval.search import BM25Retriever

    config = _config(
        config_file,
        **{
            "corpus.dir": corpus,
            "ingest.source_type": source_type,
            "ingest.source_id": source_id,
            "ingest.max_file_mb": max_file_mb,
        },
    )
    with _open_store(config, create=True) as store:
        report = ingest_paths(paths, store, config.ingest, on_item=None if as_json else print_ingest_item)
        indexed = len(BM25Retriever(store, config.retrieval).refresh().passage_ids)
    report = report.model_copy(update={"passages_indexed": indexed})
    if as_json:
        _print_json(report.model_dump(mode="json"))
    else:
        print_ingest_summary(report, config.corpus.dir)
    if report.failed:
        raise typer.Exit(1)


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="Words to search for.")],
    top_k: Annotated[int | None, typer.Option("-k", "--top-k", help="How many passages.")] = None,
    retrieval: RetrievalOption = None,
    reranker: RerankerOption = None,
    allow_download: AllowDownloadOption = None,
    corpus: CorpusOption = None,
    config_file: ConfigOption = None,
    as_json: JsonOption = False,
) -> None:
    """Search the latest version of every document (BM25 by default; dense or hybrid with --retrieval)."""
    from veriground.reports.terminal import print_search_results
    from veriground.retrieval.search import build_retriever

    config = _config(
        config_file,
        **{
            "corpus.dir": corpus,
            "retrieval.top_k": top_k,
            "retrieval.mode": retrieval,
            "models.reranker": reranker,
            "models.allow_download": allow_download,
        },
    )
    with _open_store(config) as store:
        retriever = build_retriever(store, config)
        chunks = retriever.retrieve(query)
    for note in retriever.notes:
        sys.stderr.write(f"warning: {note}\n")
    if as_json:
        _print_json([chunk.model_dump(mode="json") for chunk in chunks])
    else:
        print_search_results(query, chunks)


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
    min_entailment_prob: Annotated[float | None, typer.Option(help="Entailment a passage needs.")] = None,
    min_supporting_sources: Annotated[int | None, typer.Option(help="Independent sources a claim needs.")] = None,
    max_contradiction_prob: Annotated[float | None, typer.Option(help="Contradiction tolerated.")] = None,
    contradiction_policy: Annotated[str | None, typer.Option(help="surface or abstain_on_high.")] = None,
    max_claims: Annotated[int | None, typer.Option(help="Refuse texts with more claims.")] = None,
    max_input_chars: Annotated[int | None, typer.Option(help="Refuse longer texts.")] = None,
    details: Annotated[bool, typer.Option("--details", help="Show every signal and passage.")] = False,
    retrieval: RetrievalOption = None,
    reranker: RerankerOption = None,
    nli: Annotated[str | None, typer.Option("--nli", help="lexical, or an NLI model folder / hub id.")] = None,
    allow_download: AllowDownloadOption = None,
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

    config = _config(
        config_file,
        **{
            "corpus.dir": corpus,
            "retrieval.top_k": top_k,
            "verification.min_entailment_prob": min_entailment_prob,
            "verification.min_supporting_sources": min_supporting_sources,
            "verification.max_contradiction_prob": max_contradiction_prob,
            "verification.contradiction_policy": contradiction_policy,
            "verification.max_claims": max_claims,
            "verification.max_input_chars": max_input_chars,
            "retrieval.mode": retrieval,
            "models.reranker": reranker,
            "models.nli": nli,
            "models.allow_download": allow_download,
        },
    )
    if report is not None:
        check_report_path(report)
    text = _read_text(source, config.verification.max_input_chars)
    nli = build_nli(config.models)
    if evidence is not None:
        store = _open_store(config) if (config.corpus.dir / "corpus.sqlite3").exists() else None
        try:
            resolve = None if store is None else (lambda passage_id: store.passage(passage_id).text)
            pack = read_pack(evidence, resolve)
            result = verify_text(
                text, config=config, source=PackEvidence(pack, config.retrieval), nli=nli, query=query or pack.query
            )
        finally:
            if store is not None:
                store.close()
    else:
        with _open_store(config) as store:
            evidence_source = CorpusEvidence(store, config.retrieval, build_retriever(store, config))
            result = verify_text(text, config=config, source=evidence_source, nli=nli, query=query)
    if report is not None:
        write_report(result, report)
    if as_json:
        _print_json(result.model_dump(mode="json"))
    else:
        print_verification(result, details=details)
        if report is not None:
            sys.stdout.write(f"report written to {report}\n")


def _read_text(source: str, max_chars: int) -> str:
    """The text to verify, strictly UTF-8; a size cap checked on bytes before decoding."""
    name = "standard input" if source == "-" else source
    try:
        raw = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except OSError as err:
        raise InputTextError(
            f"cannot read {name}: {err.strerror or err}; pass an existing file or - for stdin"
        ) from None
    if len(raw) > 4 * max_chars:  # 4 bytes is the longest UTF-8 character
        raise InputTextError(
            f"{name} is {len(raw):,} bytes, over verification.max_input_chars={max_chars:,} characters; "
            "split it or raise the limit with --max-input-chars"
        )
    try:
        # "utf-8-sig": a byte-order mark (Windows Notepad writes one) is encoding, not text.
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputTextError(
            f"{name} is not UTF-8 (byte {raw[err.start]:#04x} at offset {err.start}); save it as UTF-8"
        ) from None


@corpus_app.command("list")
def corpus_list(corpus: CorpusOption = None, config_file: ConfigOption = None, as_json: JsonOption = False) -> None:
    """Every document with its latest version, source and passage count."""
    from veriground.reports.terminal import print_documents

    config = _config(config_file, **{"corpus.dir": corpus})
    with _open_store(config) as store:
        documents = store.list_documents()
    if as_json:
        _print_json([document.model_dump(mode="json") for document in documents])
    else:
        print_documents(documents)


@corpus_app.command("show")
def corpus_show(
    doc_id: Annotated[str, typer.Argument(help="Document id, as `corpus list` prints it.")],
    version: Annotated[int | None, typer.Option(help="An older version (default: latest).")] = None,
    corpus: CorpusOption = None,
    config_file: ConfigOption = None,
    as_json: JsonOption = False,
) -> None:
    """One document version: metadata and its passages with ids and offsets."""
    from veriground.reports.terminal import print_document

    config = _config(config_file, **{"corpus.dir": corpus})
    with _open_store(config) as store:
        document = store.document(doc_id, version)
        passages = store.passages_of(doc_id, document.version)
    if as_json:
        _print_json(
            {
                "document": document.model_dump(mode="json"),
                "passages": [passage.model_dump(mode="json") for passage in passages],
            }
        )
    else:
        print_document(document, passages)


@corpus_app.command("passage")
def corpus_passage(
    passage_id: Annotated[str, typer.Argument(help="Passage id, <doc_id>#<hash>.")],
    corpus: CorpusOption = None,
    config_file: ConfigOption = None,
    as_json: JsonOption = False,
) -> None:
    """One passage: its text, document, version and character offsets."""
    from veriground.reports.terminal import print_passage

    config = _config(config_file, **{"corpus.dir": corpus})
    with _open_store(config) as store:
        passage = store.passage(passage_id)
    if as_json:
        _print_json(passage.model_dump(mode="json"))
    else:
        print_passage(passage)


@models_app.command("list")
def models_list(config_file: ConfigOption = None, as_json: JsonOption = False) -> None:
    """Registered backend names per role, the configured ones, and which optional libraries are installed."""
    from veriground.backends.registry import REGISTERED, installed_libraries

    config = _config(config_file)
    data = {
        "configured": config.models.model_dump(mode="json"),
        "registered": REGISTERED,
        "libraries": installed_libraries(),
    }
    if as_json:
        _print_json(data)
        return
    for role, names in REGISTERED.items():
        sys.stdout.write(f"{role}: configured {data['configured'].get(role)!s}\n")
        for name, meaning in names.items():
            sys.stdout.write(f"  {name:<20} {meaning}\n")
    for library, version in data["libraries"].items():
        sys.stdout.write(f"{library:<22} {version or 'not installed'}\n")


@models_app.command("check")
def models_check(
    nli: Annotated[str | None, typer.Option("--nli", help="NLI model to check instead of the configured one.")] = None,
    reranker: RerankerOption = None,
    allow_download: AllowDownloadOption = None,
    config_file: ConfigOption = None,
    as_json: JsonOption = False,
) -> None:
    """Load every configured backend offline and print its model id and weights checksum, or why it failed."""
    from dataclasses import asdict

    from veriground.backends.registry import check_backends

    config = _config(
        config_file, **{"models.nli": nli, "models.reranker": reranker, "models.allow_download": allow_download}
    )
    checks = check_backends(config.models)
    if as_json:
        _print_json([asdict(check) for check in checks])
    else:
        for check in checks:
            if check.ok:
                weights = check.checksum or "rule-based, no weights"
                sys.stdout.write(f"ok      {check.role:<9} {check.name} {check.model_id} sha256 {weights}\n")
            else:
                sys.stdout.write(f"FAILED  {check.role:<9} {check.configured}: {check.problem}\n")
    if not all(check.ok for check in checks):
        raise typer.Exit(5)


@app.command()
def schema() -> None:
    """Print the JSON Schema of every record (`veriground schema > schema.json`)."""
    from veriground.schema import export_json_schema

    _print_json(export_json_schema())


@app.command("config")
def show_config(corpus: CorpusOption = None, config_file: ConfigOption = None) -> None:
    """Print the resolved configuration (file, then VERIGROUND_* env, then flags)."""
    _print_json(_config(config_file, **{"corpus.dir": corpus}).model_dump(mode="json"))


@app.command()
def demo(
    corpus: Annotated[Path, typer.Option("--corpus", help="Where to build the demo corpus.")] = DEMO_CORPUS_DIR,
    top_k: Annotated[int, typer.Option("-k", "--top-k", help="Passages per query.")] = 3,
) -> None:
    """Ingest the bundled demo corpus, search it with the example queries, and verify an example answer."""
    from veriground.backends.registry import build_nli
    from veriground.corpus.ingest import ingest_paths
    from veriground.engine import verify_text
    from veriground.evidence.gather import CorpusEvidence
    from veriground.reports.files import REPORT_SUFFIXES, write_report
    from veriground.reports.terminal import console, print_ingest_summary, print_search_results
    from veriground.reports.verification_view import print_verification
    from veriground.retrieval.search import build_retriever

    config = _config(None, **{"corpus.dir": corpus})
    demo_root = resources.files("veriground") / "demo_corpus"
    with resources.as_file(demo_root) as root, _open_store(config, create=True) as store:
        report = ingest_paths([root], store, config.ingest)
        queries = [line.strip() for line in (root / "QUERIES.txt").read_text().splitlines() if line.strip()]
        retriever = build_retriever(store, config)
        print_ingest_summary(
            report.model_copy(update={"passages_indexed": len(list(store.iter_latest_texts()))}), corpus
        )
        for query in queries:
            print_search_results(query, retriever.retrieve(query, top_k))
        example = (root / DEMO_EXAMPLE_NAME).read_text(encoding="utf-8")
        console.rule(f"Verifying the example answer {DEMO_EXAMPLE_NAME}")
        source = CorpusEvidence(store, config.retrieval, retriever)
        result = verify_text(example, config=config, source=source, nli=build_nli(config.models))
    print_verification(result)
    written = [corpus / f"example-report{suffix}" for suffix in REPORT_SUFFIXES]
    for path in written:
        write_report(result, path)
    console.print("Reports: " + ", ".join(str(path) for path in written))
    console.print(f'Try your own: veriground search "your words" --corpus {corpus}')
    console.print(f"             veriground verify notes.md --corpus {corpus} --report report.html")
    if report.failed:
        raise typer.Exit(1)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and turn every error into a message and an exit code."""
    try:
        # Standalone mode: typer prints usage errors itself and exits 2; typer.Exit(n) exits n.
        app(args=argv, prog_name="veriground")
    except SystemExit as done:
        return done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    except VerigroundError as err:
        sys.stderr.write(f"error: {err}\n")
        return err.exit_code
    except Exception as err:  # noqa: BLE001 - the last line of defence against a user-facing traceback
        if os.environ.get("VERIGROUND_DEBUG"):
            raise
        sys.stderr.write(
            f"internal error: {type(err).__name__}: {err}\n"
            "This is a bug in veriground; rerun with VERIGROUND_DEBUG=1 for the traceback and report it.\n"
        )
        return EXIT_INTERNAL_ERROR
    return 0


if __name__ == "__main__":
    sys.exit(main())
