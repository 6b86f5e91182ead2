"""`veriground calibrate --nli-cache`: the NLI scores the fit read are said in the entry (the cache file's SHA-256 and
how many pairs the model scored itself), so a fit on out-of-fold scores (scripts/nli_oof.py) can be told from a fit
on the model's own, and a second run over a full cache asks the model for nothing."""

from __future__ import annotations

import hashlib
import io
import json
from contextlib import redirect_stdout

import pytest

from conftest import SHARED_DATASETS
from veriground.cli import main


def _calibrate(out, cache) -> dict:
    argv = ["calibrate", "--nli", "lexical", "--rows-per-source", "20", "--units-per-passage", "1"]
    argv += ["--data", str(SHARED_DATASETS), "--nli-cache", str(cache), "--out", str(out)]
    with redirect_stdout(io.StringIO()):
        assert main(argv) == 0
    return json.loads(out.read_text(encoding="utf-8"))["aggregators"]["lexical-nli.v1"]


def test_the_entry_names_the_cache_it_read_and_what_the_model_scored_itself(tmp_path):
    if not SHARED_DATASETS.is_dir():
        pytest.skip(f"{SHARED_DATASETS} is not present (it sits beside the checkout in CI)")
    cache = tmp_path / "scores.jsonl"
    first = _calibrate(tmp_path / "first.json", cache)["fit"]["nli_scores"]
    assert first["pairs_scored_by_model"] > 0
    assert first["sha256"] == hashlib.sha256(cache.read_bytes()).hexdigest()
    second = _calibrate(tmp_path / "second.json", cache)
    assert second["fit"]["nli_scores"] == {**first, "pairs_scored_by_model": 0}
    without = tmp_path / "plain.json"
    with redirect_stdout(io.StringIO()):
        assert main(["calibrate", "--nli", "lexical", "--rows-per-source", "20", "--units-per-passage", "1",
                     "--data", str(SHARED_DATASETS), "--out", str(without)]) == 0  # fmt: skip
    plain = json.loads(without.read_text(encoding="utf-8"))["aggregators"]["lexical-nli.v1"]
    assert "nli_scores" not in plain["fit"] and plain["support"] == second["support"]


def test_platt_rows_are_read_by_id_and_a_file_for_other_data_is_refused(tmp_path, capsys):
    if not SHARED_DATASETS.is_dir():
        pytest.skip(f"{SHARED_DATASETS} is not present (it sits beside the checkout in CI)")
    from veriground.evaluation.calibration_data import CLAIM_SOURCES, calibration_rows

    claims = [row.id for row in calibration_rows(SHARED_DATASETS, 20) if row.group in CLAIM_SOURCES][::2]
    rows_file = tmp_path / "platt-rows.json"
    rows_file.write_text(json.dumps({"rows": claims}), encoding="utf-8")
    argv = ["calibrate", "--nli", "lexical", "--rows-per-source", "20", "--units-per-passage", "1"]
    argv += ["--data", str(SHARED_DATASETS), "--out", str(tmp_path / "a.json"), "--platt-rows", str(rows_file)]
    with redirect_stdout(io.StringIO()):
        assert main(argv) == 0
    entry = json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))["aggregators"]["lexical-nli.v1"]
    record = entry["fit"]["platt_rows"]
    assert record["rows"] == len(claims) and record["file"] == "platt-rows.json"
    assert entry["thresholds"]["min_entailment_prob"] != record["thresholds_on_dev_scale"]["min_entailment_prob"]

    rows_file.write_text(json.dumps({"rows": [*claims, "fever-symmetric:no-such-row"]}), encoding="utf-8")
    assert main(argv) != 0
    assert "names 1 row ids that are not calibration rows here" in capsys.readouterr().err
    rows_file.write_text("[1, 2]", encoding="utf-8")
    assert main(argv) != 0
    assert "is not a Platt rows file" in capsys.readouterr().err
