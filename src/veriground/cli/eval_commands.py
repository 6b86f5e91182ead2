"""`eval pairs` and `eval bench`: labelled pairs or the public benchmarks -> verification -> metric tables.

Tables go to stdout (or JSON with --json, sorted keys, no timings, so two runs print the same bytes); the
progress bar goes to stderr and is off with --json.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from veriground.cli import options
from veriground.cli.app import app, open_workspace, print_json
from veriground.cli.progress import progress_group

if TYPE_CHECKING:
    from veriground.evaluation.benchmarks import BenchmarkResult, GroupResult
    from veriground.evaluation.metrics import DetectionMetrics
    from veriground.evaluation.pairs import PairsResult, PairsSummary

eval_app = typer.Typer(
    help="Measure verification: labelled pairs and public benchmarks (hallucination detection, calibration).",
    no_args_is_help=True,
)
app.add_typer(eval_app, name="eval")

_BINARY_HEADER = f"{'P':>6} {'R':>6} {'F1':>6} {'bal-acc':>7}"


@eval_app.command("pairs")
def eval_pairs(
    file: Annotated[Path, typer.Argument(help="JSONL: one {id, text, evidence | evidence_ids, label} per line.")],
    corpus: options.Corpus = None,
    nli: options.NLI = None,
    limit: options.Limit = None,
    runtime: options.Runtime = None,
    allow_download: options.AllowDownload = None,
    config_file: options.ConfigFile = None,
    show_rows: Annotated[
        bool,
        typer.Option(
            "--rows", help="Also print each row: id, gold label, and per claim its verdict, rule and explanation."
        ),
    ] = False,
    as_json: options.Json = False,
) -> None:
    """Verify each row's text against exactly its evidence; print P/R/F1/balanced accuracy, ECE, Brier."""
    from veriground.evaluation.pairs import evaluate_pairs, read_pairs

    with open_workspace(eval_pairs, locals()) as workspace:
        rows = read_pairs(file)[:limit]
        model = workspace.nli
        store = workspace.store if any(row.evidence_ids for row in rows) else None
        resolve = None if store is None else (lambda passage_id: store.passage(passage_id).text)
        with progress_group(enabled=not as_json) as bars:
            on_progress = bars.callback("Verifying rows")
            result = evaluate_pairs(
                rows,
                config=workspace.config,
                nli=model,
                resolve=resolve,
                progress=lambda done: on_progress(done, len(rows)),
            )
    if as_json:
        print_json(result.to_json())
    else:
        if show_rows:
            _print_pair_rows(result)
        _print_pairs(file, result)


@eval_app.command("bench")
def eval_bench(
    names: Annotated[list[str] | None, typer.Argument(help="Benchmarks to run (default: all).")] = None,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Rows per benchmark: a seeded sample, in file order.")
    ] = None,
    datasets_dir: Annotated[
        Path | None,
        typer.Option(
            "--datasets",
            envvar="VERIGROUND_DATASETS",
            help="The shared datasets folder (default ../shared/datasets, beside the checkout).",
        ),
    ] = None,
    all_rows: Annotated[
        bool,
        typer.Option(
            "--all-rows", help="Also the rows the shipped NLI model trained on (default: only held-out rows)."
        ),
    ] = False,
    nli: options.NLI = None,
    runtime: options.Runtime = None,
    allow_download: options.AllowDownload = None,
    list_names: Annotated[
        bool, typer.Option("--list", help="List the benchmarks (name, metric, source) and stop.")
    ] = False,
    config_file: options.ConfigFile = None,
    as_json: options.Json = False,
) -> None:
    """Run the public benchmark adapters; one table: rows, the authors' metric, and P/R/F1/balanced accuracy.

    Only each dataset's held-out part is scored (see veriground/evaluation/heldout.py), for every NLI backend,
    so the shipped model is never measured on its own training rows and backends stay comparable."""
    from veriground.evaluation.benchmarks import (
        DEFAULT_DATASETS_DIR,
        check_datasets_dir,
        run_benchmark,
        select_benchmarks,
    )
    from veriground.evaluation.datasets import SAMPLE_SEED

    if list_names:
        for benchmark in select_benchmarks(names or []):
            typer.echo(f"{benchmark.name:18} {benchmark.metric} ({benchmark.source}); files in {benchmark.folder}/")
        return
    with open_workspace(eval_bench, locals()) as workspace:
        benchmarks = select_benchmarks(names or [])
        folder = datasets_dir or DEFAULT_DATASETS_DIR
        check_datasets_dir(folder, benchmarks)
        model = workspace.nli
        with progress_group(enabled=not as_json) as bars:
            results = [
                run_benchmark(
                    benchmark,
                    folder,
                    config=workspace.config,
                    nli=model,
                    limit=limit,
                    progress=bars.update,
                    all_rows=all_rows,
                )
                for benchmark in benchmarks
            ]
    if as_json:
        print_json(
            {
                "nli": {"name": model.name, "model_id": model.model_id, "checksum": model.checksum},
                "limit": limit,
                "rows": "all" if all_rows else "held-out",
                "sample_seed": SAMPLE_SEED,
                "benchmarks": [result.to_json() for result in results],
            }
        )
    else:
        _print_bench(results, f"{model.name} ({model.model_id}, sha256 {model.checksum or '-'})", limit, all_rows)


# --- tables ---------------------------------------------------------------------------------------------------


