"""`veriground eval critic`: the shipped critic set's composition, per-label P/R/F1 / macro-F1 / exact match on a
small hand-checked set, the run folder (same bytes on a rerun), and one-line errors for a bad set."""

from __future__ import annotations

import json
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

from veriground.cli import main
from veriground.errors import InputFileError
from veriground.evaluation.critic_run import read_critic_set, summarize_critic

SHIPPED = resources.files("veriground") / "eval_data" / "critic_set.jsonl"


def write_set(folder: Path, rows: list[dict]) -> Path:
    path = folder / "set.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def row(row_id: str, text: str, labels: list[str], split: str = "test") -> dict:
    return {"id": row_id, "text": text, "labels": labels, "split": split, "source": "test", "license": "CC0-1.0"}


def test_the_shipped_set_meets_the_issue_composition():
    with resources.as_file(SHIPPED) as path:
        rows = read_critic_set(path)
    neutral = [r for r in rows if not r.labels]
    counts = Counter(label for r in rows for label in r.labels)
    assert len(rows) >= 60 and len(neutral) >= 25 and len(rows) - len(neutral) >= 35
    assert all(counts[label] >= 8 for label in ("L1", "L2", "L3", "L4", "L5", "L6")), counts
    assert {r.split for r in rows} == {"dev", "test"}
    assert all(r.source and r.license == "CC0-1.0" for r in rows)
    assert any(len(r.labels) > 1 for r in rows)


def test_summary_scores_per_label_macro_f1_exact_match_and_neutral_rate():
    predictions = [
        {"gold": ["L1"], "predicted": ["L1"], "findings": [{}]},
        {"gold": ["L1", "L5"], "predicted": ["L1"], "findings": [{}]},
        {"gold": [], "predicted": ["L5"], "findings": [{}]},
        {"gold": [], "predicted": [], "findings": []},
    ]
    summary = summarize_critic(predictions)
    metrics = summary["metrics"]
    assert metrics["critic.L1.f1"]["value"] == 1.0
    assert metrics["critic.L5.precision"]["value"] == 0.0 and metrics["critic.L5.recall"]["value"] == 0.0
    assert metrics["critic.L5.f1"]["value"] == 0.0
    assert metrics["critic.L2.f1"] == {"value": None, "reason": "no gold or predicted positives", "n": 4}
    assert metrics["critic.macro_f1"]["value"] == 0.5 and summary["macro_f1_labels_left_out"] == [
        "L2",
        "L3",
        "L4",
        "L6",
    ]
    assert metrics["critic.exact_match"]["value"] == 0.5
    assert metrics["critic.neutral_without_finding"]["value"] == 0.5


def test_eval_critic_writes_a_run_folder_and_a_rerun_writes_the_same_bytes(tmp_path, capsys):
    rows = [
        row("a", "This reckless plan has no alternative.", ["L1", "L5"]),
        row("b", "Allowing one exception will inevitably lead to chaos.", ["L6"]),
        row("c", "Staff may use either the web form or email.", []),
        row("d", "Studies show that 80 percent of remote teams miss deadlines.", ["L3"]),
        row("e", "The dev row is ignored on the test split.", ["L2"], split="dev"),
    ]
    critic_set = write_set(tmp_path, rows)
    argv = ["eval", "critic", "--set", str(critic_set), "--split", "test", "--runs-dir", str(tmp_path / "runs")]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "4 snippets (3 labelled, 1 neutral), tier 1" in out
    assert "macro_f1                  1.000" in out and "exact_match               1.000" in out
    [run_dir] = (tmp_path / "runs").iterdir()
    assert run_dir.name.startswith("critic-t1-test-")
    files = {name: (run_dir / name).read_bytes() for name in ("summary.json", "metrics.csv", "predictions.jsonl")}
    predictions = [json.loads(line) for line in files["predictions.jsonl"].decode().splitlines()]
    assert [p["id"] for p in predictions] == ["a", "b", "c", "d"] and all(p["l3_checked"] for p in predictions)
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["corpus"]["source"] == "bundled demo corpus" and manifest["snippets"] == 4
    assert main(argv) == 0
    capsys.readouterr()
    assert {name: (run_dir / name).read_bytes() for name in files} == files


def test_eval_critic_refuses_a_bad_split_or_tier(capsys):
    assert main(["eval", "critic", "--split", "train"]) == 2
    assert "--split must be one of dev, test, all, got 'train'" in capsys.readouterr().err
    assert main(["eval", "critic", "--tier", "0"]) == 2
    assert "--tier must be 1 or 2, got 0" in capsys.readouterr().err


def test_a_bad_critic_set_row_names_the_line_and_the_field(tmp_path):
    path = write_set(tmp_path, [row("a", "A plan.", ["L9"])])
    with pytest.raises(InputFileError, match=r"set.jsonl line 1: labels.0: Input should be 'L1'"):
        read_critic_set(path)
    path = write_set(tmp_path, [row("a", "A plan.", ["L1", "L1"])])
    with pytest.raises(InputFileError, match="labels repeat a label"):
        read_critic_set(path)
