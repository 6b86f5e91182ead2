"""`eval ablate` on the demo golden set (dev split): every ablation listed in one table, no-op flags marked as the
base run, the missing dependency mechanism said rather than invented, each column reproducible with `eval run`
and its flags, the CSV and the bar chart written."""

from __future__ import annotations

import contextlib
import csv
import json
import shlex
from pathlib import Path

import pytest

from veriground.cli import main
from veriground.config import Config, with_overrides
from veriground.evaluation.ablations import ABLATIONS, BASE_LABEL

pytest.importorskip("matplotlib", reason="the eval extra: pip install 'veriground[eval]' (make test installs it)")


@pytest.fixture(scope="module")
def ablated(tmp_path_factory) -> tuple[Path, str, dict[str, dict[str, str]]]:
    """The folder it ran in, what it printed, and the CSV as {row name: {column label: cell}}."""
    folder = tmp_path_factory.mktemp("ablate")
    out_file = folder / "stdout.txt"  # capsys is per test; this fixture runs once per module
    with pytest.MonkeyPatch.context() as patch:  # conftest pins the lexical NLI per test; this runs before that
        patch.setenv("VERIGROUND_MODELS__NLI", "lexical")
        with out_file.open("w") as handle, contextlib.redirect_stdout(handle), contextlib.chdir(folder):
            assert main(["eval", "ablate", "--split", "dev"]) == 0
    with (folder / "results" / "tables" / "ablations.csv").open() as handle:
        rows = list(csv.reader(handle))
    labels = rows[0][1:]
    table = {row[0]: dict(zip(labels, row[1:], strict=True)) for row in rows[1:]}
    return folder, out_file.read_text(), table


def test_every_ablation_is_a_column_in_order(ablated):
    folder, printed, table = ablated
    labels = [ablation.label for ablation in ABLATIONS]
    assert list(table["run id"]) == labels
    assert {"no-rerank", "no-verify", "no-contradictions", "bm25", "lexical-nli", "min-sources-2"} <= set(labels)
    assert {"no-atomic", "no-dependencies", "B2", "B1"} <= set(labels)
    for label in labels:
        assert label in printed
    assert (folder / "results" / "figures" / "ablations.png").stat().st_size > 0


def test_flags_that_change_nothing_are_listed_as_the_base_run(ablated):
    folder, _, table = ablated
    base_id = table["run id"][BASE_LABEL]
    defaults = Config.model_validate(json.loads((folder / "runs" / base_id / "manifest.json").read_text())["config"])
    for ablation in ABLATIONS:
        if ablation.missing or ablation.label == BASE_LABEL:
            continue
        no_op = with_overrides(defaults, ablation.overrides) == defaults
        assert (table["run id"][ablation.label] == base_id) is no_op, ablation.label
        assert ("same config as the base run" in table["note"][ablation.label]) is no_op, ablation.label
        if no_op:  # the same run: the same numbers in its column
            assert table["retrieval.mrr"][ablation.label] == table["retrieval.mrr"][BASE_LABEL]


def test_no_dependencies_is_a_real_run_and_b1_is_said_not_runnable(ablated):
    _, _, table = ablated
    assert table["run id"]["no-dependencies"] not in ("", table["run id"][BASE_LABEL])
    assert "strict_dependencies" in table["note"]["no-dependencies"]  # its metrics may match B3's, and it says why
    assert table["retrieval.mrr"]["no-dependencies"] != ""
    assert table["note"]["B1"].startswith("not runnable") and table["retrieval.mrr"]["B1"] == ""


def test_no_verify_and_b2_differ_from_the_base_run(ablated):
    _, _, table = ablated
    assert table["claims.verification_removed_rate"]["no-verify"] == ""  # nothing was verified
    assert table["claims.verification_removed_rate"][BASE_LABEL] != ""
    assert table["abstention.rate"]["B2"] != table["abstention.rate"][BASE_LABEL]


def test_each_column_is_the_run_that_eval_run_makes_with_its_flags(ablated, tmp_path):
    _, _, table = ablated
    made = [a for a in ABLATIONS if table["run id"][a.label] and a.label != BASE_LABEL]
    made = [a for a in made if table["run id"][a.label] != table["run id"][BASE_LABEL]]
    assert {a.label for a in made} >= {"no-verify", "no-contradictions", "no-atomic", "B2"}
    for ablation in made:
        runs_dir = tmp_path / ablation.label
        args = ["eval", "run", "--split", "dev", "--no-figures", "--runs-dir", str(runs_dir)]
        assert main([*args, *shlex.split(ablation.flags)]) == 0
        (folder,) = runs_dir.iterdir()
        assert folder.name == table["run id"][ablation.label], ablation.label


@pytest.mark.parametrize("command", ["run", "ablate"])
def test_a_bad_split_is_a_one_line_error(command, tmp_path, capsys):
    assert main(["eval", command, "--split", "train", "--runs-dir", str(tmp_path)]) != 0
    err = capsys.readouterr().err
    assert "--split must be dev, test or all, got 'train'" in err and len(err.strip().splitlines()) == 1
    assert not any(tmp_path.iterdir())