def _print_pairs(file: Path, result: PairsResult) -> None:
    overall = result.overall
    out = sys.stdout.write
    out(f"eval pairs: {file}, {overall.rows} rows, {overall.claims} claims, NLI {result.nli}\n")
    out("hallucination detection (positive = gold unsupported or contradicted; predicted when any claim is\n")
    out("Contradictory, Unsupported or Unverified):\n")
    detection = overall.detection
    out(
        f"  precision {detection.precision.format()}  recall {detection.recall.format()}  F1 {detection.f1.format()}"
        f"  balanced accuracy {detection.balanced_accuracy.format()}  accuracy {detection.accuracy.format()}\n"
    )
    _print_undefined(detection)
    cal = overall.calibration
    out(
        f"calibration of P(supported) = min over claims of max entailment "
        f"({overall.rows - overall.without_probability} rows with a probability):\n"
        f"  ECE {cal.ece.format()} ({len(cal.bins)} bins)  Brier {cal.brier.format()}  "
        f"ROC AUC {overall.roc_auc.format()}\n"
    )
    counts = detection.counts
    out(f"{'confusion (rows)':<22}{'pred. hallucinated':>20}{'pred. supported':>18}\n")
    out(f"{'  gold hallucinated':<22}{counts.tp:>20}{counts.fn:>18}\n")
    out(f"{'  gold supported':<22}{counts.fp:>20}{counts.tn:>18}\n")
    verdicts = ", ".join(f"{name} {count}" for name, count in sorted(overall.verdicts.items())) or "none"
    out(f"verdicts over claims: {verdicts}\n")
    out(
        f"unverified rows: {overall.unverified_rows} (a signal could not run; counted as hallucinated); "
        f"rows with no checkable claim: {overall.no_claim_rows}\n"
    )
    if result.groups:
        out(f"\n{'group':<24}{'rows':>6} {_BINARY_HEADER} {'ECE':>6} {'Brier':>6}\n")
        for name, summary in sorted(result.groups.items()):
            out(f"{name:<24}{summary.rows:>6} {_binary_cells(summary.detection)} {_calibration_cells(summary)}\n")


def _print_pair_rows(result: PairsResult) -> None:
    """One block per row: id, gold label and the prediction (✗ when it disagrees), then a line per claim."""
    out = sys.stdout.write
    out("rows (✗: the prediction disagrees with the gold label):\n")
    for prediction in result.predictions:
        predicted = "hallucinated" if prediction.hallucinated else "supported"
        mark = "✗" if prediction.hallucinated != prediction.gold_hallucinated else " "
        out(f"{mark} {prediction.id}  gold {prediction.label}, predicted {predicted}\n")
        if not prediction.verdicts:
            out("    (no checkable claim)\n")
        explanations = prediction.explanations or ("",) * len(prediction.verdicts)
        for verdict, rule, explanation in zip(prediction.verdicts, prediction.rules, explanations, strict=True):
            first_line = explanation.strip().split("\n", 1)[0]
            out(f"    {verdict:<14} {rule:<26} {first_line}".rstrip() + "\n")
    out("\n")


def _print_bench(results: Sequence[BenchmarkResult], nli_name: str, limit: int | None, all_rows: bool) -> None:
    out = sys.stdout.write
    part = "all rows, training rows of the shipped NLI included" if all_rows else "held-out rows"
    sample = part if limit is None else f"{part}, a seeded sample of at most {limit} per benchmark"
    out(f"eval bench: NLI {nli_name}, {sample}\n\n")
    metric_header = "authors' metric"
    out(f"{'benchmark':<22}{'rows / size':>15}  {metric_header:<36}{'value':>7}  {_BINARY_HEADER}\n")
    for result in results:
        size = f"{result.rows_used:,} / {result.dataset_size:,}"
        out(
            f"{result.name:<22}{size:>15}  {result.metric:<36}{result.value.format():>7}  "
            f"{_binary_cells(result.binary)}\n"
        )
        for name, group in sorted(result.groups.items()):
            line = f"{'  · ' + name:<22}{group.rows:>15,}  {'':<36}{group.value.format():>7}  {_group_binary(group)}"
            out(line.rstrip() + "\n")
    out("\nP/R/F1: positive = hallucinated (gold unsupported/contradicted); squad2: positive = should abstain.\n")
    for result in results:
        notes = [f"{result.metric}: {result.source}"]
        if result.value.value is None:
            notes.append(f"value undefined: {result.value.reason}")
        notes += [f"skipped {count} ({why})" for why, count in sorted(result.skipped.items())]
        out(f"  {result.name}: {'; '.join(notes)}\n")


def _binary_cells(binary: DetectionMetrics | None) -> str:
    if binary is None:
        return f"{'—':>6} {'—':>6} {'—':>6} {'—':>7}"
    return (
        f"{binary.precision.format():>6} {binary.recall.format():>6} {binary.f1.format():>6} "
        f"{binary.balanced_accuracy.format():>7}"
    )


def _group_binary(group: GroupResult) -> str:
    return _binary_cells(group.binary) if group.binary is not None else ""


def _calibration_cells(summary: PairsSummary) -> str:
    return f"{summary.calibration.ece.format():>6} {summary.calibration.brier.format():>6}"


def _print_undefined(detection: DetectionMetrics) -> None:
    """Say why a metric printed as n/a is undefined, rather than leave a bare n/a."""
    for name in ("precision", "recall", "f1", "balanced_accuracy"):
        value = getattr(detection, name)
        if value.value is None:
            sys.stdout.write(f"  {name}: n/a, {value.reason}\n")
