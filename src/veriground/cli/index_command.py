"""`index`: bring the corpus's search indexes up to date (BM25 always; dense vectors with --dense), with a progress
bar while passages are embedded. `ingest` calls `build_dense_vectors` too when retrieval.mode is dense or hybrid."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from veriground.cli import options
from veriground.cli.app import app, open_workspace, print_json
from veriground.config import Config

if TYPE_CHECKING:
    from veriground.corpus.store import CorpusStore


def build_dense_vectors(store: CorpusStore, config: Config, *, show_progress: bool) -> dict[str, object]:
    """Embed the latest passages that have no vector for models.embedder and save the matrix; returns what was done."""
    import time

    from veriground.backends.registry import build_embedder
    from veriground.cli.progress import progress_bar
    from veriground.retrieval.search import CorpusRetriever

    embedder = build_embedder(config.models)
    retriever = CorpusRetriever(store, config.retrieval.model_copy(update={"mode": "dense"}), embedder=embedder)
    started = time.perf_counter()
    with progress_bar("Embedding passages", enabled=show_progress) as on_progress:
        index = retriever.build_dense_index(on_progress)
    seconds = time.perf_counter() - started
    return {
        "embedder": embedder.name,
        "model_id": embedder.model_id,
        "passages": len(index.passage_ids),
        "embedded_now": index.embedded_now,
        "seconds": round(seconds, 3),
        "passages_per_second": round(index.embedded_now / seconds, 1) if index.embedded_now and seconds else None,
        # An ANN index is built from retrieval.ann_min_passages passages; the note says why a large one has none.
        "ann_index": index.ann is not None,
        "notes": list(retriever.notes),
    }


def print_dense_summary(done: dict[str, object]) -> None:
    rate = f" ({done['passages_per_second']} passages/s)" if done["passages_per_second"] else ""
    sys.stdout.write(
        f"dense vectors: {done['passages']} passages, {done['embedded_now']} embedded now in "
        f"{done['seconds']} s{rate} by {done['embedder']} ({done['model_id']})"
        + ("; ANN index built" if done["ann_index"] else "")
        + "\n"
    )
    notes = done["notes"]
    for note in notes if isinstance(notes, list) else ():
        sys.stdout.write(f"note: {note}\n")


@app.command()
def index(
    dense: Annotated[
        bool, typer.Option("--dense", help="Also embed passages for dense and hybrid search (models.embedder).")
    ] = False,
    runtime: options.Runtime = None,
    allow_download: options.AllowDownload = None,
    corpus: options.Corpus = None,
    config_file: options.ConfigFile = None,
    as_json: options.Json = False,
) -> None:
    """Bring the search indexes up to date: BM25 always, dense vectors with --dense (only passages not yet embedded).

    Searches never embed the corpus: with --retrieval dense or hybrid they need the vectors this builds."""
    with open_workspace(index, locals()) as workspace:
        store, config = workspace.store, workspace.config
        bm25_passages = workspace.refresh_bm25()
        vectors = build_dense_vectors(store, config, show_progress=not as_json) if dense else None
    if as_json:
        print_json({"bm25_passages": bm25_passages, **({"dense": vectors} if vectors is not None else {})})
        return
    sys.stdout.write(f"bm25: {bm25_passages} passages indexed\n")
    if vectors is not None:
        print_dense_summary(vectors)
