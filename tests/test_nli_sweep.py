"""scripts/nli_sweep.py, the GPU recipe sweep: every recipe names a mix and a start that exist, and the recipe the
shipped model's manifest names is still the one written there (editing it without retraining fails here)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from veriground.backends.shipped_nli import MANIFEST, shipped_model_folder

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "nli_sweep.py"


def _sweep_module():
    spec = importlib.util.spec_from_file_location("nli_sweep", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_every_recipe_names_a_mix_and_every_sweep_names_recipes():
    sweep = _sweep_module()
    assert {recipe.mix for recipe in sweep.RECIPES.values()} <= set(sweep.MIXES)
    assert {recipe.start for recipe in sweep.RECIPES.values()} <= {"base", "start"}
    assert {name for names in sweep.SWEEPS.values() for name in names.split(",")} <= set(sweep.RECIPES)
    for recipe in sweep.RECIPES.values():  # a student distils its start model, whose layers it keeps in order
        assert recipe.distil_weight == 0 or recipe.start == "start"
        layers = recipe.keep_layers or ()
        assert list(layers) == sorted(set(layers)) and all(0 <= layer < 6 for layer in layers)


def test_the_shipped_model_was_trained_by_the_recipe_of_that_name():
    sweep = _sweep_module()
    manifest = json.loads((shipped_model_folder() / MANIFEST).read_text())
    name = manifest["command"].split("(recipe ")[1].rstrip(")")
    recipe, settings = sweep.RECIPES[name], manifest["settings"]
    assert (recipe.epochs, recipe.learning_rate, recipe.batch_size, recipe.seed, recipe.ema_decay) == (
        settings["epochs"],
        settings["learning_rate"],
        settings["batch_size"],
        settings["seed"],
        settings["ema_decay"],
    )
    assert manifest["train_pairs"] == 28_027 and recipe.mix == "v2c" and recipe.start == "start"
    assert sweep.MIXES["v2c"] == {"targeted_per_document": 30, "targeted_contradictions_only": True}
    # v3 is v2 fine-tuned: the start is v2's training weights, which v2's manifest named
    assert manifest["start_weights_sha256"] == "01b0f9abb15eb6031766782822f1942e49beacbee1980767066e3a0a7014c0e3"


def test_pairs_round_trip_through_the_files_the_gpu_machine_reads(tmp_path):
    sweep = _sweep_module()
    pairs = [sweep.TrainPair("A premise.", "A hypothesis é.", "entailment", "mnli")] * 2
    sweep._write_pairs(tmp_path / "p.jsonl.gz", pairs)
    assert sweep._read_pairs(tmp_path / "p.jsonl.gz") == pairs
