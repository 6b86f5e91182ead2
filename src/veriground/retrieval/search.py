"""Query the corpus: query text -> ranked EvidenceChunk records from the latest document versions.

The BM25 index is rebuilt from the store's cached tokens whenever the store's generation moved on.
"""

from __future__ import annotations

from collections.abc import Sequence

from veriground.config import RetrievalConfig
from veriground.corpus.store import CorpusStore
from veriground.errors import ConfigError
from veriground.retrieval.bm25 import BM25Index
from veriground.schema import EvidenceChunk, Passage


class BM25Retriever:
    """Lexical retriever over one corpus store."""

    def __init__(self, store: CorpusStore, config: RetrievalConfig) -> None:
        self._store = store
        self._config = config
        self._index: BM25Index | None = None

    def refresh(self) -> BM25Index:
        """The index for the store's current generation, loading or rebuilding it as needed."""
        generation = self._store.generation
        if self._index is not None and self._index.generation == generation:
            return self._index
        index = BM25Index.load(self._store.corpus_dir)
        if index is None or index.generation != generation:
            rows = list(self._store.iter_index_tokens())
            index = BM25Index.build(rows, generation, k1=self._config.bm25_k1, b=self._config.bm25_b)
            index.save(self._store.corpus_dir)
        self._index = index
        return index

    def retrieve(self, query: str, top_k: int | None = None) -> list[EvidenceChunk]:
        if not query.strip():
            raise ConfigError("the query is empty; pass some words to search for")
        return self.retrieve_many([query], top_k)[0]

    def retrieve_many(self, queries: Sequence[str], top_k: int | None = None) -> list[list[EvidenceChunk]]:
        """One ranked list per query, from one index load and one passage lookup for the whole batch."""
        k = self._config.top_k if top_k is None else top_k
        if not 1 <= k <= 200:
            raise ConfigError(f"retrieval.top_k must be 1..200, got {k} (use -k/--top-k)")
        index = self.refresh()
        all_hits = [index.search(query, k) for query in queries]
        passages = self._store.latest_passages(list(dict.fromkeys(hit.passage_id for hits in all_hits for hit in hits)))
        return [
            [
                to_evidence_chunk(passages[hit.passage_id], rank=hit.rank, score_bm25=hit.bm25_score)
                for hit in hits
                if hit.passage_id in passages
            ]
            for hits in all_hits
        ]


def to_evidence_chunk(passage: Passage, *, rank: int, score_bm25: float | None) -> EvidenceChunk:
    return EvidenceChunk(
        doc_id=passage.doc_id,
        sent_id=passage.ordinal,
        passage_id=passage.passage_id,
        text=passage.text,
        char_start=passage.char_start,
        char_end=passage.char_end,
        score_bm25=None if score_bm25 is None else round(score_bm25, 6),
        rank=rank,
        source=passage.source_id,
        source_type=passage.source_type,
        version=f"{passage.doc_id}@v{passage.version}",
        page=passage.page,
    )
