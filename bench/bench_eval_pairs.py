"""`eval pairs` throughput: rows per second and NLI predict calls, row by row versus batched across rows.

    python bench/bench_eval_pairs.py [--rows 256] [--threads 2] [--batch-rows 1,16,64,256]
        [--models lexical,minilm-nli] [--rounds 3]

Rows are a seeded sample of SummEdits (../shared/datasets/summedits: a summary checked against its document,
1-6 NLI pairs a row). "row by row" is verify_text per row with the model itself (one predict call per row, two when
the evidence-conflict check runs); "batched N" is evaluate_pairs(batch_rows=N). Models: lexical; tiny and
minilm-nli, the classifiers of bench_nli.py; shipped, veriground's own int8 ONNX MiniLM (one pair per onnxruntime
run). A first untimed row-by-row run warms the caches; then the paths are timed in turn, round by round, and the
median is reported. "same" says whether the batched predictions equal the row-by-row ones byte for byte; "max gap"
is the largest difference in support probability (a torch model's score of a pair can move in the 6th decimal with
the other pairs of its forward batch).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from bench_nli import build_models

SUMMEDITS = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "summedits"


class CountingNLI:
    """Forwards to a model and counts its predict calls and pairs."""

    def __init__(self, model) -> None:
        self.model = model
        self.name, self.model_id, self.checksum = model.name, model.model_id, model.checksum
        self.calls = self.pairs = 0

    def predict(self, pairs):
        self.calls += 1
        self.pairs += len(pairs)
        return self.model.predict(pairs)


def row_by_row(rows, config, nli):
    from veriground.engine import verify_text
    from veriground.evaluation.pairs import _evidence_pack, predict_pair
    from veriground.evidence.gather import PackEvidence

    return [
        predict_pair(row, verify_text(row.text, config=config, source=PackEvidence(pack, config.retrieval), nli=nli))
        for row, pack in ((row, _evidence_pack(n, row, None)) for n, row in enumerate(rows, start=1))
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=256)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch-rows", default="1,16,64,256")
    parser.add_argument("--models", default="lexical,minilm-nli")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    import torch

    from veriground.backends.lexical_nli import LexicalNLIModel
    from veriground.backends.model_files import use_offline_hub
    from veriground.backends.shipped_nli import ShippedNLIModel
    from veriground.backends.transformer_nli import TransformerNLIModel
    from veriground.config import load_config
    from veriground.evaluation.datasets import read_summedits, sample_rows
    from veriground.evaluation.pairs import evaluate_pairs

    use_offline_hub(False)
    torch.set_num_threads(args.threads)
    config = load_config(None, environ={})
    rows = sample_rows(read_summedits(SUMMEDITS).rows, args.rows)
    sizes = [int(size) for size in args.batch_rows.split(",")]
    print(f"{len(rows)} SummEdits rows, {args.threads} threads")
    print(f"{'model':<12} {'path':<12} {'rows/s':>7} {'predict calls':>14} {'pairs':>6} {'same':>5} {'max gap':>8}")
    with tempfile.TemporaryDirectory() as scratch:
        folders = build_models(Path(scratch))
        for name in args.models.split(","):
            if name == "lexical":
                model = LexicalNLIModel()
            elif name == "shipped":
                model = ShippedNLIModel()
            else:
                model = TransformerNLIModel(str(folders[name]))
            reference = [p.to_json() for p in row_by_row(rows, config, model)]
            paths = {"row by row": lambda nli: row_by_row(rows, config, nli)}
            for size in sizes:
                paths[f"batched {size}"] = lambda nli, size=size: list(
                    evaluate_pairs(rows, config=config, nli=nli, batch_rows=size).predictions
                )
            rates: dict[str, list[float]] = {path: [] for path in paths}
            outcome = {}
            for _ in range(args.rounds):
                for path, run in paths.items():
                    counter = CountingNLI(model)
                    started = time.perf_counter()
                    predictions = [p.to_json() for p in run(counter)]
                    rates[path].append(len(rows) / (time.perf_counter() - started))
                    outcome[path] = (counter, predictions)
            for path, (counter, predictions) in outcome.items():
                gap = max(
                    abs((a["support_prob"] or 0) - (b["support_prob"] or 0))
                    for a, b in zip(predictions, reference, strict=True)
                )
                same = "yes" if predictions == reference else "no"
                print(
                    f"{name:<12} {path:<12} {statistics.median(rates[path]):>7.1f} {counter.calls:>14} "
                    f"{counter.pairs:>6} {same:>5} {gap:>8.1e}"
                )


if __name__ == "__main__":
    main()
