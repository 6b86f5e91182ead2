"""`ingest`, `search` and `corpus list|show|passage|remove`: build the corpus, look inside it, remove documents."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from veriground.cli import options
from veriground.cli.app import app, corpus_app, open_workspace, print_json


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders to ingest.")],
    corpus: options.Corpus = None,
    config_file: options.ConfigFile = None,
    source_type: Annotated[
        str | None,
        typer.Option(help="Label every document: textbook, policy, …"),
        options.ConfigKey("ingest.source_type"),
    ] = None,
    source_id: Annotated[
        str | None,
        typer.Option(help="Count every document as this one source."),
        options.ConfigKey("ingest.source_id"),
    ] = None,
    max_file_mb: Annotated[
        float | None, typer.Option(help="Refuse files larger than this."), options.ConfigKey("ingest.max_file_mb")
    ] = None,
    prune: Annotated[
        bool,
        typer.Option(
            "--prune", help="Remove documents of the given folders whose files are gone (history stays readable)."
        ),
    ] = False,
    include_meta_files: Annotated[
        bool | None,
        typer.Option(
            "--include-meta-files/--skip-meta-files",
            help="Also ingest LICENSE*, COPYING*, NOTICE*, SOURCE.md and ATTRIBUTION.md files found in folders "
            "(config ingest.include_meta_files, default off: they are skipped and counted).",
        ),
        options.ConfigKey("ingest.include_meta_files"),
    ] = None,
    retrieval: options.Retrieval = None,
    runtime: options.Runtime = None,
    as_json: options.Json = False,
) -> None:
    """Ingest files (.txt .md .html .pdf .tex .ptx .jsonl) into the corpus; unchanged files are skipped.

    With --retrieval dense or hybrid (config retrieval.mode) the new passages are embedded too, so searches
    find their vectors ready.

    Licence and provenance files in a folder are skipped unless --include-meta-files."""
    from veriground.cli.index_command import build_dense_vectors
    from veriground.cli.progress import progress_bar
    from veriground.reports.terminal import print_ingest_item, print_ingest_summary

    with (
        open_workspace(ingest, locals()) as workspace,
        progress_bar("Ingesting files", enabled=not as_json) as on_progress,
    ):
        config = workspace.config
        on_item = None if as_json else print_ingest_item
        report = workspace.ingest(paths, prune=prune, on_item=on_item, on_progress=on_progress, embed=False)
        dense = None
        if config.retrieval.mode != "bm25":  # embedded here, with a progress bar and the timings printed
            dense = build_dense_vectors(workspace.store, config, show_progress=not as_json)
    if as_json:
        print_json(report.model_dump(mode="json"))
    else:
        print_ingest_summary(report, config.corpus.dir)
        if dense is not None:
            from veriground.cli.index_command import print_dense_summary

            print_dense_summary(dense)
    if report.failed:
        raise typer.Exit(1)


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="Words to search for.")],
    top_k: options.SearchTopK = None,
    retrieval: options.Retrieval = None,
    reranker: options.Reranker = None,
    runtime: options.Runtime = None,
    allow_download: options.AllowDownload = None,
    evidence_kinds: options.EvidenceKinds = None,
    corpus: options.Corpus = None,
    config_file: options.ConfigFile = None,
    as_json: options.Json = False,
) -> None:
    """Search the latest version of every document (BM25 by default; dense or hybrid with --retrieval).

    Only text passages are returned unless --evidence-kinds names more (exercise, quiz, glossary, heading)."""
    from veriground.reports.terminal import print_search_results

    with open_workspace(search, locals()) as workspace:
        chunks = workspace.search(query)
        notes = workspace.retriever.notes
    for note in notes:
        sys.stderr.write(f"warning: {note}\n")
    if as_json:
        print_json([chunk.model_dump(mode="json") for chunk in chunks])
    else:
        print_search_results(query, chunks)


@corpus_app.command("list")
def corpus_list(
    corpus: options.Corpus = None,
    config_file: options.ConfigFile = None,
    removed: Annotated[bool, typer.Option("--removed", help="Also list removed documents.")] = False,
    wide: Annotated[
        bool, typer.Option("--wide", help="One table row per document whatever the terminal width (for grep).")
    ] = False,
    as_json: options.Json = False,
) -> None:
    """Every document with its full id, latest version, source and passage count.

    Ids are never cut: a table too wide for the terminal becomes one block per document."""
    from veriground.reports.terminal import print_documents

    with open_workspace(corpus_list, locals()) as workspace:
        documents = workspace.store.list_documents(include_deleted=removed)
    if as_json:
        print_json([document.model_dump(mode="json") for document in documents])
    else:
        print_documents(documents, wide=wide)


@corpus_app.command("show")
def corpus_show(
    doc_id: Annotated[str, typer.Argument(help="Document id, as `corpus list` prints it.")],
    version: Annotated[int | None, typer.Option(help="An older version (default: latest).")] = None,
    corpus: options.Corpus = None,
    config_file: options.ConfigFile = None,
    as_json: options.Json = False,
) -> None:
    """One document version: metadata and its passages with ids and offsets."""
    from veriground.reports.terminal import print_document

    with open_workspace(corpus_show, locals()) as workspace:
        document = workspace.store.document(doc_id, version)
        passages = workspace.store.passages_of(doc_id, document.version)
    if as_json:
        print_json(
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
    corpus: options.Corpus = None,
    config_file: options.ConfigFile = None,
    as_json: options.Json = False,
) -> None:
    """One passage: its text, document, version and character offsets."""
    from veriground.reports.terminal import print_passage

    with open_workspace(corpus_passage, locals()) as workspace:
        passage = workspace.store.passage(passage_id)
    if as_json:
        print_json(passage.model_dump(mode="json"))
    else:
        print_passage(passage)


@corpus_app.command("remove")
def corpus_remove(
    doc_ids: Annotated[list[str], typer.Argument(help="Document ids, as `corpus list` prints them.")],
    corpus: options.Corpus = None,
    config_file: options.ConfigFile = None,
    as_json: options.Json = False,
) -> None:
    """Remove documents: each gets a tombstone version, so search and verify stop using it while
    `corpus show DOC_ID --version N` still prints every older version."""
    from veriground.reports.terminal import print_removed

    removed: list[tuple[str, int, bool]] = []
    with open_workspace(corpus_remove, locals()) as workspace:
        store = workspace.store
        for doc_id in doc_ids:
            store.document(doc_id)  # every id must exist before any is removed
        for doc_id in dict.fromkeys(doc_ids):
            removed.append((doc_id, *store.remove_document(doc_id)))
    if as_json:
        print_json([{"doc_id": doc_id, "version": version, "removed_now": now} for doc_id, version, now in removed])
    else:
        for doc_id, version, now in removed:
            print_removed(doc_id, version, now)
