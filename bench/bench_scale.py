"""Corpus scale: ingest, index and search a synthetic corpus of 10^4 .. 10^6 passages, and verify against it.

    python bench/bench_scale.py [--sizes 10000,100000] [--queries 200] [--claims 60] [--embedder synthetic|minilm]
                                [--embed-sample 300] [--keep DIR] [--matrix-sizes 1000000]

The passages are paragraphs (200-1500 characters) of the .md files of ../shared/datasets/domain-corpora, the
first copy as written and every later copy paraphrased deterministically (seeded by the passage's number): its
sentences shuffled, a few words swapped for synonyms and neighbouring words swapped, so BM25 sees realistic,
distinct texts. They are written as Markdown files of 50 paragraphs and ingested through the real ingest path.

Per size it reports: ingest passages/s, BM25 build seconds, the corpus directory's size on disk (SQLite, BM25,
dense matrix), the process's peak RSS, query p50/p95 (ms) for BM25, dense and hybrid retrieval (the full
CorpusRetriever path: index, fusion, passage lookup), and `verify` claims/s with the lexical NLI (a note of
--claims sentences taken from the corpus, every third one with a number changed).

Dense vectors: `--embedder synthetic` (the default) stores one seeded random unit vector of 384 dimensions per
passage, so the dense and hybrid timings measure the index (the same matrix shape and bytes as MiniLM's) without
spending hours embedding 10^6 passages on 2 cores; the real MiniLM embedder's rate is measured separately on
--embed-sample passages (int8 ONNX, the ingest default when it loads, else torch) and printed with it.
`--embedder minilm` embeds every passage for real (about 160-200 passages/s on an idle 2-core machine, 10-50 on
a busy one). `--matrix-sizes` times dense search alone over a memory-mapped synthetic matrix of that many rows.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import re
import resource
import tempfile
import time
from pathlib import Path

import numpy as np

from veriground.config import load_config
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore
from veriground.engine import verify_text
from veriground.evidence.gather import CorpusEvidence
from veriground.retrieval.dense import DenseIndex
from veriground.retrieval.search import BM25Retriever, CorpusRetriever

SEED = 20
CORPORA = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "domain-corpora"
MIN_CHARS, MAX_CHARS = 200, 1500  # the ingest defaults for one passage
PARAGRAPHS_PER_FILE = 50
FILES_PER_FOLDER = 1000
DIMENSION = 384  # all-MiniLM-L6-v2
MODES = ("bm25", "dense", "hybrid")
_BLANK_LINE = re.compile(r"\n\s*\n")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
# Word-for-word substitutions a paraphrase may make (both directions); meaning-preserving in these corpora.
SYNONYMS = {
    "large": "big",
    "small": "little",
    "quickly": "rapidly",
    "shows": "demonstrates",
    "use": "employ",
    "method": "technique",
    "example": "instance",
    "important": "significant",
    "because": "since",
    "result": "outcome",
    "often": "frequently",
    "begin": "start",
    "called": "named",
    "show": "demonstrate",
    "find": "determine",
}
SYNONYMS.update({value: key for key, value in SYNONYMS.items()})


def read_paragraphs(root: Path) -> list[str]:
    paragraphs = []
    for path in sorted(root.rglob("*.md")):
        if path.name == "SOURCE.md":  # licence notes, not content
            continue
        for block in _BLANK_LINE.split(path.read_text(encoding="utf-8")):
            block = " ".join(block.split())
            if MIN_CHARS <= len(block) <= MAX_CHARS and not block.startswith(("#", "|", "!", "$$")):
                paragraphs.append(block)
    return paragraphs


def paraphrase(text: str, rng: random.Random) -> str:
    """Sentences shuffled, about one word in twelve swapped for a synonym or with its neighbour."""
    sentences = _SENTENCE_END.split(text)
    rng.shuffle(sentences)
    words = " ".join(sentences).split()
    for index in range(len(words)):
        roll = rng.random()
        bare = words[index].lower()
        if roll < 0.5 and bare in SYNONYMS:
            words[index] = SYNONYMS[bare]
        elif roll < 1 / 12 and index + 1 < len(words):
            words[index], words[index + 1] = words[index + 1], words[index]
    return " ".join(words)


def synthetic_passages(paragraphs: list[str], count: int) -> list[str]:
    """`count` distinct passages: the paragraphs once as written, then seeded paraphrases of them in turn."""
    seen: set[str] = set()
    passages = []
    for number in range(count):
        base = paragraphs[number % len(paragraphs)]
        text = base if number < len(paragraphs) else paraphrase(base, random.Random(SEED * 1_000_003 + number))
        if text in seen:  # a paragraph too short to shuffle: mark the copy so it stays a distinct passage
            text = f"{text} (Copy {number // len(paragraphs)}.)"
        seen.add(text)
        passages.append(text)
    return passages


def write_files(passages: list[str], root: Path) -> None:
    for start in range(0, len(passages), PARAGRAPHS_PER_FILE):
        number = start // PARAGRAPHS_PER_FILE
        folder = root / f"part{number // FILES_PER_FOLDER:04d}"
        folder.mkdir(parents=True, exist_ok=True)
        block = passages[start : start + PARAGRAPHS_PER_FILE]
        (folder / f"f{number:06d}.md").write_text("\n\n".join(block) + "\n", encoding="utf-8")


class SyntheticEmbedder:
    """A seeded random unit vector per text: the shape and bytes of MiniLM's vectors, none of its meaning."""

    name = "synthetic-embedder.v1"
    model_id = "bench/synthetic-unit-vectors"
    checksum = None
    dimension = DIMENSION

    def encode(self, texts: list[str]) -> np.ndarray:
        vectors = np.empty((len(texts), DIMENSION), dtype=np.float32)
        for row, text in enumerate(texts):
            seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")
            vector = np.random.default_rng(seed).standard_normal(DIMENSION).astype(np.float32)
            vectors[row] = vector / np.linalg.norm(vector)
        return vectors


