"""Query the corpus: query text -> ranked EvidenceChunk records from the latest document versions.

`BM25Retriever` is keyword search; its index is rebuilt from the store's cached tokens whenever the store's
generation moved on. `CorpusRetriever` adds the dense and hybrid modes (reciprocal-rank fusion of BM25 and
dense ranks) and an optional cross-encoder rerank of the best `rerank_candidates`; if the reranker fails it
keeps the retrieval order and records why in `notes`, which reports show. Only passages whose kind is in
`retrieval.evidence_kinds` are returned: both indexes hold every passage, and a search goes deeper by the number of
passages left out, so the filtered top-k is exactly the top-k among evidence passages.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from veriground.backends.protocols import Embedder, Reranker
from veriground.config import Config, RetrievalConfig
from veriground.corpus.store import CorpusStore
from veriground.errors import BackendError, ConfigError
from veriground.retrieval.bm25 import BM25Index
from veriground.retrieval.dense import DenseIndex
from veriground.retrieval.fusion import fuse_rankings
from veriground.schema import PASSAGE_KINDS, EvidenceChunk, Passage
from veriground.text.terms import tokenize

if TYPE_CHECKING:
    import numpy as np

_Hit = tuple[str, float]  # (passage_id, score)


# The first search goes this many times deeper than asked; only when too few evidence passages survive the kind
# filter does it go as deep as the number of passages left out, which makes the result exact.
OVERFETCH_FACTOR = 4


class KindFilter:
    """Which latest-version passages are left out of results (their kind is not in retrieval.evidence_kinds)."""

    def __init__(self, store: CorpusStore, evidence_kinds: Sequence[str]) -> None:
        self._store = store
        self._left_out_kinds = frozenset(PASSAGE_KINDS) - frozenset(evidence_kinds)
        self._generation: int | None = None
        self._left_out: frozenset[str] = frozenset()

    def left_out(self) -> frozenset[str]:
        generation = self._store.generation
        if generation != self._generation:
            self._left_out = frozenset(self._store.latest_passage_kinds(self._left_out_kinds))
            self._generation = generation
        return self._left_out

    def search(
        self, search: Callable[[int], list[_Hit]], depth: int, left_out: frozenset[str] | None = None
    ) -> list[_Hit]:
        """The best `depth` hits of `search(k)` (best first) whose passage is evidence; `left_out` is left_out(),
        when the caller has read it for a batch of queries."""
        left_out = self.left_out() if left_out is None else left_out
        if not left_out:
            return search(depth)
        first = depth * OVERFETCH_FACTOR
        hits = search(first)
        kept = [hit for hit in hits if hit[0] not in left_out]
        if len(kept) < depth and len(hits) == first and first < depth + len(left_out):
            kept = [hit for hit in search(depth + len(left_out)) if hit[0] not in left_out]
        return kept[:depth]


@dataclass(frozen=True)
class QueryTerms:
    weights: dict[str, float]  # stem -> idf
    unknown: frozenset[str]  # stems no indexed passage contains


class BM25Retriever:
    """Lexical retriever over one corpus store."""

    def __init__(self, store: CorpusStore, config: RetrievalConfig) -> None:
        self._store = store
        self._config = config
        self._index: BM25Index | None = None
        self._kinds = KindFilter(store, config.evidence_kinds)

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
        return self.retrieve_many([_nonempty(query)], top_k)[0]

    def retrieve_many(self, queries: Sequence[str], top_k: int | None = None) -> list[list[EvidenceChunk]]:
        """One ranked list per query, from one index load and one passage lookup for the whole batch."""
        k = _checked_top_k(self._config, top_k)
        all_hits = self.search_ids_many(queries, k)
        passages = self._store.latest_passages(list(dict.fromkeys(pid for hits in all_hits for pid, _ in hits)))
        return [
            [
                to_evidence_chunk(passages[pid], rank=rank, score_bm25=score)
                for rank, (pid, score) in enumerate((hit for hit in hits if hit[0] in passages), start=1)
            ]
            for hits in all_hits
        ]

    def search_ids(self, query: str, depth: int) -> list[_Hit]:
        """(passage_id, bm25_score) of the best `depth` evidence passages for `query`, best first."""
        return self.search_ids_many([query], depth)[0]

    def search_ids_many(self, queries: Sequence[str], depth: int) -> list[list[_Hit]]:
        """search_ids of each query, the store's generation read once for the batch."""
        index, left_out = self.refresh(), self._kinds.left_out()

        def hits(query: str) -> Callable[[int], list[_Hit]]:
            return lambda k: [(hit.passage_id, hit.bm25_score) for hit in index.search(query, k)]

        return [self._kinds.search(hits(query), depth, left_out) for query in queries]


