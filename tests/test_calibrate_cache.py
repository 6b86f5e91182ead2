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
