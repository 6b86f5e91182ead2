"""`ingest`, `search` and `corpus list|show|passage|remove`: build the corpus, look inside it, remove documents."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from veriground.cli.app import (
    AllowDownloadOption,
    ConfigOption,
    CorpusOption,
    EvidenceKindsOption,
    JsonOption,
    RerankerOption,
    RetrievalOption,
    RuntimeOption,
    app,
    config_from,
    corpus_app,
    model_overrides,
    open_store,
    print_json,
)


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders to ingest.")],
    corpus: CorpusOption = None,
    config_file: ConfigOption = None,
    source_type: Annotated[str | None, typer.Option(help="Label every document: textbook, policy, …")] = None,
    source_id: Annotated[str | None, typer.Option(help="Count every document as this one source.")] = None,
    max_file_mb: Annotated[float | None, typer.Option(help="Refuse files larger than this.")] = None,
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
    ] = None,
    retrieval: RetrievalOption = None,
    runtime: RuntimeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Ingest files (.txt .md .html .pdf .tex .ptx .jsonl) into the corpus; unchanged files are skipped.

    With --retrieval dense or hybrid (config retrieval.mode) the new passages are embedded too, so searches
    find their vectors ready.

    Licence and provenance files in a folder are skipped unless --include-meta-files."""
    from veriground.cli.progress import progress_bar
    from veriground.corpus.ingest import ingest_paths
    from veriground.reports.terminal import print_ingest_item, print_ingest_summary
    from veriground.retrieval.search import BM25Retriever

    config = config_from(
        config_file,
        **{
            "corpus.dir": corpus,
            "ingest.source_type": source_type,
            "ingest.source_id": source_id,
            "ingest.max_file_mb": max_file_mb,
            "ingest.include_meta_files": include_meta_files,
            **model_overrides(retrieval=retrieval, runtime=runtime),
        },
    )
    with (
        open_store(config, create=True) as store,
        progress_bar("Ingesting files", enabled=not as_json) as on_progress,
    ):
        report = ingest_paths(
            paths,
            store,
            config.ingest,
            on_item=None if as_json else print_ingest_item,
            prune=prune,
            on_progress=on_progress,
        )
        indexed = len(BM25Retriever(store, config.retrieval).refresh().passage_ids)
        dense = None
        if config.retrieval.mode != "bm25":
            from veriground.cli.index_command import build_dense_vectors

            dense = build_dense_vectors(store, config, show_progress=not as_json)
    report = report.model_copy(update={"passages_indexed": indexed})
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
    top_k: Annotated[int | None, typer.Option("-k", "--top-k", help="How many passages.")] = None,
    retrieval: RetrievalOption = None,
    reranker: RerankerOption = None,
    runtime: RuntimeOption = None,
    allow_download: AllowDownloadOption = None,
    evidence_kinds: EvidenceKindsOption = None,
    corpus: CorpusOption = None,
    config_file: ConfigOption = None,
    as_json: JsonOption = False,
) -> None:
    """Search the latest version of every document (BM25 by default; dense or hybrid with --retrieval).

    Only text passages are returned unless --evidence-kinds names more (exercise, quiz, glossary, heading)."""
    from veriground.reports.terminal import print_search_results
    from veriground.retrieval.search import build_retriever

    config = config_from(
        config_file,
        **{
            "corpus.dir": corpus,
            "retrieval.top_k": top_k,
            **model_overrides(
                retrieval=retrieval,
                reranker=reranker,
                runtime=runtime,
                allow_download=allow_download,
                evidence_kinds=evidence_kinds,
            ),
        },
    )
    with open_store(config) as store:
        retriever = build_retriever(store, config)
        chunks = retriever.retrieve(query)
    for note in retriever.notes:
        sys.stderr.write(f"warning: {note}\n")
    if as_json:
        print_json([chunk.model_dump(mode="json") for chunk in chunks])
    else:
        print_search_results(query, chunks)


@corpus_app.command("list")
def corpus_list(
    corpus: CorpusOption = None,
    config_file: ConfigOption = None,
    removed: Annotated[bool, typer.Option("--removed", help="Also list removed documents.")] = False,
    wide: Annotated[
        bool, typer.Option("--wide", help="One table row per document whatever the terminal width (for grep).")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Every document with its full id, latest version, source and passage count.

    Ids are never cut: a table too wide for the terminal becomes one block per document."""
    from veriground.reports.terminal import print_documents

    config = config_from(config_file, **{"corpus.dir": corpus})
    with open_store(config) as store:
        documents = store.list_documents(include_deleted=removed)
    if as_json:
        print_json([document.model_dump(mode="json") for document in documents])
    else:
        print_documents(documents, wide=wide)


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

    config = config_from(config_file, **{"corpus.dir": corpus})
    with open_store(config) as store:
        document = store.document(doc_id, version)
        passages = store.passages_of(doc_id, document.version)
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
    corpus: CorpusOption = None,
    config_file: ConfigOption = None,
    as_json: JsonOption = False,
) -> None:
    """One passage: its text, document, version and character offsets."""
    from veriground.reports.terminal import print_passage

    config = config_from(config_file, **{"corpus.dir": corpus})
    with open_store(config) as store:
        passage = store.passage(passage_id)
    if as_json:
        print_json(passage.model_dump(mode="json"))
    else:
        print_passage(passage)


@corpus_app.command("remove")
def corpus_remove(
    doc_ids: Annotated[list[str], typer.Argument(help="Document ids, as `corpus list` prints them.")],
    corpus: CorpusOption = None,
    config_file: ConfigOption = None,
    as_json: JsonOption = False,
) -> None:
    """Remove documents: each gets a tombstone version, so search and verify stop using it while
    `corpus show DOC_ID --version N` still prints every older version."""
    from veriground.reports.terminal import print_removed

    config = config_from(config_file, **{"corpus.dir": corpus})
    removed = []
    with open_store(config) as store:
        for doc_id in doc_ids:
            store.document(doc_id)  # every id must exist before any is removed
        for doc_id in dict.fromkeys(doc_ids):
            version, written = store.remove_document(doc_id)
            removed.append({"doc_id": doc_id, "version": version, "removed_now": written})
    if as_json:
        print_json(removed)
    else:
        for entry in removed:
            print_removed(entry["doc_id"], entry["version"], entry["removed_now"])
