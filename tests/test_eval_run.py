"""`eval run` and `eval compare`: the demo golden set (dev split) -> a run folder with every file, byte-stable
reruns, ablation flags that make their own runs, a comparison CSV, and one-line errors for bad input."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from veriground.cli import main
from veriground.evaluation.golden_metrics import CONFIDENCE_PROBABILITY, summarize
from veriground.evaluation.run_files import (
    MANIFEST_FILE,
    METRICS_FILE,
    PREDICTIONS_FILE,
    SUMMARY_FILE,
)

pytest.importorskip("matplotlib", reason="the eval extra: pip install 'veriground[eval]' (make test installs it)")

DEV_ROWS = 24  # the demo golden set's dev split
DEV_DOMAINS = {"physics": 7, "discrete_math": 5, "algorithms": 4, "policy": 6, "off_topic": 1}
STABLE_FILES = (
    SUMMARY_FILE,
    METRICS_FILE,
    PREDICTIONS_FILE,
    "figures/reliability.png",
    "figures/abstention_tradeoff.png",
    "figures/groundedness.png",
)


def _run(runs_dir: Path, *extra: str) -> Path:
    assert main(["eval", "run", "--split", "dev", "--runs-dir", str(runs_dir), *extra]) == 0
    (folder,) = [path for path in runs_dir.iterdir() if path.is_dir()]
    return folder


@contextmanager
def lexical_nli() -> Iterator[None]:
    """conftest pins the lexical NLI per test; a module-scoped fixture is set up before that, so it pins it too."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("VERIGROUND_MODELS__NLI", "lexical")
        yield


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    with lexical_nli():
        return _run(tmp_path_factory.mktemp("runs"))


def test_run_writes_every_file(run_dir):
    for name in (*STABLE_FILES, MANIFEST_FILE):
        assert (run_dir / name).is_file() and (run_dir / name).stat().st_size > 0, name
    summary = json.loads((run_dir / SUMMARY_FILE).read_text())
    assert summary["runnable"] and summary["rows"]["total"] == DEV_ROWS
    assert 0 <= summary["metrics"]["retrieval.recall_at_5"]["value"] <= 1
    assert "not alce" in summary["definitions"]["citation.gold_overlap_precision"].lower()
    assert {"citation.alce_recall", "citation.alce_precision", "claims.ungrounded_rate"} <= set(summary["metrics"])
    assert summary["groundedness"]["all"]["grounded"] + summary["groundedness"]["all"]["withheld"] > 0
    predictions = [json.loads(line) for line in (run_dir / PREDICTIONS_FILE).read_text().splitlines()]
    assert len(predictions) == DEV_ROWS and {row["kind"] for row in predictions} == {
        "answerable",
        "unanswerable",
        "contradiction",
    }
    manifest = json.loads((run_dir / MANIFEST_FILE).read_text())
    assert len(manifest["golden"]["sha256"]) == 64 and manifest["run_timestamp"]
    assert {info["role"] for info in manifest["backends"]} >= {"nli", "retriever"}
    assert "run_timestamp" not in (run_dir / SUMMARY_FILE).read_text()


def test_every_metric_is_also_grouped_by_domain(run_dir, tmp_path, capsys):
    summary = json.loads((run_dir / SUMMARY_FILE).read_text())
    by_domain = summary["by_domain"]
    assert {name: entry["rows"]["total"] for name, entry in by_domain.items()} == {
        **DEV_DOMAINS,
        "algorithms_vs_discrete_math": 1,
    }
    for entry in by_domain.values():
        assert set(entry["metrics"]) == set(summary["metrics"])
    physics = by_domain["physics"]["metrics"]["answer.correct_rate"]
    assert physics["n"] == 4 and 0 <= physics["value"] <= 1  # the four answerable physics rows of the dev split
    assert by_domain["off_topic"]["metrics"]["answer.correct_rate"]["reason"] == "no answerable rows"
    predictions = [json.loads(line) for line in (run_dir / PREDICTIONS_FILE).read_text().splitlines()]
    assert {row["query_id"]: row["domain"] for row in predictions}["g051"] == "physics"
    capsys.readouterr()
    _run(tmp_path, "--no-figures")
    printed = capsys.readouterr().out
    header = next(line for line in printed.splitlines() if line.lstrip().startswith("metric"))
    assert header.split()[1:] == list(by_domain)
    assert "by domain (rows: algorithms 4, algorithms_vs_discrete_math 1, discrete_math 5" in printed