class CorpusRetriever:
    """bm25, dense or hybrid retrieval (config retrieval.mode), optionally reranked."""

    def __init__(
        self,
        store: CorpusStore,
        config: RetrievalConfig,
        *,
        embedder: Embedder | None = None,
        reranker: Reranker | None = None,
    ) -> None:
        if config.mode != "bm25" and embedder is None:
            raise ConfigError(
                f"retrieval.mode {config.mode} needs an embedder (models.embedder); or use --retrieval bm25"
            )
        self._store = store
        self._config = config
        self._bm25 = BM25Retriever(store, config)
        self._embedder = embedder
        self._reranker = reranker
        self._dense: DenseIndex | None = None
        self._kinds = KindFilter(store, config.evidence_kinds)
        self.notes: list[str] = []

    def query_terms(self, query: str) -> QueryTerms:
        """The question's content words (stemmed, as BM25 sees them) with their corpus idf."""
        index = self._bm25.refresh()
        frequencies = index.document_frequencies(tokenize(query))
        unknown = frozenset(token for token, df in frequencies.items() if df == 0)
        return QueryTerms(weights=index.idf_weights(frequencies), unknown=unknown)

    def passages_indexed(self) -> int:
        """How many passages search sees (the BM25 index is brought up to date first)."""
        return len(self._bm25.refresh().passage_ids)

    def dense_index(self) -> DenseIndex:
        """The dense index for the store's current generation; NotFoundError when vectors are missing (a search
        never embeds the corpus: ingest or `veriground index --dense` does)."""
        if self._dense is None or self._dense.generation != self._store.generation:
            self._dense = DenseIndex.open(
                self._store, self._needs_embedder(), ann_min_passages=self._config.ann_min_passages
            )
            self._note_exact_search(self._dense)
        return self._dense

    def build_dense_index(self, on_progress: Callable[[int, int], None] | None = None) -> DenseIndex:
        """Embed the latest passages that have no vector yet and save the matrix; `on_progress(done, total)`
        counts the passages embedded."""
        self._dense = DenseIndex.build(
            self._store, self._needs_embedder(), on_progress, ann_min_passages=self._config.ann_min_passages
        )
        self._note_exact_search(self._dense)
        return self._dense

    def _note_exact_search(self, index: DenseIndex) -> None:
        note = index.ann_note(self._config.ann_min_passages)
        if note is not None and note not in self.notes:
            self.notes.append(note)

    def _needs_embedder(self) -> Embedder:
        if self._embedder is None:
            raise ConfigError("dense vectors need an embedder (models.embedder); or use --retrieval bm25")
        return self._embedder

    def retrieve(self, query: str, top_k: int | None = None) -> list[EvidenceChunk]:
        return self.retrieve_many([_nonempty(query)], top_k)[0]

    def retrieve_many(self, queries: Sequence[str], top_k: int | None = None) -> list[list[EvidenceChunk]]:
        k = _checked_top_k(self._config, top_k)
        mode = self._config.mode
        depth = max(k, self._config.rerank_candidates if self._reranker else k)
        # Each list goes deeper than the fused one, so a passage ranked well by one side can still enter.
        pool = depth * (2 if mode == "hybrid" else 1)
        bm25: list[list[_Hit]] = [[] for _ in queries]
        dense: list[list[_Hit]] = [[] for _ in queries]
        if mode in ("bm25", "hybrid"):
            bm25 = self._bm25.search_ids_many(queries, pool)
        if mode in ("dense", "hybrid"):
            index = self.dense_index()
            vectors = self._needs_embedder().encode(list(queries))
            dense = [self._dense_search(index, v, pool) for v in vectors]
        ranked = []
        for bm25_hits, dense_hits in zip(bm25, dense, strict=True):
            fused: Sequence[tuple[str, float | None]]
            if mode == "hybrid":
                fused = fuse_rankings([[p for p, _ in bm25_hits], [p for p, _ in dense_hits]], self._config.rrf_k)
            else:
                fused = [(p, None) for p, _ in (bm25_hits or dense_hits)]
            ranked.append((fused[:depth], dict(bm25_hits), dict(dense_hits)))
        wanted = list(dict.fromkeys(p for fused, _, _ in ranked for p, _ in fused))
        passages = self._store.latest_passages(wanted)
        results = []
        for query, (fused, bm25_scores, dense_scores) in zip(queries, ranked, strict=True):
            fused = [(p, score) for p, score in fused if p in passages]
            rerank_scores = self._rerank(query, [passages[p].text for p, _ in fused])
            order = list(range(len(fused)))
            if rerank_scores is not None:
                order.sort(key=lambda i: (-rerank_scores[i], i))
            chunks = []
            for rank, i in enumerate(order[:k], start=1):
                passage_id, hybrid = fused[i]
                chunks.append(
                    to_evidence_chunk(
                        passages[passage_id],
                        rank=rank,
                        score_bm25=bm25_scores.get(passage_id),
                        score_dense=dense_scores.get(passage_id),
                        score_hybrid=hybrid,
                        score_rerank=None if rerank_scores is None else rerank_scores[i],
                    )
                )
            results.append(chunks)
        return results

    def _dense_search(self, index: DenseIndex, vector: np.ndarray, depth: int) -> list[_Hit]:
        return self._kinds.search(
            lambda k: [(hit.passage_id, hit.dense_score) for hit in index.search(vector, k)], depth
        )

    def backends(self) -> list[tuple[str, Embedder | Reranker]]:
        """(role, backend) of every model this retriever uses, for the report manifest."""
        found: list[tuple[str, Embedder | Reranker]] = []
        if self._embedder is not None and self._config.mode != "bm25":
            found.append(("embedder", self._embedder))
        if self._reranker is not None:
            found.append(("reranker", self._reranker))
        return found

    def _rerank(self, query: str, texts: list[str]) -> list[float] | None:
        if self._reranker is None or not texts:
            return None
        try:
            scores = self._reranker.rank(query, texts)
            if len(scores) != len(texts):
                raise BackendError(f"returned {len(scores)} scores for {len(texts)} passages")
            return [round(float(score), 6) for score in scores]
        except Exception as err:  # a failing reranker must not sink retrieval: fall back, and say so
            note = f"reranker {self._reranker.name} failed ({err}); kept the retrieval order"
            if note not in self.notes:
                self.notes.append(note)
            return None


