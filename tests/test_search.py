"""BM25 search: ranking, record fields, offsets, index freshness and bad queries."""

from __future__ import annotations

import pytest

from conftest import write_file
from veriground.config import IngestConfig, RetrievalConfig
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore
from veriground.errors import ConfigError
from veriground.retrieval.bm25 import INDEX_DIR_NAME
from veriground.retrieval.search import BM25Retriever
from veriground.text.terms import tokenize

DOCS = {
    "physics/energy.md": "Kinetic energy is the energy of motion, KE = 1/2 m v^2.\n\n"
    "Potential energy is stored energy of position.",
    "algorithms/sorting.txt": "Merge sort runs in O(n log n) time in the worst case.\n\n"
    "Quicksort runs in O(n log n) expected time.",
    "policy/travel.md": "Travellers receive a per diem for meals and incidental expenses on each day of travel.",
}


@pytest.fixture
def store(tmp_path, corpus_dir):
    for name, text in DOCS.items():
        write_file(tmp_path / "lib", name, text)
    with CorpusStore(corpus_dir) as store:
        ingest_paths([tmp_path / "lib"], store, IngestConfig(min_passage_chars=10))
        yield store


def test_tokenize_stems_and_drops_stopwords():
    assert tokenize("The energies of moving objects") == ["energi", "move", "object"]


def test_best_passage_first_with_ids_scores_and_exact_offsets(store):
    chunks = BM25Retriever(store, RetrievalConfig()).retrieve("kinetic energy", top_k=3)
    top = chunks[0]
    assert top.doc_id == "lib/physics/energy"
    assert top.passage_id.startswith("lib/physics/energy#")
    assert [chunk.rank for chunk in chunks] == list(range(1, len(chunks) + 1))
    assert all(a.score_bm25 >= b.score_bm25 > 0 for a, b in zip(chunks, chunks[1:], strict=False))
    text = store.document_text(top.doc_id, 1)
    assert text[top.char_start : top.char_end] == top.text
    assert (top.source, top.version, top.sent_id) == ("physics", "lib/physics/energy@v1", 0)


def test_words_absent_from_the_corpus_give_no_results(store):
    assert BM25Retriever(store, RetrievalConfig()).retrieve("zebra xylophone") == []


def test_index_is_persisted_and_rebuilt_after_a_change(tmp_path, store):
    retriever = BM25Retriever(store, RetrievalConfig())
    retriever.retrieve("energy")
    assert (store.corpus_dir / INDEX_DIR_NAME / "manifest.json").is_file()
    write_file(tmp_path / "more", "thermo.md", "Entropy of an isolated system never decreases over time.")
    ingest_paths([tmp_path / "more"], store, IngestConfig(min_passage_chars=10))
    fresh = BM25Retriever(store, RetrievalConfig())  # a new process would load from disk
    assert fresh.retrieve("entropy")[0].doc_id == "more/thermo"


def test_search_sees_only_the_latest_version(tmp_path, store):
    write_file(tmp_path / "lib", "policy/travel.md", "Travellers are reimbursed for lodging at cost.")
    ingest_paths([tmp_path / "lib"], store, IngestConfig(min_passage_chars=10))
    retriever = BM25Retriever(store, RetrievalConfig())
    assert retriever.retrieve("per diem meals") == []
    assert retriever.retrieve("lodging")[0].version == "lib/policy/travel@v2"


@pytest.mark.parametrize(
    ("query", "top_k", "message"), [("energy", 0, "top_k must be 1..200, got 0"), ("  ", 5, "query is empty")]
)
def test_bad_queries_raise_clear_errors(store, query, top_k, message):
    with pytest.raises(ConfigError, match=message):
        BM25Retriever(store, RetrievalConfig()).retrieve(query, top_k=top_k)
