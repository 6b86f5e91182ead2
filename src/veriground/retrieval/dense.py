"""Dense retrieval: passages of the latest versions -> unit vectors (cached in the store by model and text
hash, so re-ingesting or re-opening never re-embeds) -> exact inner-product search in numpy.

Exact search is enough below about a million passages (a 100k x 384 float32 matrix is 150 MB and one
query is one matrix-vector product); an approximate index would trade recall for speed we do not need.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from veriground.backends.protocols import Embedder
from veriground.corpus.store import CorpusStore
from veriground.errors import BackendError

EMBED_BATCH = 256  # texts per encode call while filling the cache


@dataclass(frozen=True)
class DenseHit:
    passage_id: str
    dense_score: float
    rank: int


def embedding_key(embedder: Embedder) -> str:
    """What a cached vector belongs to: the model and the exact weights."""
    return f"{embedder.name}|{embedder.model_id}|{embedder.checksum or 'no-weights'}|{embedder.dimension}"


class DenseIndex:
    """Unit vectors of every latest passage, in the store's index order."""

    def __init__(self, passage_ids: list[str], matrix: np.ndarray, generation: int, model_key: str) -> None:
        self.passage_ids = passage_ids
        self.matrix = matrix
        self.generation = generation
        self.model_key = model_key
        self.embedded_now = 0  # how many passages this build had to embed (the rest came from the cache)

    @classmethod
    def build(cls, store: CorpusStore, embedder: Embedder) -> DenseIndex:
        rows = list(store.iter_latest_texts())
        hashes = [hashlib.sha256(text.encode("utf-8")).hexdigest() for _, text in rows]
        key = embedding_key(embedder)
        width = embedder.dimension * np.dtype(np.float32).itemsize
        cached = {
            text_hash: vector
            for text_hash, vector in store.cached_embeddings(key, list(dict.fromkeys(hashes))).items()
            if len(vector) == width  # a damaged row is embedded again, never read as garbage
        }
        missing = {
            text_hash: text for text_hash, (_, text) in zip(hashes, rows, strict=True) if text_hash not in cached
        }
        todo = list(missing.items())
        for start in range(0, len(todo), EMBED_BATCH):
            batch = todo[start : start + EMBED_BATCH]
            vectors = _checked(embedder, embedder.encode([text for _, text in batch]), len(batch))
            fresh = [(text_hash, vector.tobytes()) for (text_hash, _), vector in zip(batch, vectors, strict=True)]
            store.save_embeddings(key, fresh)
            cached.update(fresh)
        matrix = np.zeros((len(rows), embedder.dimension), dtype=np.float32)
        for row, text_hash in enumerate(hashes):
            matrix[row] = np.frombuffer(cached[text_hash], dtype=np.float32)
        index = cls([passage_id for passage_id, _ in rows], matrix, store.generation, key)
        index.embedded_now = len(todo)
        return index

    def search(self, query_vector: np.ndarray, top_k: int) -> list[DenseHit]:
        """The top_k passages by inner product, best first; ties keep index order."""
        if not self.passage_ids:
            return []
        scores = self.matrix @ query_vector.astype(np.float32)
        k = min(top_k, len(scores))
        candidates = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
        order = sorted(candidates.tolist(), key=lambda row: (-float(scores[row]), row))
        return [
            DenseHit(self.passage_ids[row], round(float(scores[row]), 6), rank) for rank, row in enumerate(order, 1)
        ]


def _checked(embedder: Embedder, vectors: np.ndarray, count: int) -> np.ndarray:
    if vectors.shape != (count, embedder.dimension):
        raise BackendError(
            f"embedder {embedder.name} returned shape {vectors.shape}, expected ({count}, {embedder.dimension})"
        )
    if not np.isfinite(vectors).all():
        raise BackendError(f"embedder {embedder.name} returned non-finite values")
    return vectors.astype(np.float32, copy=False)
