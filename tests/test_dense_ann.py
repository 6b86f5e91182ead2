"""The ANN path of dense retrieval (faiss IVF, forced on with a low threshold): build, persist, memory-mapped reload,
recall against exact search, rebuild when the corpus changes, a damaged file, and exact search without faiss."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from conftest import write_file
from veriground.backends.fakes import FakeEmbedder
from veriground.config import IngestConfig, RetrievalConfig
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore
from veriground.errors import NotFoundError, StoreError
from veriground.retrieval import ann
from veriground.retrieval.ann import ANN_FILE_NAME, AnnIndex
from veriground.retrieval.dense import MANIFEST_NAME, DenseIndex, dense_dir, embedding_key
from veriground.retrieval.search import CorpusRetriever

ROWS, DIMENSION, TOPICS = 4000, 64, 40
TOPIC_WORDS = ["velocity", "energy", "graph", "sorting", "protein", "market", "orbit", "enzyme", "tariff", "lattice"]


def clustered_vectors(count: int, seed: int) -> np.ndarray:
    """Unit vectors around TOPICS seeded centres, the shape real sentence embeddings have."""
    rng = np.random.default_rng(seed)
    centres = np.random.default_rng(0).standard_normal((TOPICS, DIMENSION))
    vectors = centres[rng.integers(0, TOPICS, count)] + 0.6 * rng.standard_normal((count, DIMENSION))
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture(scope="module")
def matrix_index() -> DenseIndex:
    pytest.importorskip("faiss")
    index = DenseIndex([f"p{row}" for row in range(ROWS)], clustered_vectors(ROWS, 1), 7, "test|model")
    index.ann = AnnIndex.build(index.matrix)
    return index


def recall_at_10(index: DenseIndex, queries: np.ndarray) -> float:
    found = 0
    for query in queries:
        exact = {hit.passage_id for hit in index.search(query, 10, exact=True)}
        found += len(exact & {hit.passage_id for hit in index.search(query, 10)})
    return found / (10 * len(queries))


def test_ann_search_recalls_the_exact_top_10_and_keeps_exact_scores(matrix_index):
    queries = clustered_vectors(100, 2)
    assert recall_at_10(matrix_index, queries) >= 0.95
    exact = {hit.passage_id: hit.dense_score for hit in matrix_index.search(queries[0], 50, exact=True)}
    approximate = matrix_index.search(queries[0], 10)
    assert [hit.rank for hit in approximate] == list(range(1, 11))
    assert all(exact[hit.passage_id] == hit.dense_score for hit in approximate if hit.passage_id in exact)


def test_the_ann_index_is_saved_beside_the_matrix_and_memory_mapped_back(matrix_index, tmp_path):
    matrix_index.save(tmp_path)
    manifest = json.loads((dense_dir(tmp_path, "test|model") / MANIFEST_NAME).read_text(encoding="utf-8"))
    assert manifest["ann"]["format"] == ann.ANN_FORMAT and manifest["ann"]["rows"] == ROWS
    loaded = DenseIndex.load(tmp_path, "test|model")
    assert loaded.ann is not None and loaded.generation == 7
    for query in clustered_vectors(20, 3):
        assert loaded.search(query, 10) == matrix_index.search(query, 10)


def test_a_damaged_ann_file_is_reported_with_the_fix(matrix_index, tmp_path):
    matrix_index.save(tmp_path)
    path = dense_dir(tmp_path, "test|model") / ANN_FILE_NAME
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(StoreError, match=r"ANN index in .* is damaged .*`veriground index --dense`"):
        DenseIndex.load(tmp_path, "test|model")


def test_a_search_deeper_than_the_ann_serves_is_exact(matrix_index):
    query = clustered_vectors(1, 4)[0]
    assert matrix_index.search(query, ROWS // 2) == matrix_index.search(query, ROWS // 2, exact=True)


def write_topic_files(folder, names: range) -> None:
    for number in names:
        topic = TOPIC_WORDS[number % 10]
        paragraphs = [
            f"Note {number}.{part} about {topic} and {TOPIC_WORDS[part % 10]}: item {number * 7 + part}."
            for part in range(10)
        ]
        write_file(folder, f"n{number:03d}.md", "\n\n".join(paragraphs) + "\n")


# The fixture corpus has 300-400 passages: an ANN index is built from 100 here (50,000 by default).
LOW_BAR = RetrievalConfig(mode="dense", ann_min_passages=100)


@pytest.fixture
def store(tmp_path):
    write_topic_files(tmp_path / "docs", range(30))
    with CorpusStore(tmp_path / "corpus") as opened:
        ingest_paths([tmp_path / "docs"], opened, IngestConfig(min_passage_chars=10))
        yield opened


def test_the_ann_index_is_built_with_the_vectors_and_rebuilt_when_the_corpus_changes(store, tmp_path):
    pytest.importorskip("faiss")
    embedder = FakeEmbedder()
    retriever = CorpusRetriever(store, RetrievalConfig(mode="hybrid", top_k=3, ann_min_passages=100), embedder=embedder)
    built = retriever.build_dense_index()
    assert built.ann is not None and built.ann.rows == len(built.passage_ids) == 300
    assert retriever.retrieve("energy orbit")[0].score_dense is not None
    reopened = DenseIndex.open(store, embedder, ann_min_passages=100)
    assert reopened.ann is not None and reopened.generation == store.generation
    write_topic_files(tmp_path / "docs", range(30, 40))
    ingest_paths([tmp_path / "docs"], store, IngestConfig(min_passage_chars=10))
    with pytest.raises(NotFoundError, match="100 of 400 passages"):
        CorpusRetriever(store, LOW_BAR, embedder=embedder).retrieve("energy")
    rebuilt = CorpusRetriever(store, LOW_BAR, embedder=embedder).build_dense_index()
    assert rebuilt.ann is not None and rebuilt.ann.rows == 400
    assert DenseIndex.load(store.corpus_dir, embedding_key(embedder)).ann.rows == 400


def test_below_the_threshold_no_ann_is_built_and_the_saved_manifest_is_unchanged(store):
    index = CorpusRetriever(store, RetrievalConfig(mode="dense"), embedder=FakeEmbedder()).build_dense_index()
    assert index.ann is None and index.ann_note(RetrievalConfig().ann_min_passages) is None
    manifest = json.loads((dense_dir(store.corpus_dir, index.model_key) / MANIFEST_NAME).read_text(encoding="utf-8"))
    assert sorted(manifest) == ["dimension", "dtype", "generation", "model_key", "passages"]


def test_without_faiss_search_stays_exact_and_a_note_says_so(store, monkeypatch):
    embedder = FakeEmbedder()
    with_faiss = None
    if ann.load_faiss() is not None:
        with_faiss = CorpusRetriever(store, LOW_BAR, embedder=embedder).build_dense_index()
    monkeypatch.setitem(sys.modules, "faiss", None)  # `import faiss` now raises ImportError
    retriever = CorpusRetriever(store, RetrievalConfig(mode="dense", top_k=5, ann_min_passages=100), embedder=embedder)
    if with_faiss is not None:  # a saved ANN index is ignored, not an error
        assert retriever.dense_index().ann is None
    index = retriever.build_dense_index()
    assert index.ann is None
    chunks = retriever.retrieve("energy orbit")
    exact = index.search(embedder.encode(["energy orbit"])[0], 5, exact=True)
    assert [chunk.passage_id for chunk in chunks] == [hit.passage_id for hit in exact]
    assert any("faiss is not installed" in note and "veriground[ann]" in note for note in retriever.notes)


def test_a_tiny_corpus_never_gets_an_ann_index_whatever_the_config_says(tmp_path):
    pytest.importorskip("faiss")
    write_topic_files(tmp_path / "docs", range(1))
    with CorpusStore(tmp_path / "corpus") as store:
        ingest_paths([tmp_path / "docs"], store, IngestConfig(min_passage_chars=10))
        config = RetrievalConfig(mode="dense", ann_min_passages=1)
        index = CorpusRetriever(store, config, embedder=FakeEmbedder()).build_dense_index()
        assert index.ann is None and len(index.passage_ids) < ann.MIN_ANN_ROWS


def test_with_ann_off_a_damaged_ann_file_is_never_read(store):
    pytest.importorskip("faiss")
    embedder = FakeEmbedder()
    built = CorpusRetriever(store, LOW_BAR, embedder=embedder).build_dense_index()
    ann_file = dense_dir(store.corpus_dir, built.model_key) / ANN_FILE_NAME
    ann_file.write_bytes(ann_file.read_bytes()[:100])
    exact_only = RetrievalConfig(mode="dense", ann_min_passages=None)
    assert CorpusRetriever(store, exact_only, embedder=embedder).retrieve("energy orbit")
    with pytest.raises(StoreError, match="damaged"):
        CorpusRetriever(store, LOW_BAR, embedder=embedder).retrieve("energy orbit")
