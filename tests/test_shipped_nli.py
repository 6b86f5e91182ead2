"""The shipped NLI model: default when nothing else is configured, checksum-checked at load, calibrated,
deterministic, small; and the parts of `veriground train nli` (held-out splits, training mix, loss, temperature,
a few training steps of a tiny model)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from veriground.backends.registry import build_nli
from veriground.backends.shipped_nli import MANIFEST, ShippedNLIModel, shipped_model_folder
from veriground.cli import main
from veriground.config import ModelsConfig, load_config
from veriground.errors import BackendError
from veriground.evaluation.datasets import NLIItem
from veriground.evaluation.heldout import split_rows
from veriground.schema import LabelledPair
from veriground.training.calibration import fit_temperature, mixed_nll
from veriground.training.nli_mix import select_evidence
from veriground.training.nli_trainer import CLASS_WEIGHT_RANGE, class_weights
from veriground.training.synthetic_pairs import synthetic_pairs
from veriground.training.train_pairs import TRAIN_LABELS, TrainPair
from veriground.training.unit_conversions import convert_unit, convert_unit_unscaled

FOLDER = shipped_model_folder()


@pytest.fixture(scope="module")
def shipped() -> ShippedNLIModel:
    return ShippedNLIModel()


def test_veriground_nli_selects_the_shipped_model_and_names_its_checksum(shipped):
    config = load_config(None, {"models.nli": "veriground-nli"}, environ={})
    model = build_nli(config.models)
    manifest = json.loads((FOLDER / MANIFEST).read_text())
    assert (model.name, model.model_id, model.checksum) == (
        manifest.get("name", "veriground-nli.v1"),
        manifest["model_id"],
        manifest["sha256"],
    )
    assert build_nli(ModelsConfig(nli="lexical")).name == "lexical-nli.v1"  # still selectable


def test_models_check_shows_the_shipped_model_with_its_checksum(monkeypatch, capsys):
    monkeypatch.setenv("VERIGROUND_MODELS__NLI", "veriground-nli")
    assert main(["models", "check"]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if " nli " in line)
    manifest = json.loads((FOLDER / MANIFEST).read_text())
    assert line.startswith("ok") and manifest.get("name", "veriground-nli.v1") in line
    assert manifest["sha256"] in line


def test_shipped_files_fit_the_size_budget():
    assert sum(path.stat().st_size for path in FOLDER.iterdir()) <= 50 * 1024 * 1024
    # One set of weights in the package (issue 16): a retrain replaces model.onnx, it never ships beside it
    package = FOLDER.parent
    assert [path.relative_to(package) for path in package.rglob("*.onnx")] == [Path("nli_model") / "model.onnx"]


def test_a_changed_weights_file_is_refused(tmp_path):
    copy = Path(shutil.copytree(FOLDER, tmp_path / "model"))
    onnx = copy / json.loads((copy / MANIFEST).read_text())["onnx_file"]
    data = bytearray(onnx.read_bytes())
    data[len(data) // 2] ^= 0xFF
    onnx.write_bytes(bytes(data))
    with pytest.raises(BackendError, match="SHA-256"):
        ShippedNLIModel(copy)


def test_a_missing_manifest_says_how_to_recover(tmp_path):
    copy = Path(shutil.copytree(FOLDER, tmp_path / "model"))
    (copy / MANIFEST).unlink()
    with pytest.raises(BackendError, match="reinstall veriground, or set models.nli = 'lexical'"):
        ShippedNLIModel(copy)


def test_temperature_divides_the_logits(tmp_path, shipped):
    copy = Path(shutil.copytree(FOLDER, tmp_path / "model"))
    manifest = json.loads((copy / MANIFEST).read_text())
    manifest["temperature"] = manifest["temperature"] * 4
    (copy / MANIFEST).write_text(json.dumps(manifest))
    pair = [("Water boils at 100 degrees Celsius at sea level.", "Water boils at 100 degrees Celsius.")]
    sharp, flat = shipped.predict(pair)[0], ShippedNLIModel(copy).predict(pair)[0]
    assert max(flat.entail, flat.neutral, flat.contradict) < max(sharp.entail, sharp.neutral, sharp.contradict)


def test_scores_do_not_depend_on_the_other_pairs_scored_with_them(shipped):
    pairs = [
        ("The train leaves at 9 am and arrives at noon.", "The train arrives at noon."),
        ("Merge sort is stable.", "Merge sort is not stable."),
        ("A short one.", "Something else entirely, and much longer than the premise it is paired with."),
    ]
    together = shipped.predict(pairs)
    alone = [shipped.predict([pair])[0] for pair in pairs]
    assert together == alone == shipped.predict(pairs)


def test_the_model_reads_a_claims_variables_by_its_evidences_names(shipped):
    theorem = "Let $T$ be a tree with $v$ vertices and $e$ edges. Then $e = v-1$."
    renamed, as_written, wrong = shipped.predict(
        [(theorem, "A tree with n vertices has n - 1 edges."),
         (theorem, "A tree with v vertices has v - 1 edges."),
         (theorem, "A tree with n vertices has n + 1 edges.")]
    )  # fmt: skip
    assert renamed == as_written and renamed.entail > 0.5  # 0.89; 0.04 read as written
    assert wrong.entail < 0.5 < wrong.entail + wrong.contradict + wrong.neutral


def test_the_trained_model_tells_entailment_from_contradiction(shipped):
    premise = "Eligible employees receive 12 weeks of paid parental leave after the birth of a child."
    entailed, contradicted = shipped.predict(
        [(premise, "Eligible employees get 12 weeks of paid parental leave."),
         (premise, "Eligible employees receive no paid parental leave.")]
    )  # fmt: skip
    assert entailed.entail > contradicted.entail
    assert contradicted.contradict > entailed.contradict


def test_heldout_split_is_disjoint_stratified_and_stable():
    items = [
        NLIItem(f"premise {i}", f"hypothesis {i}", ("entailment", "neutral", "contradiction")[i % 3])
        for i in range(300)
    ]
    train, held = split_rows("mnli", items)
    assert len(held) == 60 and {item.label for item in held} == {"entailment", "neutral", "contradiction"}
    assert sum(1 for item in held if item.label == "neutral") == 20
    assert not set(train) & set(held) and len(train) + len(held) == 300
    assert split_rows("mnli", list(reversed(items)))[1] == list(reversed(held))  # content decides, not order
    anli = [NLIItem("p", "h", "neutral", "r1")]
    assert split_rows("anli", anli) == ([], anli)  # non-commercial: never trained on


def test_summedits_keeps_whole_documents_on_one_side_and_never_trains_on_samsum():
    rows = [
        LabelledPair(id=f"s:{i}", text=f"summary {i}", evidence=(f"document {i % 6}",), label="supported", group=group)
        for i in range(60)
        for group in ("news", "samsum")
    ]
    train, held = split_rows("summedits", rows)
    assert all(row.group == "news" for row in train)
    assert {row.evidence for row in train}.isdisjoint({row.evidence for row in held if row.group == "news"})


def test_synthetic_pairs_carry_the_edit_and_a_label():
    paragraphs = [
        ["Eligible employees receive 12 weeks of paid leave each year.", "The leave must be used within a year."],
        ["A binary tree has at most two children per node, and every node has a parent except the root."],
        ["Velocity is the rate of change of displacement with respect to time in physics."],
    ]
    pairs = synthetic_pairs([("doc", paragraphs)], per_document=10)
    assert {pair.label for pair in pairs} >= {"contradiction", "neutral"}
    changed = [pair for pair in pairs if pair.label == "contradiction"]
    assert all(pair.hypothesis not in pair.premise and pair.source.startswith("synthetic:") for pair in changed)
    assert pairs == synthetic_pairs([("doc", paragraphs)], per_document=10)


def test_long_evidence_is_cut_to_the_sentences_that_share_words_with_the_claim():
    evidence = [" ".join(f"Filler sentence number {i} about nothing." for i in range(80)) + " The cat sat on the mat."]
    chosen = select_evidence(evidence, "The cat sat on a mat.", budget=30)
    assert "The cat sat on the mat." in chosen and len(chosen.split()) <= 30


def test_mixed_loss_and_temperature_fit():
    rng = np.random.default_rng(0)
    targets = rng.integers(0, 3, 400)
    logits = rng.normal(0, 1, (400, 3))
    logits[np.arange(400), targets] += 1.5
    logits *= 4  # over-confident: the fitted temperature must soften it
    pairs = [TrainPair("p", "h", ("entailment", "neutral", "contradiction")[t], "test") for t in targets]
    report = fit_temperature(logits, pairs)
    assert report.temperature > 2
    assert report.nll_after < report.nll_before
    assert report.ece_top_label_after < report.ece_top_label_before
    two_way = mixed_nll(np.array([[0.0, 2.0, 2.0]]), np.array([3]))
    assert two_way == pytest.approx(-np.log(2 * np.exp(2) / (1 + 2 * np.exp(2))))


def test_training_a_tiny_encoder_is_deterministic_and_checkpointed(tmp_path):
    transformers = pytest.importorskip("transformers")
    from veriground.backends.model_files import minilm_dir
    from veriground.training.nli_trainer import TrainSettings, train_classifier

    tokenizer = transformers.AutoTokenizer.from_pretrained(minilm_dir())
    config = transformers.BertConfig(
        vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=37
    )
    base = tmp_path / "base"
    transformers.BertModel(config).save_pretrained(base)
    tokenizer.save_pretrained(base)
    pairs = [
        TrainPair(f"The value is {i}.", f"The value is {i + (i % 2)}.", ("entailment", "not_entailment")[i % 2], "t")
        for i in range(24)
    ]
    settings = TrainSettings(base=str(base), epochs=2, batch_size=8, max_length=32, checkpoint_every=4)
    first = train_classifier(pairs, settings, tmp_path / "a")
    second = train_classifier(pairs, settings, tmp_path / "b")
    assert (first / "model.safetensors").read_bytes() == (second / "model.safetensors").read_bytes()
    assert sorted(p.name for p in (tmp_path / "a" / "checkpoints").iterdir()) == ["step-4", "step-6"]
    saved = json.loads((first / "config.json").read_text())
    assert saved["id2label"] == {"0": "entailment", "1": "neutral", "2": "contradiction"}


def test_unit_conversions_keep_the_quantity_and_their_twins_change_it():
    sentence = "Objects near the surface fall with an acceleration of 9.8 m/s2."
    assert convert_unit(sentence) == "Objects near the surface fall with an acceleration of 980 cm/s2."
    assert convert_unit_unscaled(sentence) == "Objects near the surface fall with an acceleration of 9.8 cm/s2."
    assert convert_unit("The package weighs 2.5 kg.") == "The package weighs 2500 g."
    assert convert_unit("The trip takes 2 hours.") == "The trip takes 120 minutes."
    assert convert_unit("Version 2 of the handbook.") is None and convert_unit_unscaled("No quantity here.") is None


def test_synthetic_mix_pairs_every_near_copy_edit_with_an_entailed_near_copy():
    paragraphs = [
        ["Eligible employees receive 12 weeks of paid leave each year.", "The leave must not be split into parts."],
        ["However, a heap can always be built in linear time, and it supports fast insertion of new keys."],
        ["The probe moves at 30 m/s toward the target.", "Its mass is 4 kg, which is larger than before."],
        ["Every node in a binary tree has at most two children.", "A leaf has no children at all."],
        ["Employees may carry unused paid leave into the following year."],
    ]
    pairs = synthetic_pairs([("doc", paragraphs)], per_document=10)
    entailed = [pair for pair in pairs if pair.label == "entailment"]
    changed = [pair for pair in pairs if pair.label in ("contradiction", "not_entailment")]
    assert len(entailed) >= len(changed) > 0
    assert {"unit-conversion", "unit-unscaled", "number", "identity", "window-copy"} <= {
        pair.source.split(":")[1] for pair in pairs
    }
    for pair in changed:  # here every premise also entails a near copy: copying alone says nothing about the label
        assert any(other.premise == pair.premise for other in entailed), pair
    assert any(pair.source == "synthetic:same-topic" and pair.label == "neutral" for pair in pairs)


def test_evidence_units_are_the_best_aligned_one_to_three_sentences():
    document = [
        "The council met on Monday. Rain fell all week. The council approved the new budget of 4 million dollars. "
        "Schools reopened in March. The mayor praised the budget vote. Traffic was heavy."
    ]
    unit = select_evidence(document, "The council approved a budget of 4 million dollars, which the mayor praised.")
    assert unit == "The council approved the new budget of 4 million dollars. The mayor praised the budget vote."
    assert len(select_evidence(document * 3, "council budget rain schools traffic mayor week").split(". ")) <= 3


def test_class_weights_are_inverse_frequency_and_clipped():
    pairs = [TrainPair("p", "h", "entailment", "t")] * 6 + [TrainPair("p", "h", "neutral", "t")] * 2
    pairs += [TrainPair("p", "h", "contradiction", "t")] * 4
    weights = dict(zip(TRAIN_LABELS, class_weights(pairs), strict=True))
    assert weights["neutral"] > weights["contradiction"] > weights["entailment"] >= CLASS_WEIGHT_RANGE[0]
    assert weights["neutral"] <= CLASS_WEIGHT_RANGE[1] and weights["not_entailment"] == 1.0


def _tiny_base(tmp_path: Path, layers: int = 1) -> Path:
    transformers = pytest.importorskip("transformers")
    from veriground.backends.model_files import minilm_dir

    tokenizer = transformers.AutoTokenizer.from_pretrained(minilm_dir())
    config = transformers.BertConfig(
        vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=layers, num_attention_heads=2, intermediate_size=37
    )
    base = tmp_path / "base"
    transformers.BertModel(config).save_pretrained(base)
    tokenizer.save_pretrained(base)
    return base


def test_training_keeps_the_best_dev_model_and_a_time_limit_stops_at_a_resumable_checkpoint(tmp_path):
    from veriground.training.nli_trainer import TrainSettings, train_classifier

    base = _tiny_base(tmp_path)
    pairs = [
        TrainPair(f"The value is {i}.", f"The value is {i + (i % 2)}.", ("entailment", "contradiction")[i % 2], "t")
        for i in range(32)
    ]
    dev = pairs[:6]
    settings = TrainSettings(base=str(base), epochs=2, batch_size=8, max_length=32, eval_every=2, patience=50)
    lines: list[str] = []
    best = train_classifier(pairs, settings, tmp_path / "a", dev=dev, log=lines.append)
    record = json.loads((best / "best.json").read_text())
    assert best.name == "best" and (best / "model.safetensors").is_file()
    scores = [float(line.split("dev score ")[1].split()[0]) for line in lines if "dev score" in line]
    assert len(scores) == 4 and record["score"] == pytest.approx(min(scores), abs=1e-4) and record["step"] % 2 == 0

    stopped = tmp_path / "b"
    train_classifier(pairs, settings, stopped, dev=dev, time_limit_s=0.0, log=lines.append)
    assert lines[-1] == "stopped at step 1: time limit reached"
    assert [p.name for p in (stopped / "checkpoints").iterdir()] == ["step-1"]
    resumed = train_classifier(pairs, settings, stopped, dev=dev, resume=True)
    assert json.loads((resumed / "best.json").read_text())["step"] >= 1
    assert sorted(p.name for p in (stopped / "checkpoints").iterdir()) == ["step-4", "step-8"]  # epoch ends


def test_a_moving_average_of_the_weights_is_what_is_scored_kept_and_resumed(tmp_path):
    import torch
    from safetensors.torch import load_file

    from veriground.training.nli_trainer import TrainSettings, train_classifier
    from veriground.training.weight_average import WeightAverage

    base = _tiny_base(tmp_path)
    pairs = [
        TrainPair(f"The value is {i}.", f"The value is {i + (i % 2)}.", ("entailment", "contradiction")[i % 2], "t")
        for i in range(32)
    ]
    plain = TrainSettings(base=str(base), epochs=1, batch_size=8, max_length=32, checkpoint_every=2)
    averaged = TrainSettings(**{**plain.__dict__, "ema_decay": 0.9})
    raw_model = load_file(train_classifier(pairs, plain, tmp_path / "raw") / "model.safetensors")
    ema_model = load_file(train_classifier(pairs, averaged, tmp_path / "ema") / "model.safetensors")
    name = "classifier.weight"
    assert not torch.equal(raw_model[name], ema_model[name])  # the same run, but the average is what was saved
    assert "ema" in torch.load(tmp_path / "ema" / "checkpoints" / "step-4" / "state.pt", weights_only=True)
    again = load_file(train_classifier(pairs, averaged, tmp_path / "ema2") / "model.safetensors")
    assert torch.equal(again[name], ema_model[name])
    stopped = tmp_path / "stopped"  # stopped at step 1, then resumed: the average is read back from the checkpoint
    train_classifier(pairs, averaged, stopped, time_limit_s=0.0)
    saved = torch.load(stopped / "checkpoints" / "step-1" / "state.pt", weights_only=True)["ema"]
    resumed = WeightAverage(torch.nn.Linear(1, 1), decay=0.9)
    resumed.values = [torch.zeros_like(value) for value in saved]
    resumed.load(saved)
    assert all(torch.equal(a, b) for a, b in zip(resumed.values, saved, strict=True))
    final = load_file(train_classifier(pairs, averaged, stopped, resume=True) / "model.safetensors")
    assert final[name].shape == ema_model[name].shape

    model = torch.nn.Linear(2, 1)
    average = WeightAverage(model, decay=0.5)
    before = model.weight.detach().clone()
    with torch.no_grad():
        model.weight.add_(2.0)
    average.update(model, step=1000)  # decay min(0.5, ...) = 0.5: halfway to the new weights
    average.swap(model)
    assert torch.allclose(model.weight, before + 1.0)
    average.swap(model)
    assert torch.allclose(model.weight, before + 2.0)


def test_a_distilled_student_keeps_the_chosen_layers_and_learns_the_teachers_reading(tmp_path):
    import torch
    import transformers

    from veriground.errors import BackendError
    from veriground.training.distillation import distillation_loss
    from veriground.training.nli_trainer import TrainSettings, train_classifier
    from veriground.training.ship import score_logits

    base = _tiny_base(tmp_path, layers=3)
    pairs = [
        TrainPair(f"The value is {i}.", f"The value is {i + (i % 2)}.", ("entailment", "contradiction")[i % 2], "t")
        for i in range(32)
    ]
    teacher = [[0.0, 6.0, 0.0]] * len(pairs)  # a teacher that reads every pair as neutral, against the labels
    settings = TrainSettings(
        base=str(base), epochs=6, batch_size=8, max_length=32, learning_rate=1e-3, checkpoint_every=4,
        keep_layers=(0, 2), distil_weight=1.0,
    )  # fmt: skip
    student = train_classifier(pairs, settings, tmp_path / "s", teacher_logits=teacher)
    config = transformers.AutoConfig.from_pretrained(student)
    assert config.num_hidden_layers == 2
    read = score_logits(student, pairs).argmax(axis=1)
    assert (read == 1).mean() == 1.0  # all neutral: the teacher's reading, not the labels'
    stopped = tmp_path / "stopped"  # a distilled run resumes (its keep_layers come back from JSON as a list)
    train_classifier(pairs, settings, stopped, teacher_logits=teacher, time_limit_s=0.0)
    resumed = train_classifier(pairs, settings, stopped, teacher_logits=teacher, resume=True)
    assert transformers.AutoConfig.from_pretrained(resumed).num_hidden_layers == 2

    logits = torch.tensor([[1.0, 2.0, 0.5]])
    assert float(distillation_loss(torch, logits, logits, 2.0)) == pytest.approx(0.0, abs=1e-6)
    assert float(distillation_loss(torch, logits, torch.tensor([[3.0, 0.0, 0.0]]), 2.0)) > 0.1
    with pytest.raises(BackendError, match="teacher's logits for each of the 32 pairs"):
        train_classifier(pairs, settings, tmp_path / "x", teacher_logits=teacher[:3])
    with pytest.raises(BackendError, match=r"keep_layers \(0, 5\) does not fit the start model \(3 encoder"):
        train_classifier(pairs, TrainSettings(base=str(base), keep_layers=(0, 5)), tmp_path / "y")


def test_deletion_pairs_leave_out_a_word_that_keeps_the_meaning():
    paragraphs = [
        ["Near the surface of the Earth, all objects fall with the same acceleration in a vacuum."],
        ["A linked list is also a very common way to store the elements of a queue in memory."],
        ["Not all functions of a real variable are continuous on their whole domain of definition."],
    ]
    pairs = synthetic_pairs([("doc", paragraphs)], per_document=10, deletions=True)
    deleted = {
        pair.hypothesis: pair for pair in pairs if pair.source in ("synthetic:drop-all", "synthetic:drop-intensifier")
    }
    assert "Near the surface of the Earth, objects fall with the same acceleration in a vacuum." in deleted
    assert "A linked list is a very common way to store the elements of a queue in memory." in deleted
    assert all(pair.label == "entailment" for pair in deleted.values())
    assert not any(text.startswith("Not functions") for text in deleted)  # "not all" is not "all"
    assert synthetic_pairs([("doc", paragraphs)], per_document=10) == [
        pair for pair in pairs if pair.hypothesis not in deleted
    ]


def test_the_broad_recipe_edits_training_side_texts_once_each_and_never_a_dev_rows():
    from veriground.training.nli_mix import _evidence_key, _general_documents

    text = "The committee approved the plan in March after a long debate. The vote was close, and two members left."
    other = "The river rose by two meters during the storm. Several roads were closed for a week afterwards."
    rows = {
        "summedits": [
            LabelledPair(id="a", text="The plan passed.", evidence=(text,), label="supported"),
            LabelledPair(id="b", text="The plan failed.", evidence=(text,), label="unsupported"),  # same document
        ],
        "wice": [LabelledPair(id="c", text="Roads closed.", evidence=(other,), label="supported")],
    }
    documents = list(_general_documents(rows, excluded=set()))
    assert [name.split("/")[0] for name, _ in documents] == ["wice", "summedits"]  # GENERAL_SOURCES order, once each
    assert documents[1][1] == [[s.strip() + "." for s in text.rstrip(".").split(". ")]]
    excluded = {_evidence_key(rows["wice"][0])}  # a dev row's document: its sentences are never edited for training
    assert [name.split("/")[0] for name, _ in _general_documents(rows, excluded)] == ["summedits"]
