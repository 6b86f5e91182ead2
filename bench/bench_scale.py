"""Corpus scale: ingest, index and search a synthetic corpus of 10^4 .. 10^6 passages, and verify against it.

    python bench/bench_scale.py [--sizes 10000,100000] [--queries 200] [--claims 60] [--embedder synthetic|minilm]
                                [--embed-sample 300] [--keep DIR [--reuse]] [--matrix-sizes 1000000]

The corpus (bench/scale_corpus.py) is paraphrased paragraphs of ../shared/datasets/domain-corpora, written as Markdown
files of 50 paragraphs and ingested through the real ingest path.

Per size it reports: ingest passages/s, BM25 build seconds, dense matrix and ANN index build seconds, the corpus
directory's size on disk (SQLite, BM25, dense matrix, ANN index), the process's peak RSS; query p50/p95 (ms) for
BM25, dense and hybrid retrieval through the full CorpusRetriever path (index, fusion, passage lookup), dense and
hybrid each with exact search and with the ANN index (below retrieval.ann_min_passages the bench builds one itself; the
default there is exact); recall@10 of ANN dense search against exact; the hybrid query split into its parts (query
embedding, BM25 half, dense half, the rest: fusion and passage lookup); and `verify` claims/s with the lexical NLI
(a note of --claims sentences taken from the corpus, every third one with a number changed).

Dense vectors: `--embedder synthetic` (the default) is a hashed bag of words (scale_corpus.SyntheticEmbedder): the
shape and bytes of MiniLM's vectors with a neighbour structure, so ANN recall means something, without spending
hours embedding 10^6 passages on 2 cores; the real MiniLM embedder's rate is measured separately on --embed-sample
passages (int8 ONNX, the ingest default when it loads, else torch). `--embedder minilm` embeds every passage for
real (about 160-200 passages/s on an idle 2-core machine, 10-50 on a busy one). `--matrix-sizes` times exact dense
search alone over a memory-mapped matrix of that many seeded random unit vectors.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scale_corpus import (
    CORPORA,
    DIMENSION,
    SEED,
    SyntheticEmbedder,
    make_note,
    make_queries,
    read_paragraphs,
    synthetic_passages,
    write_files,
)
from timing import percentile, time_queries

from veriground.config import RetrievalConfig, load_config
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore
from veriground.engine import verify_text
from veriground.evidence.gather import CorpusEvidence
from veriground.retrieval import ann
from veriground.retrieval.ann import AnnIndex
from veriground.retrieval.dense import DenseIndex
from veriground.retrieval.search import BM25Retriever, CorpusRetriever

# (label, retrieval.mode, search with the ANN index)
QUERY_ROWS = (
    ("bm25", "bm25", False),
    ("dense exact", "dense", False),
    ("dense ann", "dense", True),
    ("hybrid exact", "hybrid", False),
    ("hybrid ann", "hybrid", True),
)
RECALL_AT = 10


def real_embedder(config) -> object:
    """MiniLM as ingest builds it: int8 ONNX when that loads, else the configured runtime."""
    from veriground.backends.registry import build_embedder

    try:
        return build_embedder(config.models.model_copy(update={"runtime": "onnx", "quantize": True}))
    except Exception as err:  # an export that cannot run here: fall back to what the config says
        print(f"  (int8 ONNX embedder unavailable: {err}; using models.runtime={config.models.runtime})")
        return build_embedder(config.models)


def time_calls(call: Callable[[str], object], queries: list[str]) -> tuple[float, float]:
    """p50 and p95 ms of `call(query)` over the queries, after one untimed call (index loading is a one-time cost,
    reported by the build rows)."""
    call(queries[0])
    timings = time_queries(call, queries)
    return percentile(timings, 0.5), percentile(timings, 0.95)


def folder_bytes(root: Path) -> int:
    return sum(path.stat().st_size for path in root.rglob("*") if path.is_file())


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes


def ingest_corpus(store: CorpusStore, root: Path, passages: list[str], config, reuse: bool) -> float:
    """Seconds to write and ingest the files (0 when an ingested corpus is reused)."""
    if reuse and store.generation > 0:
        return 0.0
    write_files(passages, root)
    started = time.perf_counter()
    report = ingest_paths([root], store, config.ingest)
    if report.failed:
        raise SystemExit(f"{report.failed} synthetic files failed to ingest")
    return time.perf_counter() - started


def build_dense(store: CorpusStore, config, embedder, row: dict[str, float]) -> None:
    """The matrix (timed alone), then the ANN index (timed alone, whatever the size), saved with it."""
    matrix_only = config.retrieval.model_copy(update={"ann_min_passages": None})
    started = time.perf_counter()
    index = CorpusRetriever(store, matrix_only, embedder=embedder).build_dense_index()
    row["dense_build_s"] = time.perf_counter() - started
    row["embedded"] = index.embedded_now
    if ann.load_faiss() is None:
        raise SystemExit("faiss is not installed: pip install 'veriground[ann]'")
    started = time.perf_counter()
    index.ann = AnnIndex.build(index.matrix)
    row["ann_build_s"] = time.perf_counter() - started
    index.save(store.corpus_dir)


def retriever_for(store: CorpusStore, config, mode: str, embedder, use_ann: bool) -> CorpusRetriever:
    retriever = CorpusRetriever(
        store, config.retrieval.model_copy(update={"mode": mode}), embedder=None if mode == "bm25" else embedder
    )
    if mode != "bm25" and not use_ann:
        retriever.dense_index().ann = None  # this retriever's own copy of the saved index
    return retriever


def ann_recall(index: DenseIndex, vectors: np.ndarray) -> float:
    """Mean share of the exact top RECALL_AT passages that the ANN search returns too."""
    found = 0
    for vector in vectors:
        exact = {hit.passage_id for hit in index.search(vector, RECALL_AT, exact=True)}
        found += len(exact & {hit.passage_id for hit in index.search(vector, RECALL_AT)})
    return found / (RECALL_AT * len(vectors))


def time_hybrid_parts(store, config, embedder, index: DenseIndex, queries: list[str], row: dict[str, float]) -> None:
    """p50 ms of each part of a hybrid query with the ANN index: the query embedding, the BM25 half, the dense half
    (both as deep as hybrid asks), and the rest (fusion and the passage lookup) as the hybrid p50 minus those."""
    pool = 2 * config.retrieval.top_k
    bm25 = BM25Retriever(store, config.retrieval)
    vectors = {query: embedder.encode([query])[0] for query in queries}
    row["part_embed_ms"] = time_calls(lambda query: embedder.encode([query]), queries)[0]
    row["part_bm25_ms"] = time_calls(lambda query: bm25.search_ids(query, pool), queries)[0]
    row["part_dense_ms"] = time_calls(lambda query: index.search(vectors[query], pool), queries)[0]
    parts = row["part_embed_ms"] + row["part_bm25_ms"] + row["part_dense_ms"]
    row["part_rest_ms"] = max(0.0, row["hybrid ann_p50_ms"] - parts)


def run_size(size: int, paragraphs: list[str], args: argparse.Namespace, work: Path) -> dict[str, float]:
    root, corpus = work / f"files-{size}", work / f"corpus-{size}"
    passages = synthetic_passages(paragraphs, size)
    # The bench builds the ANN index at every size (timed apart), so its retrievers keep it at every size.
    overrides = {"corpus.dir": corpus, "retrieval.top_k": 5, "retrieval.ann_min_passages": 1}
    config = load_config(overrides=overrides, environ={})
    row: dict[str, float] = {"passages": size}
    with CorpusStore(corpus) as store:
        row["ingest_s"] = ingest_corpus(store, root, passages, config, args.reuse)
        started = time.perf_counter()
        row["indexed"] = len(BM25Retriever(store, config.retrieval).refresh().passage_ids)
        row["bm25_build_s"] = time.perf_counter() - started
        embedder = SyntheticEmbedder() if args.embedder == "synthetic" else real_embedder(config)
        build_dense(store, config, embedder, row)
        row["disk_mb"] = folder_bytes(corpus) / 2**20
        queries = make_queries(passages, args.queries)
        for label, mode, use_ann in QUERY_ROWS:
            retriever = retriever_for(store, config, mode, embedder, use_ann)
            row[f"{label}_p50_ms"], row[f"{label}_p95_ms"] = time_calls(retriever.retrieve, queries)
        index = CorpusRetriever(store, config.retrieval, embedder=embedder).dense_index()
        row["ann_recall"] = ann_recall(index, embedder.encode(queries))
        time_hybrid_parts(store, config, embedder, index, queries, row)
        note = make_note(passages, args.claims)
        source = CorpusEvidence(store, config.retrieval)
        verify_text(note, config=config, source=source, nli=_lexical(config))  # one-time loading
        started = time.perf_counter()
        verified = verify_text(note, config=config, source=source, nli=_lexical(config))
        row["verify_claims_per_s"] = len(verified.claims) / (time.perf_counter() - started)
    row["peak_rss_mb"] = peak_rss_mb()
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(corpus, ignore_errors=True)
    return row


def print_row(size: int, row: dict[str, float], embedder: str) -> None:
    ingest = (
        f"ingest {size / row['ingest_s']:.0f} passages/s ({row['ingest_s']:.0f} s)" if row["ingest_s"] else "reused"
    )
    threshold = RetrievalConfig().ann_min_passages
    default = "ann" if threshold is not None and size >= threshold else "exact"
    print(
        f"{size:,} passages ({int(row['indexed']):,} indexed): {ingest}; BM25 build {row['bm25_build_s']:.1f} s; "
        f"dense matrix {row['dense_build_s']:.1f} s ({int(row['embedded']):,} embedded, {embedder}); ANN index "
        f"{row['ann_build_s']:.1f} s (default dense search here: {default}); on disk {row['disk_mb']:.0f} MB; "
        f"peak RSS {row['peak_rss_mb']:.0f} MB",
        flush=True,
    )
    print(
        "  query p50/p95 ms: "
        + ", ".join(f"{label} {row[f'{label}_p50_ms']:.1f}/{row[f'{label}_p95_ms']:.1f}" for label, _, _ in QUERY_ROWS)
        + f"; ANN recall@{RECALL_AT} vs exact {row['ann_recall']:.3f}",
        flush=True,
    )
    print(
        f"  hybrid ann p50 parts ms: query embedding {row['part_embed_ms']:.1f}, BM25 {row['part_bm25_ms']:.1f}, "
        f"dense {row['part_dense_ms']:.1f}, fusion + passage lookup {row['part_rest_ms']:.1f}; "
        f"verify (lexical NLI) {row['verify_claims_per_s']:.1f} claims/s",
        flush=True,
    )


def _lexical(config):
    from veriground.backends.registry import build_nli

    return build_nli(config.models.model_copy(update={"nli": "lexical"}))


def embed_rate(paragraphs: list[str], sample: int) -> tuple[str, float]:
    config = load_config(overrides={}, environ={})
    embedder = real_embedder(config)
    texts = paragraphs[:: max(1, len(paragraphs) // sample)][:sample]
    embedder.encode(texts[:16])  # first-call allocation, untimed
    started = time.perf_counter()
    embedder.encode(texts)
    return f"{embedder.name} ({embedder.model_id})", len(texts) / (time.perf_counter() - started)


def time_matrix_search(size: int, queries: int, work: Path) -> tuple[float, float, float]:
    """Exact dense search alone over a memory-mapped `size` x 384 float32 matrix of seeded unit vectors (no corpus):
    (p50 ms, p95 ms, file MB). What the dense half of a hybrid query costs without an ANN index."""
    path = work / f"matrix-{size}.npy"
    matrix = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(size, DIMENSION))
    rng = np.random.default_rng(SEED)
    for start in range(0, size, 100_000):
        block = rng.standard_normal((min(100_000, size - start), DIMENSION)).astype(np.float32)
        matrix[start : start + len(block)] = block / np.linalg.norm(block, axis=1, keepdims=True)
    matrix.flush()
    del matrix
    index = DenseIndex([f"p{row}" for row in range(size)], np.load(path, mmap_mode="r"), 0, "synthetic")
    vectors = rng.standard_normal((queries, DIMENSION)).astype(np.float32)
    index.search(vectors[0], 10)  # page the matrix in once
    timings = time_queries(lambda vector: index.search(vector, 10), vectors)
    megabytes = path.stat().st_size / 2**20
    path.unlink()
    return percentile(timings, 0.5), percentile(timings, 0.95), megabytes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated passage counts, e.g. 10000,1000000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--claims", type=int, default=60)
    parser.add_argument("--embedder", choices=("synthetic", "minilm"), default="synthetic")
    parser.add_argument("--embed-sample", type=int, default=300, help="passages to time MiniLM on (0: skip)")
    parser.add_argument("--keep", type=Path, default=None, help="build under this folder and keep it")
    parser.add_argument("--reuse", action="store_true", help="with --keep: search a corpus already ingested there")
    parser.add_argument(
        "--matrix-sizes", default="", help="also time exact dense search alone over random matrices, e.g. 1000000"
    )
    args = parser.parse_args()
    paragraphs = read_paragraphs(CORPORA)
    print(f"{len(paragraphs)} source paragraphs from {CORPORA}", flush=True)
    if args.embed_sample:
        name, rate = embed_rate(paragraphs, args.embed_sample)
        print(f"MiniLM embedding rate: {rate:.0f} passages/s on {args.embed_sample} passages, {name}", flush=True)
    work_dir = args.keep or Path(tempfile.mkdtemp(prefix="bench-scale-"))
    for size in (int(part) for part in args.matrix_sizes.split(",") if part):
        p50, p95, megabytes = time_matrix_search(size, args.queries, work_dir)
        print(
            f"exact dense search alone, {size:,} x {DIMENSION} float32 memory-mapped ({megabytes:.0f} MB): "
            f"p50 {p50:.1f} ms, p95 {p95:.1f} ms",
            flush=True,
        )
    for size in (int(part) for part in args.sizes.split(",") if part):
        print_row(size, run_size(size, paragraphs, args, work_dir), args.embedder)
    if not args.keep:
        work_dir.rmdir()  # each size removed its own files


if __name__ == "__main__":
    main()
