"""Rebuild fp32 training weights of a shipped int8 NLI model from its ONNX file, to fine-tune it further.

The shipped model (src/veriground/nli_model/model.onnx) is all that is kept of v3: its fp32 training weights lived in a
session's scratch folder. Every matrix of the int8 file is stored as int8 values, a zero point and a scale (per output
column for the encoder's products, one for each embedding table); dequantised, they are the weights the shipped model
computes with, so a fine-tune from them starts from the shipped model's own reading, not from an older one.

    python scripts/nli_dequantize.py --model src/veriground/nli_model --out build/v3-fp32 [--check 200]

Each MatMulInteger's output is named after the module it computes (".../layer.0/attention/self/key/MatMul..."), and
its bias is the initializer of that module's name, so the state dict's keys come from the graph, not from the order
of its nodes. --check scores MultiNLI dev pairs with both and prints the largest probability gap.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

_MODULE = re.compile(r"^/model/(?P<path>.+)/(?:MatMul_output_0_output|Gemm_output_0_MatMul_output)_quantized$")


def dequantised_state(onnx_path: Path) -> dict[str, np.ndarray]:
    """The HF BertForSequenceClassification state dict (numpy, fp32) the int8 ONNX file computes with."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(onnx_path))
    values = {item.name: numpy_helper.to_array(item) for item in model.graph.initializer}
    state: dict[str, np.ndarray] = {}
    for name, value in values.items():
        if name.startswith("model.") and not name.endswith(("_quantized", "_scale", "_zero_point")):
            state[name.removeprefix("model.")] = value.astype(np.float32)
    for name in values:
        if name.startswith("model.") and name.endswith(".weight_quantized"):  # the embedding tables
            stem = name.removesuffix("_quantized")
            state[stem.removeprefix("model.")] = _dequantise(values, stem)
    for node in model.graph.node:
        if node.op_type != "MatMulInteger":
            continue
        match = _MODULE.match(node.output[0].replace("logits_", "/model/classifier/Gemm_output_0_"))
        if match is None:
            raise SystemExit(f"cannot name the weight of {node.name}: its output is {node.output[0]}")
        module = match.group("path").replace("/", ".")
        stem = node.input[1].removesuffix("_quantized")
        state[f"{module}.weight"] = _dequantise(values, stem).T.copy()  # ONNX holds (in, out); torch (out, in)
    return state


def _dequantise(values: dict[str, np.ndarray], stem: str) -> np.ndarray:
    quantised = values[f"{stem}_quantized"].astype(np.float32)
    return (quantised - values[f"{stem}_zero_point"].astype(np.float32)) * values[f"{stem}_scale"].astype(np.float32)


def rebuilt_model(folder: Path) -> tuple[Any, dict[str, Any]]:
    """The shipped folder's model as a torch BertForSequenceClassification with the dequantised weights, and the
    folder's manifest; every weight of the model comes from the file (position ids are a buffer)."""
    import torch
    import transformers

    manifest = json.loads((folder / "veriground-nli.json").read_text(encoding="utf-8"))
    state = dequantised_state(folder / manifest["onnx_file"])
    model = transformers.BertForSequenceClassification(transformers.BertConfig.from_pretrained(folder))
    expected = set(model.state_dict())
    tensors = {key: torch.from_numpy(value) for key, value in state.items() if key in expected}
    missing = sorted(expected - set(tensors) - {"bert.embeddings.position_ids"})
    if missing:
        raise SystemExit(f"no weights for {missing}")
    model.load_state_dict(tensors, strict=False)
    return model.eval(), manifest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, required=True, help="a shipped model folder (veriground-nli.json)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--check", type=int, default=0, help="MultiNLI dev pairs to compare the two on")
    args = parser.parse_args()
    from safetensors.torch import save_file

    model, manifest = rebuilt_model(args.model)
    args.out.mkdir(parents=True, exist_ok=True)
    tensors = {
        key: value.contiguous() for key, value in model.state_dict().items() if key != "bert.embeddings.position_ids"
    }
    save_file(tensors, args.out / "model.safetensors")
    model.config.save_pretrained(args.out)
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(args.model / name, args.out / name)
    print(f"{len(tensors)} tensors -> {args.out}")
    if args.check:
        _compare(args.model, model, float(manifest["temperature"]), args.check)


def _compare(folder: Path, torch_model, temperature: float, count: int) -> None:
    """Entailment of MultiNLI dev pairs by the shipped int8 model and by the rebuilt fp32 one, same tokens."""
    import torch

    from veriground.backends.shipped_nli import ShippedNLIModel
    from veriground.evaluation import datasets

    items = datasets.read_mnli(Path(__file__).resolve().parents[2] / "shared" / "datasets" / "nli").rows[:count]
    pairs = [(item.premise, item.hypothesis) for item in items]
    shipped = ShippedNLIModel(folder)
    int8 = [scores.entail for scores in shipped.predict_uncached(pairs)]
    windows, _ = shipped._encode_windows(pairs)  # one window a pair: MultiNLI pairs are short
    torch_model.eval()
    fp32 = []
    with torch.no_grad():
        for window in windows:
            features = {key: torch.tensor([window[key]]) for key in shipped.input_names}
            logits = torch_model(**features).logits[0] / temperature
            fp32.append(float(torch.softmax(logits, dim=-1)[shipped.label_map.entail_index]))
    gaps = np.abs(np.array(fp32) - np.array(int8))
    same = sum((a >= 0.5) == (b >= 0.5) for a, b in zip(fp32, int8, strict=True))
    print(f"{count} pairs: entailment gap max {gaps.max():.4f} mean {gaps.mean():.4f}; same side of 0.5: {same}")


if __name__ == "__main__":
    main()
