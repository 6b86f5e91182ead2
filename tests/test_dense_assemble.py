"""Assembling the dense matrix (retrieval/dense.py): each cached vector is read from the store once, rows sharing a
text share its vector, a damaged cached vector is embedded again, and a matrix built in part from the cache equals
one embedded from scratch."""

from __future__ import annotations

import numpy as np
import pytest

from veriground.backends.fakes import FakeEmbedder
from veriground.config import IngestConfig
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore
from veriground.retrieval.dense import DenseIndex, embedding_key

TEXTS = [
    "Velocity is the rate of change of position with respect to time.",
    "Kinetic energy grows with the square of the speed of a body.",
    "A heap keeps its smallest key at the root of the tree.",
    "Velocity is the rate of change of position with respect to time.",  # the same text as the first
]


@pytest.fixture
def store(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for number, text in enumerate(TEXTS):
        (docs / f"note{number}.txt").write_text(f"{text}\n", encoding="utf-8")
    with CorpusStore(tmp_path / "corpus") as opened:
        ingest_paths([docs], opened, IngestConfig(min_passage_chars=10))
        yield opened


def test_a_reopened_or_damaged_cache_builds_the_matrix_a_fresh_build_gives(store, monkeypatch):
    embedder = FakeEmbedder()
    fresh = DenseIndex.build(store, embedder)
    assert fresh.embedded_now == 3  # four passages, three texts
    passages = store.latest_passages(fresh.passage_ids)
    rows = [row for row, pid in enumerate(fresh.passage_ids) if passages[pid].text == TEXTS[0]]
    assert len(rows) == 2 and np.array_equal(fresh.matrix[rows[0]], fresh.matrix[rows[1]])
    reads: list[str] = []
    real = store.cached_embeddings
    monkeypatch.setattr(store, "cached_embeddings", lambda key, hashes: reads.extend(hashes) or real(key, hashes))
    reopened = DenseIndex._assemble(store, embedder, False, None, None)
    assert np.array_equal(reopened.matrix, fresh.matrix) and reopened.embedded_now == 0
    assert sorted(reads) == sorted(set(reads)) and len(reads) == 3  # each cached vector read once
    store.save_embeddings(embedding_key(embedder), [(reads[0], b"\x00" * 7)])
    rebuilt = DenseIndex.build(store, embedder)
    assert rebuilt.embedded_now == 1
    assert np.array_equal(rebuilt.matrix, fresh.matrix)
