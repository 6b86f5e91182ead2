"""Recall@5 and MRR of bm25 / dense / hybrid retrieval on SQuAD 2.0 (answerable questions), plus hybrid query
latency as the corpus grows.

    python bench/bench_retrieval_squad2.py [--questions 0] [--scales 10000,100000]

Corpus: every paragraph of ../shared/datasets/squad2 (8 Wikipedia articles), ingested as one document per
article. Gold: the paragraph the question was written on (its passage id). Questions marked impossible are
left out (they have no gold paragraph). The embedder is the configured one (default: bundled MiniLM).
Latency: the same paragraphs' vectors are tiled (with noise, so rows differ) to 10k and 100k rows and the
hybrid path (BM25 over the real corpus + dense matrix product over the tiled one + fusion) is timed per query.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from squad2_data import write_articles

from veriground.backends.registry import build_embedder
from veriground.config import IngestConfig, load_config
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore
from veriground.retrieval.dense import DenseIndex
from veriground.retrieval.fusion import fuse_rankings
from veriground.retrieval.search import CorpusRetriever

K = 5
SEED = 5


def load_squad(folder: Path) -> list[tuple[str, str]]:
    """Write the articles; return (question, gold context) of the answerable questions."""
    return [(item.question, item.context) for item in write_articles(folder) if not item.impossible]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=0, help="first N answerable questions (0: all)")
    parser.add_argument("--scales", default="10000,100000")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        docs = Path(tmp) / "squad2"
        docs.mkdir()
        questions = load_squad(docs)
        if args.questions:
            questions = questions[: args.questions]
        config = load_config(overrides={"corpus.dir": Path(tmp) / "corpus"})
        embedder = build_embedder(config.models)
        with CorpusStore(config.corpus.dir) as store:
            # One paragraph per passage: SQuAD contexts are the unit the gold refers to.
            ingest_paths([docs], store, IngestConfig(min_passage_chars=1, max_passage_chars=100_000))
            by_text = {text: pid for pid, text in store.iter_latest_texts()}
            gold = [by_text.get(context) for _, context in questions]
            missing = sum(1 for item in gold if item is None)
            started = time.perf_counter()
            index = DenseIndex.build(store, embedder)
            embed_seconds = time.perf_counter() - started
            print(
                f"SQuAD 2.0 dev (8 articles): {len(by_text)} paragraphs, {len(questions)} answerable questions"
                f" ({missing} gold paragraphs not found as passages); embedder {embedder.model_id}"
            )
            print(f"embedded {index.embedded_now} paragraphs in {embed_seconds:.1f} s")
            for mode in ("bm25", "dense", "hybrid"):
                retriever = CorpusRetriever(
                    store, config.retrieval.model_copy(update={"mode": mode, "top_k": K}), embedder=embedder
                )
                started = time.perf_counter()
                results = retriever.retrieve_many([q for q, _ in questions])
                seconds = time.perf_counter() - started
                ranks = []
                for chunks, gold_id in zip(results, gold, strict=True):
                    found = [chunk.rank for chunk in chunks if chunk.passage_id == gold_id]
                    ranks.append(found[0] if found else None)
                recall = sum(1 for rank in ranks if rank is not None) / len(ranks)
                mrr = sum(1 / rank for rank in ranks if rank is not None) / len(ranks)
                print(f"  {mode:<7} recall@{K} {recall:.3f}  MRR@{K} {mrr:.3f}  ({len(ranks) / seconds:.0f} queries/s)")
            time_hybrid_latency(store, index, embedder, [q for q, _ in questions][:200], args.scales, config)


def time_hybrid_latency(store, index, embedder, queries, scales, config) -> None:
    """p50 / p95 of one hybrid query with the dense matrix tiled to each scale."""
    retriever = CorpusRetriever(store, config.retrieval.model_copy(update={"mode": "bm25"}))
    bm25 = retriever._bm25.refresh()  # noqa: SLF001 - the bench times the parts the retriever joins
    rng = np.random.default_rng(SEED)
    for scale in (int(value) for value in scales.split(",")):
        reps = -(-scale // len(index.passage_ids))
        matrix = np.tile(index.matrix, (reps, 1))[:scale]
        matrix = matrix + rng.normal(0, 0.01, matrix.shape).astype(np.float32)
        matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
        ids = [f"{pid}~{i}" for i in range(reps) for pid in index.passage_ids][:scale]
        tiled = DenseIndex(ids, matrix, index.generation, index.model_key)
        timings = []
        for query in queries:
            started = time.perf_counter()
            vector = embedder.encode([query])[0]
            fuse_rankings(
                [
                    [hit.passage_id for hit in bm25.search(query, 40)],
                    [hit.passage_id for hit in tiled.search(vector, 40)],
                ],
                config.retrieval.rrf_k,
            )
            timings.append(time.perf_counter() - started)
        p50 = statistics.median(timings) * 1000
        p95 = statistics.quantiles(timings, n=20)[-1] * 1000
        print(f"  hybrid query at {scale:>7,} passages: p50 {p50:.1f} ms, p95 {p95:.1f} ms (incl. query embedding)")


if __name__ == "__main__":
    main()