def real_embedder(config) -> object:
    """MiniLM as ingest builds it: int8 ONNX when that loads, else the configured runtime."""
    from veriground.backends.registry import build_embedder

    try:
        return build_embedder(config.models.model_copy(update={"runtime": "onnx", "quantize": True}))
    except Exception as err:  # an export that cannot run here: fall back to what the config says
        print(f"  (int8 ONNX embedder unavailable: {err}; using models.runtime={config.models.runtime})")
        return build_embedder(config.models)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def time_queries(retriever: CorpusRetriever, queries: list[str]) -> tuple[float, float]:
    retriever.retrieve(queries[0])  # loads the index and the matrix: a one-time cost, reported by the build rows
    timings = []
    for query in queries:
        started = time.perf_counter()
        retriever.retrieve(query)
        timings.append((time.perf_counter() - started) * 1000)
    return percentile(timings, 0.5), percentile(timings, 0.95)


def folder_bytes(root: Path) -> int:
    return sum(path.stat().st_size for path in root.rglob("*") if path.is_file())


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes


def make_queries(passages: list[str], count: int) -> list[str]:
    """Seeded 3-6 word queries cut from the passages."""
    rng = random.Random(SEED)
    queries = []
    while len(queries) < count:
        words = rng.choice(passages).split()
        length = rng.randint(3, 6)
        if len(words) <= length:
            continue
        start = rng.randrange(0, len(words) - length)
        queries.append(" ".join(words[start : start + length]))
    return queries


def make_note(passages: list[str], claims: int) -> str:
    rng = random.Random(SEED)
    lines = []
    while len(lines) < claims:
        sentences = [s for s in _SENTENCE_END.split(rng.choice(passages)) if 40 <= len(s) <= 220 and s.endswith(".")]
        if not sentences:
            continue
        sentence = rng.choice(sentences)
        if len(lines) % 3 == 1:
            sentence = re.sub(r"\d+", lambda match: str(int(match.group()) * 10 + 1), sentence, count=1)
        lines.append(f"- {sentence}")
    return "\n".join(lines) + "\n"