def test_same_run_twice_gives_identical_bytes(run_dir, tmp_path):
    again = _run(tmp_path)
    assert again.name == run_dir.name  # the run id depends on the inputs only
    for name in STABLE_FILES:
        assert (again / name).read_bytes() == (run_dir / name).read_bytes(), name


def test_b1_without_an_llm_is_recorded_as_not_runnable(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("VERIGROUND_LLM_BASE_URL", raising=False)
    folder = _run(tmp_path, "--baseline", "B1", "--no-figures")
    summary = json.loads((folder / SUMMARY_FILE).read_text())
    assert summary["runnable"] is False and "needs an LLM" in summary["reason"]
    assert summary["metrics"] == {}
    assert "not runnable" in capsys.readouterr().out


def test_compare_writes_the_csv(run_dir, tmp_path, capsys):
    out = tmp_path / "run_summary.csv"
    figure = tmp_path / "bars.png"
    assert main(["eval", "compare", str(run_dir), str(run_dir), "--out", str(out), "--figure", str(figure)]) == 0
    rows = list(csv.reader(out.open()))
    assert rows[0] == ["metric", run_dir.name, run_dir.name]
    metrics = {row[0]: row[1] for row in rows[1:]}
    assert "calibration.ece" in metrics and "retrieval.mrr" in metrics
    assert figure.stat().st_size > 0
    assert run_dir.name in capsys.readouterr().out


def test_bad_golden_path_is_a_one_line_error(tmp_path, capsys):
    code = main(["eval", "run", "--golden", str(tmp_path / "missing.jsonl"), "--runs-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code != 0
    assert err.startswith("error: ") and "missing.jsonl" in err and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_compare_of_a_folder_that_is_not_a_run_is_a_one_line_error(tmp_path, capsys):
    assert main(["eval", "compare", str(tmp_path)]) != 0
    err = capsys.readouterr().err
    assert "not a run folder" in err and len(err.strip().splitlines()) == 1


def test_summary_metrics_follow_their_definitions():
    def row(kind, abstained, cited, gold=(), confidence="high", claims=()):
        return {
            "kind": kind,
            "abstained": abstained,
            "cited_ids": list(cited),
            "gold_ids": list(gold),
            "confidence": "insufficient_evidence" if abstained else confidence,
            "retrieved": [{"passage_id": pid, "rank": rank} for rank, pid in enumerate(["a", "b", "c"], start=1)],
            "claims": list(claims),
            "reports_conflict": False,
        }

    rows = [
        row("answerable", False, ["a", "x"], gold=["a"], claims=[{"kept": True}, {"kept": False}]),
        row("answerable", False, ["x"], gold=["b"], confidence="medium"),
        row("answerable", True, [], gold=["c"]),
        row("unanswerable", True, []),
        row("unanswerable", False, ["a"], confidence="low"),
        row("contradiction", False, ["a"], confidence="high"),
        row("contradiction", False, ["a"], confidence="low"),
    ]
    metrics = summarize(rows)["metrics"]
    assert metrics["citation.gold_overlap_precision"]["value"] == pytest.approx(1 / 3)  # a of {a, x, x}
    assert metrics["citation.gold_overlap_recall"]["value"] == pytest.approx(1 / 2)
    assert metrics["answer.correct_rate"]["value"] == pytest.approx(1 / 3)
    assert metrics["claims.verification_removed_rate"]["value"] == pytest.approx(1 / 2)
    assert metrics["contradiction.handled_rate"]["value"] == pytest.approx(1 / 2)
    assert metrics["retrieval.recall_at_1"]["value"] == pytest.approx(1 / 3)
    assert metrics["retrieval.mrr"]["value"] == pytest.approx((1 + 1 / 2 + 1 / 3) / 3)
    assert metrics["abstention.precision"]["value"] == pytest.approx(1 / 2)  # 2 abstained, 1 was unanswerable
    # Brier over the three answered decidable rows: (0.9 - 1)², (0.75 - 0)², (0.5 - 0)².
    expected = ((0.9 - 1) ** 2 + 0.75**2 + 0.5**2) / 3
    assert metrics["calibration.brier"]["value"] == pytest.approx(expected, abs=1e-6)
    assert set(CONFIDENCE_PROBABILITY.values()) == {0.9, 0.75, 0.5}


def test_summary_reads_alce_citations_and_groundedness_from_the_rows():
    def row(kind, stated, drafted, abstained=False, conflict=False):
        return {
            "kind": kind,
            "abstained": abstained,
            "cited_ids": [],
            "gold_ids": ["g"] if kind == "answerable" else [],
            "confidence": "insufficient_evidence" if abstained else "high",
            "retrieved": [],
            "claims": [],
            "drafted_claims": drafted,
            "answer_claims": stated,
            "reports_conflict": conflict,
        }

    def claim(entailed, cited, relevant):
        return {"text": "t", "cited_ids": cited, "citations_entail": entailed, "relevant_citations": relevant}

    rows = [
        # recall 1/2, precision 2/3 (the second claim's two citations do not entail it together)
        row("answerable", [claim(True, ["a"], ["a"]), claim(False, ["b", "c"], [])], drafted=3),
        # recall 1, precision 1/2 (one of two citations is irrelevant)
        row("unanswerable", [claim(True, ["a", "b"], ["a"])], drafted=1),
        row("contradiction", [], drafted=2, abstained=True, conflict=True),
        row("contradiction", [claim(True, ["a"], ["a"])], drafted=1),
    ]
    summary = summarize(rows)
    metrics = summary["metrics"]
    assert metrics["citation.alce_recall"] == {"value": pytest.approx((1 / 2 + 1 + 1) / 3), "n": 3}
    assert metrics["citation.alce_precision"]["value"] == pytest.approx((1 / 3 + 1 / 2 + 1) / 3)
    assert metrics["claims.ungrounded_rate"] == {"value": pytest.approx(1 / 4), "n": 4}
    assert metrics["contradiction.reported_rate"]["value"] == pytest.approx(1 / 2)
    assert metrics["claims.verification_removed_rate"]["reason"] == "no drafted claim was verified"
    assert summary["groundedness"]["answerable"] == {"grounded": 1, "ungrounded": 1, "unjudged": 0, "withheld": 1}
    assert summary["groundedness"]["contradiction"] == {"grounded": 1, "ungrounded": 0, "unjudged": 0, "withheld": 2}
    assert summary["groundedness"]["all"]["grounded"] == 3


@pytest.fixture(scope="module")
def ablation_runs(tmp_path_factory) -> dict[str, Path]:
    """The dev split once per ablation flag, without figures (they do not change the run id)."""
    runs = {}
    with lexical_nli():
        for flag in ("", "--no-verify", "--no-contradictions", "--no-atomic"):
            runs[flag] = _run(tmp_path_factory.mktemp("ablation"), "--no-figures", *([flag] if flag else []))
    return runs


def test_each_ablation_flag_is_its_own_run_with_its_config_recorded(ablation_runs, run_dir):
    assert ablation_runs[""].name == run_dir.name
    assert len({folder.name for folder in ablation_runs.values()}) == 4
    keys = {
        "--no-verify": ("answer", "verify"),
        "--no-contradictions": ("verification", "contradictions"),
        "--no-atomic": ("verification", "atomic"),
    }
    for flag, (section, key) in keys.items():
        config = json.loads((ablation_runs[flag] / MANIFEST_FILE).read_text())["config"]
        assert config[section][key] is False, flag
        assert all(config[s][k] is True for other, (s, k) in keys.items() if other != flag)
        settings = json.loads((ablation_runs[flag] / SUMMARY_FILE).read_text())["settings"]
        assert settings[key] is False


def _predictions(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / PREDICTIONS_FILE).read_text().splitlines()]


def test_no_verify_states_every_drafted_claim(ablation_runs):
    full, unchecked = _predictions(ablation_runs[""]), _predictions(ablation_runs["--no-verify"])
    assert any(row["claims"] for row in full if not row["abstained"])  # the full pipeline verified its drafts
    answered = [row for row in unchecked if not row["abstained"]]
    assert answered and all(len(row["answer_claims"]) == row["drafted_claims"] for row in answered)
    assert all(row["claims"] == [] for row in unchecked)  # nothing was verified
    summary = json.loads((ablation_runs["--no-verify"] / SUMMARY_FILE).read_text())
    assert summary["metrics"]["claims.verification_removed_rate"]["value"] is None


def test_the_summary_carries_the_claim_evidence_graph_metrics(ablation_runs):
    summary = json.loads((ablation_runs[""] / SUMMARY_FILE).read_text())
    assert summary["metrics"]["graph.redundancy"]["value"] >= 1.0  # every kept claim has a supporting passage
    assert 0 < summary["metrics"]["graph.source_diversity"]["value"] <= 1.0
    assert "graph.redundancy" in summary["definitions"]
