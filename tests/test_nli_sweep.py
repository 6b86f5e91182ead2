"""scripts/nli_sweep.py, the GPU recipe sweep: every recipe names a mix and a start that exist, and the recipe the
shipped model's manifest names is still the one written there (editing it without retraining fails here)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

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


def test_blend_averages_a_fine_tune_with_its_start_model(tmp_path):
    torch = pytest.importorskip("torch")
    from safetensors.torch import load_file, save_file

    sweep = _sweep_module()
    (tmp_path / "prep" / "start").mkdir(parents=True)
    (tmp_path / "work" / "ft" / "best").mkdir(parents=True)
    save_file({"w": torch.zeros(2, 3), "b": torch.ones(3)}, tmp_path / "prep" / "start" / "model.safetensors")
    save_file(
        {"w": torch.full((2, 3), 4.0), "b": torch.full((3,), 3.0)},
        tmp_path / "work" / "ft" / "best" / "model.safetensors",
    )
    (tmp_path / "work" / "ft" / "best" / "config.json").write_text("{}")
    (tmp_path / "work" / "ft" / "result.json").write_text(json.dumps({"recipe": "ft-v2cds-lr2", "step": 7}))
    out = sweep.blend(tmp_path / "prep", tmp_path / "work" / "ft", 0.25)
    assert out.name == "ft-blend25" and (out / "best" / "config.json").is_file()
    mixed = load_file(out / "best" / "model.safetensors")
    assert torch.equal(mixed["w"], torch.full((2, 3), 1.0)) and torch.equal(mixed["b"], torch.full((3,), 1.5))
    assert json.loads((out / "result.json").read_text()) == {"recipe": "ft-v2cds-lr2", "step": 7, "blend_weight": 0.25}
    with pytest.raises(SystemExit, match="above 0 and at most 1"):
        sweep.blend(tmp_path / "prep", tmp_path / "work" / "ft", 0.0)
    save_file({"w": torch.zeros(2, 3)}, tmp_path / "prep" / "start" / "model.safetensors")
    with pytest.raises(SystemExit, match="different tensors"):
        sweep.blend(tmp_path / "prep", tmp_path / "work" / "ft", 0.5)
