"""The `veriground` command line: parses flags, resolves config, calls a stage, prints records.

`main` is the one error boundary: VerigroundError -> one line on stderr and its exit code; no tracebacks.
"""

from __future__ import annotations

import json
import os
import sys
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

import typer

from veriground.config import Config, load_config
from veriground.errors import VerigroundError

app = typer.Typer(
    name="veriground",
    help="Cited-or-silent answers and claim-by-claim verification against a local corpus.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
corpus_app = typer.Typer(help="Inspect the corpus: documents, versions and passages.", no_args_is_help=True)
app.add_typer(corpus_app, name="corpus")

EXIT_INTERNAL_ERROR = 70  # sysexits.h EX_SOFTWARE
DEMO_CORPUS_DIR = Path(".veriground-demo")

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


def _config(config_file: Path | None, **overrides: Any) -> Config:
    return load_config(config_file, overrides)


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n")


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
    corpus: CorpusOption = None,
    config_file: ConfigOption = None,
    as_json: JsonOption = False,
) -> None:
    """BM25 search over the latest version of every document."""
    from veriground.reports.terminal import print_search_results
    from veriground.retrieval.search import BM25Retriever

    config = _config(config_file, **{"corpus.dir": corpus, "retrieval.top_k": top_k})
    with _open_store(config) as store:
        chunks = BM25Retriever(store, config.retrieval).retrieve(query)
    if as_json:
        _print_json([chunk.model_dump(mode="json") for chunk in chunks])
    else:
        print_search_results(query, chunks)


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
    """Ingest the bundled demo corpus and search it with the example queries."""
    from veriground.corpus.ingest import ingest_paths
    from veriground.reports.terminal import console, print_ingest_summary, print_search_results
    from veriground.retrieval.search import BM25Retriever

    config = _config(None, **{"corpus.dir": corpus})
    demo_root = resources.files("veriground") / "demo_corpus"
    with resources.as_file(demo_root) as root, _open_store(config, create=True) as store:
        report = ingest_paths([root], store, config.ingest)
        queries = [line.strip() for line in (root / "QUERIES.txt").read_text().splitlines() if line.strip()]
        retriever = BM25Retriever(store, config.retrieval)
        report = report.model_copy(update={"passages_indexed": len(retriever.refresh().passage_ids)})
        print_ingest_summary(report, corpus)
        for query in queries:
            print_search_results(query, retriever.retrieve(query, top_k))
    console.print(f'Try your own: veriground search "your words" --corpus {corpus}')
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