def run_size(size: int, paragraphs: list[str], args: argparse.Namespace, work: Path) -> dict[str, float]:
    root, corpus = work / f"files-{size}", work / f"corpus-{size}"
    passages = synthetic_passages(paragraphs, size)
    write_files(passages, root)
    config = load_config(overrides={"corpus.dir": corpus, "retrieval.top_k": 5}, environ={})
    row: dict[str, float] = {"passages": size}
    with CorpusStore(corpus) as store:
        started = time.perf_counter()
        report = ingest_paths([root], store, config.ingest)
        row["ingest_s"] = time.perf_counter() - started
        started = time.perf_counter()
        row["indexed"] = len(BM25Retriever(store, config.retrieval).refresh().passage_ids)
        row["bm25_build_s"] = time.perf_counter() - started
        if report.failed:
            raise SystemExit(f"{report.failed} synthetic files failed to ingest")
        embedder = SyntheticEmbedder() if args.embedder == "synthetic" else real_embedder(config)
        hybrid = CorpusRetriever(store, config.retrieval.model_copy(update={"mode": "hybrid"}), embedder=embedder)
        started = time.perf_counter()
        index = hybrid.build_dense_index()
        row["dense_build_s"] = time.perf_counter() - started
        row["embedded"] = index.embedded_now
        del index
        row["disk_mb"] = folder_bytes(corpus) / 2**20
        queries = make_queries(passages, args.queries)
        for mode in MODES:
            retriever = CorpusRetriever(
                store, config.retrieval.model_copy(update={"mode": mode}), embedder=None if mode == "bm25" else embedder
            )
            row[f"{mode}_p50_ms"], row[f"{mode}_p95_ms"] = time_queries(retriever, queries)
        note = make_note(passages, args.claims)
        source = CorpusEvidence(store, config.retrieval)
        verify_text(note, config=config, source=source, nli=_lexical(config))  # one-time loading
        started = time.perf_counter()
        verified = verify_text(note, config=config, source=source, nli=_lexical(config))
        row["verify_claims_per_s"] = len(verified.claims) / (time.perf_counter() - started)
    row["peak_rss_mb"] = peak_rss_mb()
    if not args.keep:
        import shutil

        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(corpus, ignore_errors=True)
    return row


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
    """Dense search alone over a memory-mapped `size` x 384 float32 matrix of seeded unit vectors (no corpus):
    (p50 ms, p95 ms, file MB). What the dense half of a hybrid query costs at sizes too slow to ingest here."""
    path = work / f"matrix-{size}.npy"
    matrix = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(size, DIMENSION))
    rng = np.random.default_rng(SEED)
    for start in range(0, size, 100_000):
        block = rng.standard_normal((min(100_000, size - start), DIMENSION)).astype(np.float32)
        matrix[start : start + len(block)] = block / np.linalg.norm(block, axis=1, keepdims=True)
    matrix.flush()
    del matrix
    index = DenseIndex([f"p{row}" for row in range(size)], np.load(path, mmap_mode="r"), 0, "synthetic")
    vectors = SyntheticEmbedder().encode([f"query {number}" for number in range(queries)])
    index.search(vectors[0], 10)  # page the matrix in once
    timings = []
    for vector in vectors:
        started = time.perf_counter()
        index.search(vector, 10)
        timings.append((time.perf_counter() - started) * 1000)
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
    parser.add_argument(
        "--matrix-sizes", default="", help="also time dense search alone over synthetic matrices, e.g. 1000000"
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
            f"dense search alone, {size:,} x {DIMENSION} float32 memory-mapped ({megabytes:.0f} MB): "
            f"p50 {p50:.1f} ms, p95 {p95:.1f} ms",
            flush=True,
        )
    for size in (int(part) for part in args.sizes.split(",") if part):
        row = run_size(size, paragraphs, args, work_dir)
        print(
            f"{size:,} passages ({int(row['indexed']):,} indexed): ingest {size / row['ingest_s']:.0f} passages/s "
            f"({row['ingest_s']:.0f} s); BM25 build {row['bm25_build_s']:.1f} s; dense matrix "
            f"{row['dense_build_s']:.1f} s ({int(row['embedded']):,} embedded, {args.embedder}); "
            f"on disk {row['disk_mb']:.0f} MB; peak RSS {row['peak_rss_mb']:.0f} MB",
            flush=True,
        )
        print(
            "  query p50/p95 ms: "
            + ", ".join(f"{mode} {row[f'{mode}_p50_ms']:.1f}/{row[f'{mode}_p95_ms']:.1f}" for mode in MODES)
            + f"; verify (lexical NLI) {row['verify_claims_per_s']:.1f} claims/s",
            flush=True,
        )
    if not args.keep:
        work_dir.rmdir()  # each size removed its own files


if __name__ == "__main__":
    main()
