"""scripts/nli_oof.py, cross-fitted NLI scores for the aggregator fit: a row and its training pairs share a fold,
the returned scores are kept keyed, without the pairs' text, and reach calibrate's NLI as the shipped model's cached
scores (so they replace its in-sample scores, with its temperature applied); kept scores of another model are
refused."""

from __future__ import annotations

import gzip
import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def _script(name: str):
    sys.path.insert(0, str(SCRIPTS))
    try:
        spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(SCRIPTS))


def test_the_fold_is_a_function_of_the_claim_alone_and_every_fold_is_used():
    oof = _script("nli_oof")
    claims = [f"Claim number {i} about energy." for i in range(200)]
    folds = [oof.fold_of(claim, oof.FOLDS) for claim in claims]
    assert folds == [oof.fold_of(claim, oof.FOLDS) for claim in claims]
    assert set(folds) == set(range(oof.FOLDS))


def test_returned_scores_are_what_calibrate_reads_for_the_shipped_model(tmp_path):
    from veriground.backends.shipped_nli import ShippedNLIModel
    from veriground.evaluation.batching import MemoNLIModel

    oof = _script("nli_oof")
    pair = ("Water boils at 100 degrees Celsius at sea level.", "Water boils at 100 degrees Celsius.")
    logits = [2.0, 0.5, -1.0]  # entailment, neutral, contradiction: the shipped model's label order
    returned = tmp_path / "returned"
    returned.mkdir()
    with gzip.open(returned / oof.SCORES_FILE, "wt", encoding="utf-8") as handle:
        handle.write(json.dumps([*pair, logits]) + "\n")
    (returned / "oof.json").write_text("{}")
    oof.keep(returned, tmp_path / "kept")
    with gzip.open(tmp_path / "kept" / oof.KEPT_FILE, "rt", encoding="utf-8") as handle:
        assert pair[0] not in handle.read()  # the repository keeps no dataset text
    oof.cache(tmp_path / "kept", tmp_path / "cache.jsonl")

    shipped = ShippedNLIModel()
    scaled = np.asarray(logits) / shipped.temperature
    expected = np.exp(scaled) / np.exp(scaled).sum()

    class Refuses:
        name, model_id, checksum = shipped.name, shipped.model_id, shipped.checksum

        def predict(self, pairs):
            raise AssertionError(f"scored {pairs}: the cached out-of-fold score was not used")

    (scores,) = MemoNLIModel(Refuses(), tmp_path / "cache.jsonl").predict([pair])
    assert scores.entail == pytest.approx(expected[0], abs=1e-6)
    assert scores.contradict == pytest.approx(expected[2], abs=1e-6)


def test_scores_kept_for_another_model_are_refused_not_silently_missed(tmp_path):
    oof = _script("nli_oof")
    with gzip.open(tmp_path / oof.KEPT_FILE, "wt", encoding="utf-8") as handle:
        handle.write(json.dumps({"model": "veriground-nli.v1", "checksum": "0" * 64}) + "\n")
    with pytest.raises(SystemExit, match="not the shipped"):
        oof.cache(tmp_path, tmp_path / "cache.jsonl")


def test_unseen_lists_the_claim_rows_no_training_pair_claims_and_the_shipped_entry_was_rescaled_on_them(tmp_path):
    from conftest import SHARED_DATASETS
    from veriground.backends.registry import build_nli
    from veriground.config import load_config
    from veriground.evaluation.calibration_data import CLAIM_SOURCES, calibration_rows
    from veriground.verdicts.aggregator import fitted_entry

    kept = json.loads((SCRIPTS / "data" / "nli-oof" / "platt-rows.json").read_text(encoding="utf-8"))
    entry = fitted_entry(build_nli(load_config(environ={}).models).name)
    assert entry["fit"]["platt_rows"]["rows"] == len(kept["rows"]) == sum(kept["by_source"].values())
    if not SHARED_DATASETS.is_dir():
        pytest.skip(f"{SHARED_DATASETS} is not present (it sits beside the checkout in CI)")
    oof, sweep = _script("nli_oof"), _script("nli_sweep")
    claims = [row for row in calibration_rows(SHARED_DATASETS, 20) if row.group in CLAIM_SOURCES]
    trained = claims[::3]  # a mix whose hypotheses are every third claim
    mix = tmp_path / "mix.jsonl.gz"
    sweep._write_pairs(mix, [sweep.TrainPair("Evidence.", row.text, "entailment", row.group) for row in trained])
    oof.unseen(SHARED_DATASETS, mix, tmp_path / "rows.json", 20)
    written = json.loads((tmp_path / "rows.json").read_text(encoding="utf-8"))
    taught = {row.text for row in trained}  # by the claim's text: FEVER-symmetric repeats a claim with new evidence
    assert written["rows"] == [row.id for row in claims if row.text not in taught]
    assert written["mix_hypotheses"] == len({row.text for row in trained})
