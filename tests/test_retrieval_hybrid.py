"""Dense and hybrid retrieval with the fake embedder and reranker: fusion, the embedding cache, vectors built
before (never during) a search, score fields, rerank and its fallback."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import write_file
from veriground.backends.fakes import FakeEmbedder, FakeReranker
from veriground.config import IngestConfig, RetrievalConfig
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore
from veriground.errors import ConfigError, NotFoundError
from veriground.retrieval.dense import DenseIndex, embedding_key
from veriground.retrieval.fusion import fuse_rankings
from veriground.retrieval.search import CorpusRetriever

PARAGRAPHS = {
    "velocity.md": "Velocity is the rate at which position changes with time, measured in metres per second.",
    "energy.md": "Kinetic energy grows with the square of speed; doubling the speed quadruples the energy.",
    "sorting.md": "Merge sort splits the list in halves, sorts each half and merges them in linear time.",
    "graphs.md": "A graph is a pair of a set of vertices and a set of edges joining pairs of vertices.",
}


@pytest.fixture
def store(tmp_path):
    for name, text in PARAGRAPHS.items():
        write_file(tmp_path / "docs", name, text + "\n")
    with CorpusStore(tmp_path / "corpus") as opened:
        ingest_paths([tmp_path / "docs"], opened, IngestConfig(min_passage_chars=10))
        yield opened


class FailingReranker(FakeReranker):
    name = "failing-reranker.v1"

    def rank(self, query, passages):
        raise RuntimeError("out of memory")


def test_reciprocal_rank_fusion_rewards_agreement_and_keeps_first_seen_order_on_ties():
    fused = fuse_rankings([["a", "b", "c"], ["b", "a", "d"]], k=60)
    assert [item for item, _ in fused] == ["a", "b", "c", "d"]
    assert fused[0][1] == pytest.approx(1 / 61 + 1 / 62)
    assert fused[2][1] == fused[3][1] == pytest.approx(1 / 63)


def test_dense_mode_needs_an_embedder(store):
    with pytest.raises(ConfigError, match="retrieval.mode dense needs an embedder"):
        CorpusRetriever(store, RetrievalConfig(mode="dense"))


def test_hybrid_chunks_carry_every_score_and_consecutive_ranks(store):
    retriever = CorpusRetriever(store, RetrievalConfig(mode="hybrid", top_k=3), embedder=FakeEmbedder())
    retriever.build_dense_index()
    chunks = retriever.retrieve("rate at which position changes")
    assert chunks[0].doc_id == "docs/velocity"
    assert [chunk.rank for chunk in chunks] == list(range(1, len(chunks) + 1))
    top = chunks[0]
    assert top.score_bm25 is not None and top.score_dense is not None and top.score_hybrid is not None
    assert top.score_rerank is None


def test_embeddings_are_cached_by_text_so_a_reopened_or_reingested_corpus_does_not_re_embed(store, tmp_path):
    embedder = FakeEmbedder()
    first = CorpusRetriever(store, RetrievalConfig(mode="dense"), embedder=embedder).build_dense_index()
    assert first.embedded_now == len(PARAGRAPHS)
    again = CorpusRetriever(store, RetrievalConfig(mode="dense"), embedder=embedder).build_dense_index()
    assert again.embedded_now == 0
    write_file(tmp_path / "docs", "energy.md", "Potential energy depends on height above the ground.\n")
    ingest_paths([tmp_path / "docs"], store, IngestConfig(min_passage_chars=10))
    after_edit = CorpusRetriever(store, RetrievalConfig(mode="dense"), embedder=embedder).build_dense_index()
    assert after_edit.embedded_now == 1
    other_model = CorpusRetriever(store, RetrievalConfig(mode="dense"), embedder=FakeEmbedder(dimension=32))
    assert other_model.build_dense_index().embedded_now == len(PARAGRAPHS)


def test_a_search_never_embeds_the_corpus_it_says_how_to_build_the_vectors(store):
    embedder = FakeEmbedder()
    retriever = CorpusRetriever(store, RetrievalConfig(mode="hybrid"), embedder=embedder)
    with pytest.raises(NotFoundError, match=r"4 of 4 passages .* have no dense vectors .*`veriground index --dense`"):
        retriever.retrieve("rate at which position changes")
    assert embedder.calls == 0


def test_new_passages_without_vectors_are_refused_until_indexed(store, tmp_path):
    embedder = FakeEmbedder()
    CorpusRetriever(store, RetrievalConfig(mode="dense"), embedder=embedder).build_dense_index()
    write_file(tmp_path / "docs", "waves.md", "A wave carries energy from one place to another without matter.\n")
    ingest_paths([tmp_path / "docs"], store, IngestConfig(min_passage_chars=10))
    retriever = CorpusRetriever(store, RetrievalConfig(mode="dense"), embedder=embedder)
    with pytest.raises(NotFoundError, match="1 of 5 passages"):
        retriever.retrieve("wave energy")
    retriever.build_dense_index()
    assert retriever.retrieve("wave energy", top_k=1)[0].doc_id == "docs/waves"


def test_the_saved_matrix_is_memory_mapped_and_searched_without_the_embedder_touching_the_corpus(store):
    embedder = FakeEmbedder()
    built = CorpusRetriever(store, RetrievalConfig(mode="dense"), embedder=embedder).build_dense_index()
    calls = embedder.calls
    loaded = DenseIndex.load(store.corpus_dir, embedding_key(embedder))
    assert isinstance(loaded.matrix, np.memmap)
    assert loaded.passage_ids == built.passage_ids and loaded.generation == store.generation
    retriever = CorpusRetriever(store, RetrievalConfig(mode="dense", top_k=1), embedder=embedder)
    assert retriever.retrieve("merge sort halves")[0].doc_id == "docs/sorting"
    assert embedder.calls == calls + 1  # the query alone


def test_a_reranker_reorders_the_candidates_and_its_scores_are_kept(store):
    config = RetrievalConfig(mode="bm25", top_k=2, rerank_candidates=4)
    chunks = CorpusRetriever(store, config, reranker=FakeReranker()).retrieve("merge sort halves linear time")
    assert chunks[0].doc_id == "docs/sorting"
    assert chunks[0].score_rerank == 1.0


def test_a_failing_reranker_keeps_the_retrieval_order_and_says_so(store):
    config = RetrievalConfig(mode="bm25", top_k=3, rerank_candidates=4)
    plain = CorpusRetriever(store, config).retrieve("energy speed")
    retriever = CorpusRetriever(store, config, reranker=FailingReranker())
    fallback = retriever.retrieve("energy speed")
    assert [chunk.passage_id for chunk in fallback] == [chunk.passage_id for chunk in plain]
    assert retriever.notes == ["reranker failing-reranker.v1 failed (out of memory); kept the retrieval order"]
