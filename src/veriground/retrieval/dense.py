"""Dense retrieval: passages of the latest versions -> unit vectors -> inner-product search (exact in numpy, or an
ANN index's candidates re-scored exactly at retrieval.ann_min_passages passages and more).

Vectors are computed when documents are ingested (or by `veriground index --dense`), never by a query: each is
cached in the store by model and text hash (re-ingesting or re-opening never re-embeds), and the matrix of the
latest passages is saved beside the BM25 index as a float32 .npy file that a search memory-maps, so opening a
large corpus reads no vectors until a query touches them. A query whose vectors are missing raises
NotFoundError saying how to build them.

Exact search is one matrix-vector product, done in blocks so a memory-mapped matrix is never copied whole: about
1 ms per 10^4 passages, so 100+ ms at 10^6. From retrieval.ann_min_passages on, when faiss is installed,
the matrix gets an IVF index of 4-bit product-quantizer codes, saved in the same folder (so it always matches the
matrix's store generation and is rebuilt with it); a query takes the index's best CANDIDATES rows and re-scores
them exactly against the float32 matrix. Without faiss, search stays exact and `ann_note` says why. Below the
threshold nothing changes.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from veriground.backends.protocols import Embedder
from veriground.corpus.store import CorpusStore
from veriground.errors import BackendError, NotFoundError, StoreError
from veriground.retrieval import ann
from veriground.retrieval.ann import AnnIndex
from veriground.retrieval.index_folders import index_swap
from veriground.schema.progress import ProgressCallback

EMBED_BATCH = 256  # texts per encode call while filling the cache (and per progress step)
ASSEMBLE_CHUNK = 10_000  # stored vectors read at a time (15 MB at 384 dimensions)
DENSE_DIR_PREFIX = "dense-"
MANIFEST_NAME = "manifest.json"
VECTORS_NAME = "vectors.npy"
IDS_NAME = "passage_ids.json"
ANN_DEPTH_SHARE = 8  # a search deeper than 1/8 of the passages (a kind filter's retry) is exact
SEARCH_BLOCK_ROWS = 262_144  # rows per matrix-vector product: 384 MB of float32 at 384 dimensions at most
BUILD_HINT = (
    "build them with `veriground index --dense` (or ingest with --retrieval hybrid), or search with --retrieval bm25"
)


@dataclass(frozen=True)
class DenseHit:
    passage_id: str
    dense_score: float
    rank: int


def embedding_key(embedder: Embedder) -> str:
    """What a cached vector belongs to: the model and the exact weights."""
    return f"{embedder.name}|{embedder.model_id}|{embedder.checksum or 'no-weights'}|{embedder.dimension}"


def dense_dir(corpus_dir: Path, model_key: str) -> Path:
    """The folder of one embedding model's saved matrix in a corpus directory."""
    return corpus_dir / (DENSE_DIR_PREFIX + hashlib.sha256(model_key.encode("utf-8")).hexdigest()[:16])


