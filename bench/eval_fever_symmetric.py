"""FEVER-Symmetric end to end: each claim against its one evidence sentence, through the `eval bench` adapter.

    python bench/eval_fever_symmetric.py [--split dev|test] [--limit N] [--nli lexical]

A thin wrapper over veriground.evaluation (datasets.read_fever_symmetric, then pairs.evaluate_pairs): each row is
an evidence pack of one passage and goes through the same engine as `verify --evidence`. Prediction, as in
`veriground eval pairs`: REFUTES when any atomic claim is Contradictory, Unsupported or Unverified, else SUPPORTS
(Low Confidence counts as support: one sentence can never meet the seed's 2-source rule). Prints accuracy (the
FEVER-Symmetric authors' metric; the set is balanced, so it equals balanced accuracy up to rounding), per-class
recall, the verdict and rule distribution, and claims per second. `veriground eval bench fever-symmetric` runs
both splits at once.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

from veriground.backends.registry import build_nli
from veriground.config import load_config
from veriground.evaluation.datasets import read_fever_symmetric
from veriground.evaluation.metrics import specificity
from veriground.evaluation.pairs import evaluate_pairs

DATA = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "fever-symmetric"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("dev", "test"), default="dev")
    parser.add_argument("--limit", type=int, default=0, help="first N rows only (0: all)")
    parser.add_argument("--nli", default=None, help="lexical (default), or an NLI model folder / hub id")
    args = parser.parse_args()
    rows = [row for row in read_fever_symmetric(DATA).rows if row.group == args.split]
    if args.limit:
        rows = rows[: args.limit]
    config = load_config(overrides={"models.nli": args.nli})
    nli = build_nli(config.models)
    started = time.perf_counter()
    result = evaluate_pairs(rows, config=config, nli=nli)
    elapsed = time.perf_counter() - started
    overall = result.overall
    detection = overall.detection
    rules = Counter(rule for prediction in result.predictions for rule in prediction.rules)
    print(f"FEVER-Symmetric {args.split}: {overall.rows} rows, {overall.claims} atomic claims, NLI {nli.name}")
    print(
        f"accuracy {detection.accuracy.format()}  balanced accuracy {detection.balanced_accuracy.format()}  "
        f"(recall REFUTES {detection.recall.format()}, SUPPORTS {specificity(detection.counts).format()})"
    )
    print(f"ECE {overall.calibration.ece.format()}  Brier {overall.calibration.brier.format()}")
    print("verdicts: " + ", ".join(f"{name} {count}" for name, count in sorted(overall.verdicts.items())))
    print("rules:    " + ", ".join(f"{name} {count}" for name, count in sorted(rules.items())))
    print(f"{overall.claims / elapsed:.0f} claims/s ({elapsed:.1f} s)")


if __name__ == "__main__":
    main()
