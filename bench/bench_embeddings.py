"""Embedding throughput of the bundled all-MiniLM-L6-v2 on torch, ONNX fp32 and ONNX int8, and what int8 costs.

    python bench/bench_embeddings.py [--passages 2000] [--queries 200] [--batch-size 32] [--threads 2] [--rounds 5]

Passages are paragraphs of 200-1500 characters from the .md files of ../shared/datasets/domain-corpora (split
on blank lines, files in sorted order), taken evenly spaced; the queries are other paragraphs, also evenly
spaced. Every runtime gets the same threads (torch.set_num_threads, onnxruntime intra-op threads). Timing is
interleaved: each round gives every runtime the same strided slice of the passages, and the median round is
reported with the range, because a shared virtual machine's speed drifts by 2x within minutes.

The int8 embedder runs one text at a time by design (dynamic quantisation scales activations over the whole
batch, so a batched vector would depend on its neighbours); it is also timed at --batch-size, and torch and
fp32 at batch size 1, for comparison. Quality is against torch: cosine per passage, and the share of each
query's top-10 neighbours among the passages that stay the same.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
from scale_corpus import read_paragraphs  # the paragraphs bench_scale.py builds its corpus from

from veriground.backends.sentence_embedder import OnnxEmbedder, SentenceTransformerEmbedder

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "domain-corpora"
TOP_K = 10
WARM_UP_TEXTS = 64


def split_evenly(paragraphs: list[str], passages: int, queries: int) -> tuple[list[str], list[str]]:
    """`passages` evenly spaced paragraphs, and `queries` evenly spaced among the others."""
    if passages + queries > len(paragraphs):
        raise SystemExit(f"only {len(paragraphs)} paragraphs in {CORPORA}; ask for fewer")
    chosen = {index * len(paragraphs) // passages for index in range(passages)}
    rest = [paragraph for index, paragraph in enumerate(paragraphs) if index not in chosen]
    return [paragraphs[index] for index in sorted(chosen)], [rest[i * len(rest) // queries] for i in range(queries)]


def run_interleaved(configs, passages: list[str], queries: list[str], rounds: int):
    """Vectors of every config, and its texts/s in each round. Each round encodes a strided slice of the
    passages with every config in turn, so a noisy neighbour on the machine slows all of them alike."""
    for _, embedder, size in configs:  # one-time costs (first-call allocation, thread pools) untimed
        embedder.batch_size = size
        embedder.encode(passages[:WARM_UP_TEXTS])
    vectors = {label: np.zeros((len(passages), embedder.dimension), np.float32) for label, embedder, _ in configs}
    rates: dict[str, list[float]] = {label: [] for label, _, _ in configs}
    for start in range(rounds):
        rows = list(range(start, len(passages), rounds))
        texts = [passages[row] for row in rows]
        for label, embedder, size in configs:
            embedder.batch_size = size
            began = time.perf_counter()
            vectors[label][rows] = embedder.encode(texts)
            rates[label].append(len(texts) / (time.perf_counter() - began))
    for label, embedder, size in configs:
        embedder.batch_size = size
        vectors[label + "/queries"] = embedder.encode(queries)
    return vectors, rates


def top_k_overlap(queries_a, passages_a, queries_b, passages_b) -> float:
    """Mean share of each query's top-k passages under embedding A that are also its top-k under B."""
    top_a = np.argsort(-(queries_a @ passages_a.T), axis=1)[:, :TOP_K]
    top_b = np.argsort(-(queries_b @ passages_b.T), axis=1)[:, :TOP_K]
    return float(np.mean([len(set(a) & set(b)) / TOP_K for a, b in zip(top_a, top_b, strict=True)]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=2000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--onnx-cache-dir", type=Path, default=None, help="default: ~/.cache/veriground/onnx")
    args = parser.parse_args()

    import onnxruntime
    import torch

    torch.set_num_threads(args.threads)
    passages, queries = split_evenly(read_paragraphs(CORPORA), args.passages, args.queries)
    print(
        f"{len(passages)} passages ({np.mean([len(p) for p in passages]):.0f} chars on average), {len(queries)} "
        f"queries; batch size {args.batch_size}, {args.threads} threads; torch {torch.__version__}, "
        f"onnxruntime {onnxruntime.__version__}"
    )

    def load(label: str, make):
        started = time.perf_counter()
        embedder = make()
        print(f"  loaded {label} in {time.perf_counter() - started:.1f} s")
        return embedder

    print("load times (ONNX ones include the export and quantisation when the cache is empty):")
    onnx = {"threads": args.threads, "cache_dir": args.onnx_cache_dir}
    torch_embedder = load("torch", lambda: SentenceTransformerEmbedder())
    fp32 = load("onnx-fp32", lambda: OnnxEmbedder(int8=False, **onnx))
    int8 = load("onnx-int8", lambda: OnnxEmbedder(int8=True, **onnx))
    batch = args.batch_size
    # (label, embedder, batch size); the int8 model batched: faster or not, its vectors then depend on their
    # batch neighbours, so the embedder itself never batches.
    configs = [
        ("torch", torch_embedder, batch),
        ("onnx-fp32", fp32, batch),
        ("onnx-int8", int8, 1),
        (f"onnx-int8@{batch}", int8, batch),
        ("torch@1", torch_embedder, 1),
        ("onnx-fp32@1", fp32, 1),
    ]
    vectors, rates = run_interleaved(configs, passages, queries, args.rounds)

    print(f"\nthroughput over {len(passages)} passages: median of {args.rounds} interleaved rounds (range)")
    print(f"  {'runtime':<14} {'batch':>5} {'texts/s':>8}  {'vs torch':>8}")
    reference = statistics.median(rates["torch"])
    for label, _, size in configs:
        median = statistics.median(rates[label])
        shipped = " as shipped" if label in ("torch", "onnx-fp32", "onnx-int8") else ""
        print(
            f"  {label:<14} {size:>5} {median:8.1f}  {median / reference:7.2f}x  "
            f"({min(rates[label]):.0f}-{max(rates[label]):.0f}){shipped}"
        )

    print(f"\nquality vs torch: cosine per passage, and top-{TOP_K} neighbours of {len(queries)} queries kept")
    for label in ("onnx-fp32", "onnx-int8", f"onnx-int8@{batch}"):
        cosines = (vectors[label] * vectors["torch"]).sum(axis=1)
        overlap = top_k_overlap(vectors["torch/queries"], vectors["torch"], vectors[label + "/queries"], vectors[label])
        print(
            f"  {label:<14} cosine mean {cosines.mean():.5f}  min {cosines.min():.5f}  "
            f"top-{TOP_K} overlap {overlap:.3f}"
        )


if __name__ == "__main__":
    main()