class DenseIndex:
    """Unit vectors of every latest passage, in the store's index order."""

    def __init__(self, passage_ids: list[str], matrix: np.ndarray, generation: int, model_key: str) -> None:
        self.passage_ids = passage_ids
        self.matrix = matrix
        self.generation = generation
        self.model_key = model_key
        self.embedded_now = 0  # how many passages this build had to embed (the rest came from the cache)
        self.ann: AnnIndex | None = None  # candidates for large matrices; None means exact search

    @classmethod
    def build(
        cls,
        store: CorpusStore,
        embedder: Embedder,
        on_progress: ProgressCallback | None = None,
        *,
        ann_min_passages: int | None = None,
    ) -> DenseIndex:
        """Embed every latest passage not yet cached (`on_progress(done, total)` counts passages to embed), then
        assemble the matrix (and, from `ann_min_passages` rows, its ANN index) and save it in the corpus directory."""
        return cls._assemble(store, embedder, True, on_progress, ann_min_passages)

    @classmethod
    def open(cls, store: CorpusStore, embedder: Embedder, *, ann_min_passages: int | None = None) -> DenseIndex:
        """The saved index of the store's current generation, else one assembled from cached vectors (and saved);
        NotFoundError when some latest passage has no vector: a query never embeds the corpus."""
        key = embedding_key(embedder)
        saved = cls.load(store.corpus_dir, key, with_ann=ann_min_passages is not None)
        if saved is not None and saved.generation == store.generation:
            if ann_min_passages is None or len(saved.passage_ids) < ann_min_passages:
                saved.ann = None  # the config asks for exact search here
            return saved
        return cls._assemble(store, embedder, False, None, ann_min_passages)

    @classmethod
    def _assemble(
        cls,
        store: CorpusStore,
        embedder: Embedder,
        embed_missing: bool,
        on_progress: ProgressCallback | None,
        ann_min_passages: int | None,
    ) -> DenseIndex:
        """In chunks, so memory stays bounded at 10^6 passages: texts are hashed as they stream by (only ids and
        hashes are kept), the matrix is filled from the store's vectors chunk by chunk (each read once), and missing
        vectors are embedded from texts fetched by id and written into the store and the matrix."""
        generation = store.generation
        key = embedding_key(embedder)
        passage_ids: list[str] = []
        hashes: list[str] = []
        for passage_id, text in store.iter_latest_texts():
            passage_ids.append(passage_id)
            hashes.append(hashlib.sha256(text.encode("utf-8")).hexdigest())
        rows_of: dict[str, list[int]] = {}  # text hash -> the rows holding that text, in index order
        for row, text_hash in enumerate(hashes):
            rows_of.setdefault(text_hash, []).append(row)
        matrix = np.zeros((len(hashes), embedder.dimension), dtype=np.float32)
        missing = _fill_cached(store, key, rows_of, matrix)
        if missing and not embed_missing:
            raise NotFoundError(
                f"{len(missing):,} of {len(passage_ids):,} passages in {store.corpus_dir} have no dense vectors for "
                f"embedder {embedder.name} ({embedder.model_id}); {BUILD_HINT}"
            )
        if on_progress is not None:
            on_progress(0, len(missing))
        for start in range(0, len(missing), EMBED_BATCH):
            batch = missing[start : start + EMBED_BATCH]
            first_ids = [passage_ids[rows_of[text_hash][0]] for text_hash in batch]
            texts = store.latest_passages(first_ids)
            vectors = _checked(embedder, embedder.encode([texts[first].text for first in first_ids]), len(batch))
            store.save_embeddings(key, [(h, vector.tobytes()) for h, vector in zip(batch, vectors, strict=True)])
            for text_hash, vector in zip(batch, vectors, strict=True):
                matrix[rows_of[text_hash]] = vector
            if on_progress is not None:
                on_progress(start + len(batch), len(missing))
        index = cls(passage_ids, matrix, generation, key)
        index.embedded_now = len(missing)
        if ann.wants_ann(len(passage_ids), ann_min_passages):
            index.ann = AnnIndex.build(matrix)
        try:
            index.save(store.corpus_dir)
        except StoreError:
            if embed_missing:  # `index --dense` must leave the matrix on disk; a query can search without it
                raise
        return index

    def save(self, corpus_dir: Path) -> None:
        """Write to a fresh folder, then swap it in, so a crash never leaves a half-written matrix."""
        target = dense_dir(corpus_dir, self.model_key)
        manifest = {
            "generation": self.generation,
            "model_key": self.model_key,
            "passages": len(self.passage_ids),
            "dimension": int(self.matrix.shape[1]),
            "dtype": "float32",
        }
        try:
            with index_swap(target) as staging:
                np.save(staging / VECTORS_NAME, np.ascontiguousarray(self.matrix, dtype=np.float32))
                (staging / IDS_NAME).write_text(json.dumps(self.passage_ids), encoding="utf-8")
                if self.ann is not None:
                    manifest["ann"] = self.ann.save(staging)
                (staging / MANIFEST_NAME).write_text(json.dumps(manifest), encoding="utf-8")
        except (OSError, RuntimeError) as err:  # faiss raises RuntimeError on a failed write
            raise StoreError(
                f"cannot write dense vectors in {corpus_dir}: {err}; check the folder's permissions and free space"
            ) from None

    @classmethod
    def load(cls, corpus_dir: Path, model_key: str, *, with_ann: bool = True) -> DenseIndex | None:
        """The saved matrix of this model (memory-mapped), or None when there is none; its saved ANN index too unless
        `with_ann` is false (the config asks for exact search: the ANN file is then not read at all)."""
        folder = dense_dir(corpus_dir, model_key)
        try:
            manifest = json.loads((folder / MANIFEST_NAME).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if manifest.get("model_key") != model_key:
            return None
        try:
            passage_ids = json.loads((folder / IDS_NAME).read_text(encoding="utf-8"))
            matrix = np.load(folder / VECTORS_NAME, mmap_mode="r")
        except (OSError, ValueError) as err:
            raise StoreError(
                f"dense vectors in {folder} are damaged ({err}); delete that folder and run `veriground index --dense`"
            ) from None
        if matrix.ndim != 2 or matrix.shape[0] != len(passage_ids) or matrix.shape[0] != manifest.get("passages"):
            raise StoreError(
                f"dense vectors in {folder} do not match their passage list; "
                "delete that folder and run `veriground index --dense`"
            )
        index = cls(passage_ids, matrix, int(manifest["generation"]), model_key)
        if with_ann and "ann" in manifest:
            try:
                index.ann = AnnIndex.load(folder, manifest["ann"], len(passage_ids))
            except ValueError as err:
                raise StoreError(
                    f"the ANN index in {folder} is damaged ({err}); delete that folder and run "
                    "`veriground index --dense`"
                ) from None
        return index

    def ann_note(self, ann_min_passages: int | None) -> str | None:
        """Why a matrix large enough for an ANN index (retrieval.ann_min_passages) is searched exactly (None when it
        is not)."""
        if self.ann is not None or ann_min_passages is None or len(self.passage_ids) < ann_min_passages:
            return None
        if ann.load_faiss() is None:
            return (
                f"dense search is exact over {len(self.passage_ids):,} passages (slow): faiss is not installed; "
                "pip install 'veriground[ann]' and run `veriground index --dense` for an ANN index"
            )
        return (
            f"dense search is exact over {len(self.passage_ids):,} passages (slow): the vectors were saved without "
            "an ANN index; run `veriground index --dense` to build it"
        )

    def search(self, query_vector: np.ndarray, top_k: int, *, exact: bool = False) -> list[DenseHit]:
        """The top_k passages by inner product, best first; ties keep index order. With an ANN index (and not
        `exact`) only its candidates are scored, so a passage it misses is left out."""
        if not self.passage_ids:
            return []
        query = np.asarray(query_vector, dtype=np.float32)
        if self.ann is not None and not exact and top_k * ANN_DEPTH_SHARE <= len(self.passage_ids):
            hits = self._search_candidates(query, top_k, self.ann)
            if len(hits) == top_k:  # else the probed lists held too few rows: score them all
                return hits
        scores = np.empty(len(self.passage_ids), dtype=np.float32)
        for start in range(0, len(scores), SEARCH_BLOCK_ROWS):
            stop = start + SEARCH_BLOCK_ROWS
            # einsum, not BLAS: a matrix-vector product is memory-bound, and OpenBLAS's spinning threads made it
            # 5-10x slower on a busy 2-core machine (64 -> 5 ms a query at 10^4 passages; bench/bench_scale.py).
            scores[start:stop] = np.einsum("ij,j->i", self.matrix[start:stop], query)
        k = min(top_k, len(scores))
        candidates = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
        order = sorted(candidates.tolist(), key=lambda row: (-float(scores[row]), row))
        return [
            DenseHit(self.passage_ids[row], round(float(scores[row]), 6), rank) for rank, row in enumerate(order, 1)
        ]

    def _search_candidates(self, query: np.ndarray, top_k: int, index: AnnIndex) -> list[DenseHit]:
        rows = np.unique(index.candidates(query, max(ann.CANDIDATES, 2 * top_k)))  # sorted: sequential reads
        scores = np.einsum("ij,j->i", self.matrix[rows], query)
        order = np.lexsort((rows, -scores))[:top_k]  # best score first, ties in index order
        return [
            DenseHit(self.passage_ids[int(rows[i])], round(float(scores[i]), 6), rank)
            for rank, i in enumerate(order.tolist(), 1)
        ]


def _fill_cached(store: CorpusStore, key: str, rows_of: dict[str, list[int]], matrix: np.ndarray) -> list[str]:
    """Write every cached vector into its rows (rows sharing a text share its vector), reading the store chunk by
    chunk; the text hashes with no usable vector, in index order (a damaged row is embedded again, never read as
    garbage)."""
    width = matrix.shape[1] * np.dtype(np.float32).itemsize
    unique = list(rows_of)
    missing: list[str] = []
    for start in range(0, len(unique), ASSEMBLE_CHUNK):
        chunk = unique[start : start + ASSEMBLE_CHUNK]
        found = store.cached_embeddings(key, chunk)
        for text_hash in chunk:
            vector = found.get(text_hash, b"")
            if len(vector) == width:
                matrix[rows_of[text_hash]] = np.frombuffer(vector, dtype=np.float32)
            else:
                missing.append(text_hash)
    return missing


def _checked(embedder: Embedder, vectors: np.ndarray, count: int) -> np.ndarray:
    if vectors.shape != (count, embedder.dimension):
        raise BackendError(
            f"embedder {embedder.name} returned shape {vectors.shape}, expected ({count}, {embedder.dimension})"
        )
    if not np.isfinite(vectors).all():
        raise BackendError(f"embedder {embedder.name} returned non-finite values")
    return vectors.astype(np.float32, copy=False)
