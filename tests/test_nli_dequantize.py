"""scripts/nli_dequantize.py: the shipped int8 model's weights, dequantised into a torch classifier, read pairs as the
shipped model does (the start of a fine-tune from v3, whose fp32 weights were not kept)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from veriground.backends.shipped_nli import ShippedNLIModel, shipped_model_folder

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "nli_dequantize.py"
PAIRS = [
    ("Merge sort runs in O(n log n) time in the worst case.", "Merge sort runs in O(n log n) time."),
    ("Like charges repel each other.", "Like charges do not repel each other."),
    ("The bridge across the river is 320 meters long.", "The bridge across the river is 32 meters long."),
    ("A stack is a last-in first-out structure.", "The cat sat on the mat."),
]


def _script():
    spec = importlib.util.spec_from_file_location("nli_dequantize", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_rebuilt_fp32_model_reads_pairs_as_the_shipped_int8_model():
    torch = pytest.importorskip("torch")
    model, manifest = _script().rebuilt_model(shipped_model_folder())
    shipped = ShippedNLIModel()
    windows, _ = shipped._encode_windows(PAIRS)
    with torch.no_grad():
        fp32 = [
            torch.softmax(model(**{key: torch.tensor([window[key]]) for key in shipped.input_names}).logits[0]
                          / float(manifest["temperature"]), dim=-1)
            for window in windows
        ]  # fmt: skip
    for probabilities, scores in zip(fp32, shipped.predict_uncached(PAIRS), strict=True):
        assert abs(float(probabilities[shipped.label_map.entail_index]) - scores.entail) < 0.1
        assert abs(float(probabilities[shipped.label_map.contradict_index]) - scores.contradict) < 0.1
