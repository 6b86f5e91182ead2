"""`eval bench` over ../shared/datasets: every adapter on a 20-row sample (lexical NLI), the readers' label
mappings and counts against each SOURCE.md, deterministic sampling, identical JSON from run to run, and one-line
errors for a missing folder or an unknown name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import SHARED_DATASETS
from veriground.backends.lexical_nli import LexicalNLIModel
from veriground.cli import main
from veriground.config import load_config
from veriground.evaluation import datasets
from veriground.evaluation.benchmarks import (
    BENCHMARK_NAMES,
    DATASETS_ENV,
    run_benchmark,
    select_benchmarks,
)

CONFIG = load_config(None, environ={})
LIMIT = 20
# Every row in each benchmark's files, as its SOURCE.md counts them.
DATASET_SIZES = {
    "fever-symmetric": 708 + 712,
    "summedits": 2617,
    "attributionbench": 500 + 1686,
    "wice": 349 + 358,
    "begin": 3607,
    "faithbench": 800,
    "squad2": 2805,
    "mnli": 9815,
    "snli": 1289,
    "anli": 1000 + 1000 + 1198,
}


@pytest.fixture(scope="module")
def shared_datasets() -> Path:
    """The shared datasets folder; CI always has shared/ beside the clone."""
    if not SHARED_DATASETS.is_dir():
        pytest.skip(f"{SHARED_DATASETS} is not present (it sits beside the checkout in CI)")
    return SHARED_DATASETS


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_every_dataset_has_an_adapter():
    assert set(BENCHMARK_NAMES) == set(DATASET_SIZES)


@pytest.mark.parametrize("name", BENCHMARK_NAMES)
def test_each_adapter_runs_on_a_sample_and_reports_its_authors_metric(shared_datasets, name):
    (benchmark,) = select_benchmarks([name])
    seen: list[int] = []
    result = run_benchmark(
        benchmark, shared_datasets, config=CONFIG, nli=LexicalNLIModel(), limit=LIMIT,
        progress=lambda _, done, total: seen.append(done),
    )  # fmt: skip
    assert result.rows_used == LIMIT and result.dataset_size == DATASET_SIZES[name]
    assert seen and seen[-1] == LIMIT
    assert result.value.value is not None or result.value.reason  # a number, or why there is none
    if result.value.value is not None:
        assert 0.0 <= result.value.value <= 1.0
    if benchmark.kind == "nli":
        assert result.binary is None and set(result.details["confusion"]) == set(datasets.NLI_LABELS)
    else:
        assert result.binary is not None and result.binary.counts.total == LIMIT
    if benchmark.kind == "pairs":
        assert sum(group.rows for group in result.groups.values()) in (0, LIMIT)
        assert result.details["calibration"]["bins"] and result.details["unverified_rows"] == 0


def test_readers_map_labels_and_skip_rows_as_their_sources_say(shared_datasets):
    fever = datasets.read_fever_symmetric(shared_datasets / "fever-symmetric")
    assert {row.label for row in fever.rows} == {"supported", "contradicted"}
    summedits = datasets.read_summedits(shared_datasets / "summedits")
    assert {row.group for row in summedits.rows} == {"news", "scitldr", "samsum", "ectsum"}
    assert sum(row.label == "supported" for row in summedits.rows) == 321 + 145 + 242 + 242  # label 1
    attribution = datasets.read_attributionbench(shared_datasets / "attributionbench")
    assert attribution.skipped == {"no reference text": 75} and len(attribution.rows) == 2186 - 75
    assert {row.group for row in attribution.rows} == {"id", "ood"}
    wice = datasets.read_wice(shared_datasets / "wice")
    assert sum(row.label == "supported" for row in wice.rows) == 115 + 111  # partial and not: unsupported
    assert {len(row.evidence) for row in wice.rows} == {1}  # the cited page, one passage
    assert max(row.evidence[0].count("\n") for row in wice.rows) > 100  # its sentences one per line
    begin = datasets.read_begin(shared_datasets / "begin")
    assert begin.skipped == {"Generic label": 6} and sum(row.label == "supported" for row in begin.rows) == 1392
    faithbench = datasets.read_faithbench(shared_datasets / "faithbench")
    assert sum(row.label == "unsupported" for row in faithbench.rows) == 485 + 77  # Unwanted + Questionable
    snli = datasets.read_snli(shared_datasets / "nli")
    assert snli.skipped == {"no consensus label (-)": 16} and len(snli.rows) == 1273
    anli = datasets.read_anli(shared_datasets / "nli")
    assert [sum(item.group == f"r{n}" for item in anli.rows) for n in (1, 2, 3)] == [1000, 1000, 1198]
    squad = datasets.read_squad2(shared_datasets / "squad2")
    assert len(squad.articles) == 8 and sum(q.impossible for q in squad.questions) == 1527


def test_sampling_is_seeded_sorted_and_keeps_everything_under_the_limit():
    rows = list(range(1000))
    first, second = datasets.sample_rows(rows, 10), datasets.sample_rows(rows, 10)
    assert first == second == sorted(first) and len(set(first)) == 10
    assert first != rows[:10]  # spread over the file, not its first rows
    assert datasets.sample_rows(rows[:5], 10) == rows[:5] and datasets.sample_rows(rows, None) == rows


def test_eval_bench_json_is_byte_identical_from_run_to_run(shared_datasets, capsys):
    argv = ("eval", "bench", "fever-symmetric", "anli", "--limit", str(LIMIT), "--datasets", str(shared_datasets))
    first = run(capsys, *argv, "--json")
    second = run(capsys, *argv, "--json")
    assert first == second and first[0] == 0 and first[2] == ""
    data = json.loads(first[1])
    assert [b["name"] for b in data["benchmarks"]] == ["fever-symmetric", "anli"]  # registry order
    assert data["nli"]["name"] == "lexical-nli.v1" and data["limit"] == LIMIT
    assert set(data["benchmarks"][1]["groups"]) == {"r1", "r2", "r3"}


def test_eval_bench_table_has_one_row_per_benchmark_with_rows_and_size(shared_datasets, capsys, monkeypatch):
    monkeypatch.setenv(DATASETS_ENV, str(shared_datasets))
    code, out, err = run(capsys, "eval", "bench", "summedits", "snli", "--limit", str(LIMIT))
    assert code == 0, err
    lines = out.splitlines()
    summedits = next(line for line in lines if line.startswith("summedits "))
    assert "20 / 2,617" in summedits and "balanced accuracy, mean of domains" in summedits
    snli = next(line for line in lines if line.startswith("snli "))
    assert "20 / 1,289" in snli and "accuracy (3-way)" in snli and snli.endswith("—")
    assert any(line.startswith("  · news") for line in lines)
    assert "  snli: accuracy (3-way): Bowman et al. 2015; skipped 16 (no consensus label (-))" in lines


def test_a_missing_datasets_folder_is_one_line_naming_the_path_and_the_env_var(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv(DATASETS_ENV, raising=False)
    code, out, err = run(capsys, "eval", "bench", "--datasets", str(tmp_path / "nowhere"))
    assert code == 1 and out == ""
    assert (
        err == f"error: {tmp_path / 'nowhere'}: no datasets folder here (pass --datasets DIR or set {DATASETS_ENV})\n"
    )
    (tmp_path / "partial").mkdir()
    monkeypatch.setenv(DATASETS_ENV, str(tmp_path / "partial"))
    code, _, err = run(capsys, "eval", "bench", "wice")
    assert code == 1 and err.startswith(f"error: {tmp_path / 'partial' / 'wice'}: no wice data here")


def test_an_unknown_benchmark_lists_the_known_ones(capsys):
    code, _, err = run(capsys, "eval", "bench", "fever")
    assert code == 2 and err == f"error: unknown benchmark 'fever'; known: {', '.join(BENCHMARK_NAMES)}\n"


def test_bench_scores_only_held_out_rows_unless_all_rows_is_asked(shared_datasets):
    """The shipped NLI model trains on the other part (evaluation/heldout.py); every backend is scored on this one."""
    from veriground.evaluation.heldout import split_rows

    (snli,) = select_benchmarks(["snli"])
    train, held = split_rows("snli", datasets.read_snli(shared_datasets / "nli").rows)
    assert len(train) + len(held) == 1273 and len(held) >= 630
    result = run_benchmark(snli, shared_datasets, config=CONFIG, nli=LexicalNLIModel())
    assert result.rows_used == len(held) and result.details["part"] == "heldout"
    everything = run_benchmark(snli, shared_datasets, config=CONFIG, nli=LexicalNLIModel(), all_rows=True)
    assert everything.rows_used == 1273 and everything.details["part"] == "all"
