"""`make accuracy`: the visible dev suite for each NLI backend and aggregator, one table.

For every (NLI, aggregator) pair: the held-out rows of FEVER-symmetric, SummEdits, WiCE, AttributionBench, BEGIN and
SQuAD 2.0 abstention (a seeded sample of --limit rows each, the authors' metric plus binary balanced accuracy and the
ECE of P(supported)), the verdict property check on the domain corpora (true sentences Supported, edited and
word-swapped ones not), and the demo golden set (answer-correct and abstention accuracy of grounded QA). The shipped
default is the row marked "default"; it must be the best row, and never worse than the lexical NLI.

    python bench/bench_accuracy.py [--limit 300] [--nli lexical,veriground-nli] [--aggregator raw,calibrated]
                                   [--aggregator-path FILE] [--property 200] [--skip-golden] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from veriground.backends.registry import build_nli
from veriground.config import ModelsConfig, load_config
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore
from veriground.evaluation.benchmarks import run_benchmark, select_benchmarks
from veriground.evaluation.golden_run import run_golden
from veriground.evaluation.property_check import check_property, sample_sentences

DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
PAIR_BENCHMARKS = ("fever-symmetric", "summedits", "wice", "attributionbench", "begin", "squad2")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=300)
    parser.add_argument("--nli", default="lexical,veriground-nli")
    parser.add_argument("--aggregator", default="raw,calibrated")
    parser.add_argument(
        "--aggregator-path", type=Path, help="An aggregator file `veriground calibrate --out` wrote (default: shipped)"
    )
    parser.add_argument("--property", type=int, default=200, help="sentences sampled for the property check")
    parser.add_argument("--skip-golden", action="store_true")
    parser.add_argument("--datasets", type=Path, default=DATASETS)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        store = _domain_store(Path(scratch) / "domain", args.datasets)
        sentences = sample_sentences(store, args.property)
        for nli_name in args.nli.split(","):
            for aggregator in args.aggregator.split(","):
                overrides = {"models.nli": nli_name, "verification.aggregator": aggregator}
                if args.aggregator_path is not None and aggregator == "calibrated":
                    overrides["verification.aggregator_path"] = str(args.aggregator_path)
                    aggregator = f"calibrated ({args.aggregator_path.name})"
                config = load_config(None, overrides, environ={})
                rows.append(_measure(config, nli_name, aggregator, args, store, sentences, Path(scratch)))
                _print_table(rows)
        if not args.skip_golden:
            config = load_config(None, {"answer.baseline": "B2"}, environ={})
            result = run_golden(config=config, golden=None, corpus=None, split="all", runs_dir=Path(scratch) / "runs",
                                figures=False)  # fmt: skip
            rows.append({"config": "B2 (naive RAG)", **_golden_figures(result)})
    _print_table(rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


def _domain_store(folder: Path, datasets: Path) -> CorpusStore:
    config = load_config(None, environ={})
    store = CorpusStore(folder)
    ingest_paths([datasets / "domain-corpora"], store, config.ingest)
    return store


def _measure(config, nli_name, aggregator, args, store, sentences, scratch) -> dict:
    started = time.perf_counter()
    nli = build_nli(config.models)
    shipped = nli_name == ModelsConfig().nli and aggregator == "calibrated"
    row: dict = {"config": f"{nli_name} / {aggregator}" + (" (default)" if shipped else "")}
    for benchmark in select_benchmarks(PAIR_BENCHMARKS):
        result = run_benchmark(benchmark, args.datasets, config=config, nli=nli, limit=args.limit)
        row[f"{benchmark.name}"] = result.value.value
        if result.binary is not None:
            row[f"{benchmark.name} bal-acc"] = result.binary.balanced_accuracy.value
        calibration = result.details.get("calibration") or {}
        row[f"{benchmark.name} ECE"] = (calibration.get("ece") or {}).get("value")
    prop = check_property(sentences, store, config=config, nli=nli)
    row["property supported"] = round(prop.supported_share, 4)
    row["property contradicted"] = prop.true_verdicts["Contradictory"]
    row["property edited not supported"] = round(prop.edited_not_supported_share, 4)
    row["property swapped not supported"] = round(prop.swapped_not_supported_share, 4)
    if not args.skip_golden:
        result = run_golden(config=config, golden=None, corpus=None, split="all", runs_dir=scratch / "runs",
                            figures=False)  # fmt: skip
        row.update(_golden_figures(result))
    row["seconds"] = round(time.perf_counter() - started, 1)
    return row


def _golden_figures(result) -> dict:
    metrics = result.summary.get("metrics", {})
    return {
        "golden answer correct": _value(metrics.get("answer.correct_rate")),
        "golden abstention acc": _value(metrics.get("abstention.accuracy")),
    }


def _value(metric) -> float | None:
    if isinstance(metric, dict):
        return metric.get("value")
    return metric


def _print_table(rows: list[dict]) -> None:
    columns = list(dict.fromkeys(key for row in rows for key in row))
    sys.stdout.write("\n" + " | ".join(columns) + "\n")
    for row in rows:
        cells = [_cell(row.get(column)) for column in columns]
        sys.stdout.write(" | ".join(cells) + "\n")
    sys.stdout.flush()


def _cell(value) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    return "" if value is None else str(value)


if __name__ == "__main__":
    raise SystemExit(main())
