"""The trained model -> the folder veriground ships: int8 ONNX weights, the tokenizer, config.json and
veriground-nli.json (the weights' SHA-256, checked at every load, the calibration temperature, the label order,
the training settings, data mix and calibration report the model card is written from).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from veriground.backends.model_files import file_sha256, weights_sha256
from veriground.backends.onnx_export import quantise_onnx
from veriground.training.train_pairs import TrainPair

MANIFEST = "veriground-nli.json"
ONNX_FILE = "model.onnx"
SHIPPED_MODEL_ID = "veriground/nli-minilm-l6-v2"
SHIPPED_NAME = "veriground-nli.v3"  # what reports name the model by (with its SHA-256)
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt", "config.json")


def score_logits(
    model_folder: Path,
    pairs: Sequence[TrainPair],
    *,
    device: str = "cpu",
    batch_size: int = 64,
    max_length: int | None = None,
) -> Any:
    """Raw (n, 3) logits of the trained torch model for the pairs (for temperature fitting, or as a teacher's),
    with premises cut to `max_length` tokens a pair when given (as in training)."""
    import torch
    import transformers

    tokenizer = transformers.AutoTokenizer.from_pretrained(model_folder)
    model = transformers.AutoModelForSequenceClassification.from_pretrained(model_folder).to(device).eval()
    rows = []
    with torch.inference_mode():
        for start in range(0, len(pairs), batch_size):
            chunk = pairs[start : start + batch_size]
            features = tokenizer(
                [p.premise for p in chunk],
                [p.hypothesis for p in chunk],
                truncation="only_first",
                max_length=max_length,
                padding=True,
                return_tensors="pt",
            )
            rows.append(model(**{k: v.to(device) for k, v in features.items()}).logits.float().cpu().numpy())
    return np.concatenate(rows) if rows else np.zeros((0, 3))


def write_shipped_folder(model_folder: Path, out: Path, *, temperature: float, facts: dict[str, Any]) -> Path:
    """Export `model_folder` to int8 ONNX in `out` with its tokenizer and manifest; returns `out`."""
    from veriground.backends.transformer_nli import export_classifier_onnx

    out.mkdir(parents=True, exist_ok=True)
    fp32 = out.parent / f"{out.name}-fp32.onnx"
    export_classifier_onnx(model_folder, fp32)
    quantise_onnx(fp32, out / ONNX_FILE)
    (out / ONNX_FILE).chmod(0o644)  # written via mkstemp (0600); a shipped file must be readable by every user
    fp32.unlink()
    for name in TOKENIZER_FILES:
        if (model_folder / name).is_file():
            shutil.copyfile(model_folder / name, out / name)
    manifest = {
        "model_id": SHIPPED_MODEL_ID,
        "name": SHIPPED_NAME,
        "onnx_file": ONNX_FILE,
        "sha256": file_sha256(out / ONNX_FILE),
        "temperature": temperature,
        "labels": ["entailment", "neutral", "contradiction"],
        "trained_weights_sha256": weights_sha256(model_folder),
        **facts,
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return out
