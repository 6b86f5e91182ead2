"""BM25 over passages (bm25s): tokens -> a persisted sparse index -> ranked (passage id, bm25 score).

Tokens are computed once at ingest and cached in the store, so a rebuild after a change only re-runs
the indexing step, never tokenisation of unchanged passages.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from veriground.errors import StoreError
from veriground.retrieval.index_folders import index_swap, remove_orphaned_folders
from veriground.text.terms import TOKENIZER_NAME, tokenize

if TYPE_CHECKING:
    import bm25s  # imported when an index is built or loaded, so `import veriground` stays fast

INDEX_DIR_NAME = "bm25"
MANIFEST_NAME = "manifest.json"


@dataclass(frozen=True)
class BM25Hit:
    passage_id: str
    bm25_score: float
    rank: int


class BM25Index:
    """An in-memory bm25s index with the passage id of each row."""

    def __init__(self, retriever: bm25s.BM25, passage_ids: list[str], generation: int) -> None:
        self._retriever = retriever
        self.passage_ids = passage_ids
        self.generation = generation

    @classmethod
    def build(cls, rows: list[tuple[str, str]], generation: int, *, k1: float, b: float) -> BM25Index:
        """Index (passage_id, space-joined tokens) rows."""
        import bm25s

        retriever = bm25s.BM25(k1=k1, b=b)
        passage_ids = [passage_id for passage_id, _ in rows]
        if rows:
            retriever.index([tokens.split() for _, tokens in rows], show_progress=False)
        return cls(retriever, passage_ids, generation)

    def document_frequencies(self, tokens: list[str]) -> dict[str, int]:
        """How many indexed passages hold each distinct token (0 for a token the corpus never uses)."""
        if not self.passage_ids:
            return dict.fromkeys(tokens, 0)
        vocab = self._retriever.vocab_dict
        indptr = self._retriever.scores["indptr"]
        return {
            token: 0 if token not in vocab else int(indptr[vocab[token] + 1] - indptr[vocab[token]])
            for token in dict.fromkeys(tokens)
        }

    def idf_weights(self, frequencies: dict[str, int]) -> dict[str, float]:
        """Lucene's smoothed idf, log(1 + (N - df + 0.5) / (df + 0.5)); an unused token weighs the most."""
        total = len(self.passage_ids)
        return {token: float(np.log1p((total - df + 0.5) / (df + 0.5))) for token, df in frequencies.items()}

    def search(self, query: str, top_k: int) -> list[BM25Hit]:
        """Passages sharing a term with the query, best first; ties keep index order."""
        if not self.passage_ids:
            return []
        vocab = self._retriever.vocab_dict
        token_ids = [vocab[token] for token in tokenize(query) if token in vocab]
        if not token_ids:
            return []
        scores = self._retriever.get_scores(token_ids)
        candidates = np.flatnonzero(scores > 0)
        if candidates.size > top_k:
            # Partition first so the full sort touches only the best rows.
            cutoff = np.partition(scores[candidates], -top_k)[-top_k]
            candidates = candidates[scores[candidates] >= cutoff]
        order = sorted(candidates.tolist(), key=lambda row: (-scores[row], row))[:top_k]
        return [BM25Hit(self.passage_ids[row], float(scores[row]), rank) for rank, row in enumerate(order, start=1)]

    def save(self, corpus_dir: Path) -> None:
        """Write to a fresh folder, then swap it in, so a crash never leaves a half-written index."""
        with index_swap(corpus_dir / INDEX_DIR_NAME) as staging:
            if self.passage_ids:
                self._retriever.save(str(staging))
            manifest = {"generation": self.generation, "tokenizer": TOKENIZER_NAME, "passage_ids": self.passage_ids}
            (staging / MANIFEST_NAME).write_text(json.dumps(manifest), encoding="utf-8")

    @classmethod
    def load(cls, corpus_dir: Path) -> BM25Index | None:
        """The saved index, or None when there is none or it was made by another tokenizer. Folders a killed swap
        left behind are removed first."""
        import bm25s

        remove_orphaned_folders(corpus_dir)
        folder = corpus_dir / INDEX_DIR_NAME
        try:
            manifest = json.loads((folder / MANIFEST_NAME).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if manifest.get("tokenizer") != TOKENIZER_NAME:
            return None
        passage_ids = manifest["passage_ids"]
        if not passage_ids:
            return cls(None, [], manifest["generation"])
        try:
            retriever = bm25s.BM25.load(str(folder), show_progress=False)
        except (OSError, ValueError) as err:
            raise StoreError(f"BM25 index in {folder} is damaged ({err}); delete that folder to rebuild it") from None
        return cls(retriever, passage_ids, manifest["generation"])