def _nonempty(query: str) -> str:
    if not query.strip():
        raise ConfigError("the query is empty; pass some words to search for")
    return query


def _checked_top_k(config: RetrievalConfig, top_k: int | None) -> int:
    k = config.top_k if top_k is None else top_k
    if not 1 <= k <= 200:
        raise ConfigError(f"retrieval.top_k must be 1..200, got {k} (use -k/--top-k)")
    return k


def to_evidence_chunk(
    passage: Passage,
    *,
    rank: int,
    score_bm25: float | None,
    score_dense: float | None = None,
    score_hybrid: float | None = None,
    score_rerank: float | None = None,
) -> EvidenceChunk:
    return EvidenceChunk(
        doc_id=passage.doc_id,
        sent_id=passage.ordinal,
        passage_id=passage.passage_id,
        text=passage.text,
        char_start=passage.char_start,
        char_end=passage.char_end,
        score_bm25=None if score_bm25 is None else round(score_bm25, 6),
        score_dense=score_dense,
        score_hybrid=score_hybrid,
        score_rerank=score_rerank,
        rank=rank,
        source=passage.source_id,
        source_type=passage.source_type,
        version=f"{passage.doc_id}@v{passage.version}",
        page=passage.page,
        kind=passage.kind,
        doc_sha256=passage.doc_sha256,
    )


def build_retriever(store: CorpusStore, config: Config) -> CorpusRetriever:
    """The retriever the config asks for; a reranker that cannot be built is skipped, and the report says so."""
    from veriground.backends.registry import build_embedder, build_reranker

    embedder = build_embedder(config.models) if config.retrieval.mode != "bm25" else None
    note = None
    try:
        reranker = build_reranker(config.models)
    except BackendError as err:
        reranker, note = None, f"reranker {config.models.reranker!r} not loaded ({err}); kept the retrieval order"
    retriever = CorpusRetriever(store, config.retrieval, embedder=embedder, reranker=reranker)
    if note:
        retriever.notes.append(note)
    return retriever
