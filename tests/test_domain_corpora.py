"""Acceptance over the four real domain corpora in ../shared/datasets, as issue 2 states it."""

from __future__ import annotations

import shutil

from veriground.config import IngestConfig, RetrievalConfig
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore
from veriground.retrieval.search import BM25Retriever

SOURCES = {"openstax-physics", "open-data-structures", "discrete-math-levin", "18f-handbook"}


def all_passage_ids(store: CorpusStore) -> dict[str, list[str]]:
    return {
        doc.doc_id: [passage.passage_id for passage in store.passages_of(doc.doc_id, doc.version)]
        for doc in store.list_documents()
    }


def test_all_four_corpora_ingest_then_reingest_changes_nothing(domain_corpora, corpus_dir):
    with CorpusStore(corpus_dir) as store:
        first = ingest_paths([domain_corpora], store, IngestConfig())
        ids_before = all_passage_ids(store)
        second = ingest_paths([domain_corpora], store, IngestConfig())
        ids_after = all_passage_ids(store)
        sources = {doc.source_id for doc in store.list_documents()}
        chunks = BM25Retriever(store, RetrievalConfig()).retrieve("kinetic energy", top_k=5)
    assert first.failed == 0
    assert first.added > 300
    assert {item.outcome for item in first.items if item.outcome != "added"} <= {"skipped"}
    assert sources >= SOURCES
    assert (second.added, second.new_version, second.unchanged) == (0, 0, first.added)
    assert ids_after == ids_before
    assert all(chunk.source == "openstax-physics" for chunk in chunks)


def test_editing_one_paragraph_of_a_real_chapter_changes_one_id(domain_corpora, tmp_path, corpus_dir):
    chapter = tmp_path / "book" / "energy.md"
    chapter.parent.mkdir()
    shutil.copy(domain_corpora / "openstax-physics" / "10_work-energy-and-simple-machines.md", chapter)
    with CorpusStore(corpus_dir) as store:
        ingest_paths([chapter.parent], store, IngestConfig())
        before = [p.passage_id for p in store.passages_of("book/energy", 1)]
        text = chapter.read_text(encoding="utf-8")
        sentence = "Kinetic energy is also called energy of motion"
        assert text.count(sentence) == 1
        chapter.write_text(text.replace(sentence, "Kinetic energy is the energy of motion", 1), encoding="utf-8")
        report = ingest_paths([chapter.parent], store, IngestConfig())
        after = [p.passage_id for p in store.passages_of("book/energy", 2)]
    assert report.new_version == 1
    assert len(before) == len(after)
    assert sum(a != b for a, b in zip(before, after, strict=True)) == 1
