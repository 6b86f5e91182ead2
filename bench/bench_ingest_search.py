"""Ingest throughput and BM25 query latency as the corpus grows.

    python bench/bench_ingest_search.py [--corpora DIR] [--queries 1000] [--scales 1,4,16]

1. Ingests DIR (default ../shared/datasets/domain-corpora) into a fresh corpus: paragraphs/s, files/s,
   then the no-op re-ingest.
2. Builds BM25 over the corpus replicated 1x, 4x, 16x (same passages, distinct ids) and times the same
   fixed, seeded queries against each: p50/p95 per query and the ratio to 1x, plus build time.
3. End-to-end `BM25Retriever.retrieve` (index + SQLite passage lookup) at 1x, for the overhead.
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from timing import percentile, time_queries

from veriground.config import IngestConfig, RetrievalConfig
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore
from veriground.retrieval.bm25 import BM25Index
from veriground.retrieval.search import BM25Retriever

SEED = 13
TOP_K = 10
DEFAULT_CORPORA = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "domain-corpora"


def make_queries(rows: list[tuple[str, str]], count: int) -> list[str]:
    """Seeded 2-4 word queries cut from real passages (stems are words bm25 knows)."""
    rng = random.Random(SEED)
    queries = []
    while len(queries) < count:
        tokens = rng.choice(rows)[1].split()
        if len(tokens) < 4:
            continue
        length = rng.randint(2, 4)
        start = rng.randrange(0, len(tokens) - length)
        queries.append(" ".join(tokens[start : start + length]))
    return queries


def bench_ingest(corpora: Path, corpus_dir: Path) -> list[tuple[str, str]]:
    with CorpusStore(corpus_dir) as store:
        start = time.perf_counter()
        report = ingest_paths([corpora], store, IngestConfig())
        ingest_s = time.perf_counter() - start
        passages = sum(item.n_passages for item in report.items)
        start = time.perf_counter()
        again = ingest_paths([corpora], store, IngestConfig())
        noop_s = time.perf_counter() - start
        rows = list(store.iter_index_tokens())
    print(f"ingest: {report.added} documents, {passages} paragraphs, {report.failed} failed in {ingest_s:.2f} s")
    print(f"  throughput: {passages / ingest_s:,.0f} paragraphs/s, {report.added / ingest_s:.1f} files/s")
    print(f"  re-ingest (all unchanged: {again.unchanged}): {noop_s:.2f} s ({noop_s / ingest_s:.2%} of first ingest)")
    return rows


def bench_scales(rows: list[tuple[str, str]], queries: list[str], scales: list[int]) -> None:
    base_p50 = base_p95 = None
    print(f"BM25 latency, {len(queries)} queries, top-{TOP_K}:")
    print(f"  {'scale':>5} {'passages':>9} {'build s':>8} {'p50 ms':>7} {'p95 ms':>7} {'p50 x':>6} {'p95 x':>6}")
    for scale in scales:
        replicated = [(f"{pid}~r{copy}", tokens) for copy in range(scale) for pid, tokens in rows]
        start = time.perf_counter()
        index = BM25Index.build(replicated, 0, k1=1.5, b=0.75)
        build_s = time.perf_counter() - start
        timings = time_queries(lambda query, index=index: index.search(query, TOP_K), queries)
        p50, p95 = statistics.median(timings), percentile(timings, 0.95)
        base_p50, base_p95 = base_p50 or p50, base_p95 or p95
        print(
            f"  {scale:>4}x {len(replicated):>9,} {build_s:>8.2f} {p50:>7.2f} {p95:>7.2f} "
            f"{p50 / base_p50:>6.2f} {p95 / base_p95:>6.2f}"
        )
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"  peak RSS of this process: {peak_mb:,.0f} MB")


def bench_end_to_end(corpus_dir: Path, queries: list[str]) -> None:
    with CorpusStore(corpus_dir, create=False) as store:
        retriever = BM25Retriever(store, RetrievalConfig())
        retriever.refresh()
        timings = time_queries(lambda query: retriever.retrieve(query, TOP_K), queries)
    print(
        f"end-to-end retrieve at 1x (index + SQLite lookup): p50 {statistics.median(timings):.2f} ms, "
        f"p95 {percentile(timings, 0.95):.2f} ms"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--scales", default="1,4,16")
    args = parser.parse_args()
    if not args.corpora.is_dir():
        print(f"error: {args.corpora} is not a folder; pass --corpora DIR", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as scratch:
        corpus_dir = Path(scratch) / "corpus"
        rows = bench_ingest(args.corpora, corpus_dir)
        queries = make_queries(rows, args.queries)
        bench_scales(rows, queries, [int(scale) for scale in args.scales.split(",")])
        bench_end_to_end(corpus_dir, queries)
    return 0


if __name__ == "__main__":
    sys.exit(main())
