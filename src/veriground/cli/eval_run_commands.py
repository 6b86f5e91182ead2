"""`eval run`, `eval compare` and `eval ablate`: golden-set runs of the grounded-QA pipeline into runs/<run id>/,
their side-by-side tables, and the baselines / ablations sweep."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from veriground.cli import options
from veriground.cli.eval_commands import eval_app
from veriground.cli.progress import progress_bar

GoldenOption = Annotated[
    Path | None, typer.Option("--golden", help="Golden-set JSONL (default: the shipped demo golden set).")
]
GoldenCorpusOption = Annotated[
    Path | None,
    typer.Option("--corpus", help="An ingested corpus (default: the bundled demo corpus, built in a temp dir)."),
]
SplitOption = Annotated[str, typer.Option("--split", help="dev, test or all.")]
RunsDirOption = Annotated[Path, typer.Option("--runs-dir", help="Where run folders go.")]
NoFiguresOption = Annotated[bool, typer.Option("--no-figures", help="Skip the PNG figures and the gate sweep.")]


@eval_app.command("run")
def eval_run(
    golden: GoldenOption = None,
    corpus: GoldenCorpusOption = None,
    baseline: options.Baseline = None,
    retrieval: options.Retrieval = None,
    nli: options.NLI = None,
    min_sources: options.MinSources = None,
    no_rerank: Annotated[bool, typer.Option("--no-rerank", help="Drop the configured reranker.")] = False,
    no_verify: Annotated[
        bool, typer.Option("--no-verify", help="Emit drafted sentences unchecked (config answer.verify = false).")
    ] = False,
    no_contradictions: Annotated[
        bool,
        typer.Option(
            "--no-contradictions", help="No evidence-vs-evidence conflict check (verification.contradictions)."
        ),
    ] = False,
    no_atomic: Annotated[
        bool, typer.Option("--no-atomic", help="One claim per sentence, not atomic claims (verification.atomic).")
    ] = False,
    no_dependencies: options.NoDependencies = False,
    split: SplitOption = "all",
    runs_dir: RunsDirOption = Path("runs"),
    no_figures: NoFiguresOption = False,
    config_file: options.ConfigFile = None,
) -> None:
    """Answer every golden query; write summary.json, metrics.csv, predictions.jsonl, manifest.json, figures."""
    from veriground.config import with_overrides
    from veriground.evaluation.ablations import ABLATIONS
    from veriground.evaluation.golden_run import run_golden

    _check_split(split)
    config = options.command_config(eval_run, locals())
    # The switches set what their ablation sets, past load_config (which reads None as "flag not given").
    switches = {"no-rerank": no_rerank, "no-verify": no_verify, "no-contradictions": no_contradictions}
    switches["no-atomic"] = no_atomic
    switches["no-dependencies"] = no_dependencies
    chosen = [ablation.overrides for ablation in ABLATIONS if switches.get(ablation.label)]
    config = with_overrides(config, {key: value for overrides in chosen for key, value in overrides.items()})
    with progress_bar("Answering golden queries") as on_progress:
        result = run_golden(
            config=config,
            golden=golden,
            corpus=corpus,
            split=split,
            runs_dir=runs_dir,
            figures=not no_figures,
            on_progress=on_progress,
        )
    out = sys.stdout.write
    summary = result.summary
    if not summary["runnable"]:
        out(f"run {result.run_id}: not runnable: {summary['reason']}\n")
    else:
        rows = summary["rows"]
        out(
            f"run {result.run_id}: {rows['total']} queries ({rows['answerable']} answerable, "
            f"{rows['unanswerable']} unanswerable, {rows['contradiction']} contradiction probes)\n"
        )
        for name, metric in sorted(summary["metrics"].items()):
            value = "n/a" if metric.get("value") is None else f"{metric['value']:.3f}"
            why = f"  ({metric['reason']})" if metric.get("reason") else ""
            out(f"  {name:<36}{value:>7}  n={metric['n']}{why}\n")
        _print_by_domain(summary.get("by_domain", {}))
    out(f"run folder: {result.run_dir}\n")


def _print_by_domain(by_domain: dict) -> None:
    """Every metric per domain, one column each ('n/a': undefined for that domain's rows)."""
    if not by_domain:
        return
    out = sys.stdout.write
    domains = list(by_domain)
    widths = [max(7, len(name)) for name in domains]
    counts = ", ".join(f"{name} {by_domain[name]['rows']['total']}" for name in domains)
    out(f"\nby domain (rows: {counts}):\n")
    out(f"  {'metric':<36}" + "".join(f"  {name:>{width}}" for name, width in zip(domains, widths, strict=True)) + "\n")
    names = sorted({name for entry in by_domain.values() for name in entry["metrics"]})
    for name in names:
        cells = []
        for domain, width in zip(domains, widths, strict=True):
            value = by_domain[domain]["metrics"].get(name, {}).get("value")
            shown = "n/a" if value is None else f"{value:.3f}"
            cells.append(f"  {shown:>{width}}")
        out(f"  {name:<36}" + "".join(cells) + "\n")


@eval_app.command("compare")
def eval_compare(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run folders written by `veriground eval run`.")],
    out_csv: Annotated[Path, typer.Option("--out", help="Where the CSV table goes.")] = Path(
        "results/tables/run_summary.csv"
    ),
    figure: Annotated[
        Path | None, typer.Option("--figure", help="Also draw a bar chart of the runs (PNG, needs the eval extra).")
    ] = None,
) -> None:
    """Side-by-side table of the runs' summary metrics; also written to results/tables/run_summary.csv."""
    from veriground.evaluation.run_files import comparison_rows, format_table, read_summary, write_comparison_csv

    summaries = [read_summary(run_dir) for run_dir in run_dirs]
    header, rows = comparison_rows(summaries)
    write_comparison_csv(out_csv, header, rows)
    sys.stdout.write(format_table(header, rows))
    for summary in summaries:
        if not summary.get("runnable", True):
            sys.stdout.write(f"{summary.get('run_id')}: not runnable: {summary.get('reason')}\n")
    if figure is not None:
        from veriground.evaluation.figures import plot_runs_bar_chart

        plot_runs_bar_chart(summaries, figure)
        sys.stdout.write(f"figure: {figure}\n")
    sys.stdout.write(f"table: {out_csv}\n")


@eval_app.command("ablate")
def eval_ablate(
    golden: GoldenOption = None,
    corpus: GoldenCorpusOption = None,
    no_dependencies: options.NoDependencies = False,
    split: SplitOption = "all",
    runs_dir: RunsDirOption = Path("runs"),
    out_csv: Annotated[Path, typer.Option("--out", help="Where the CSV table goes.")] = Path(
        "results/tables/ablations.csv"
    ),
    figure: Annotated[Path, typer.Option("--figure", help="Where the bar chart goes (PNG).")] = Path(
        "results/figures/ablations.png"
    ),
    no_figures: NoFiguresOption = False,
    config_file: options.ConfigFile = None,
) -> None:
    """Run B3, each ablation and the baselines B2 and B1 as separate runs; print and write one comparison table."""
    from veriground.cli.progress import progress_bar
    from veriground.evaluation.ablations import ablation_facts, ablation_table, run_ablations
    from veriground.evaluation.golden_run import open_golden_inputs
    from veriground.evaluation.run_files import format_table, write_comparison_csv

    _check_split(split)
    config = options.command_config(eval_ablate, locals())
    if not no_figures:
        from veriground.evaluation.figures import check_figures_available

        check_figures_available()
    with (
        open_golden_inputs(golden=golden, corpus=corpus, split=split, config=config) as inputs,
        progress_bar("Running ablations") as on_progress,
    ):
        runs = run_ablations(inputs, config, runs_dir=runs_dir, figures=not no_figures, on_progress=on_progress)
    header, rows = ablation_table(runs)
    write_comparison_csv(out_csv, header, [*ablation_facts(runs), *rows])
    out = sys.stdout.write
    out(f"eval ablate: {len(inputs.queries)} queries ({split}); one column per run, '—' = undefined or not run\n\n")
    out(format_table(header, rows))
    out("\n")
    width = max(len(run.ablation.label) for run in runs)
    for run in runs:
        what = f"{run.ablation.flags}  -> {run.run_id or 'no run'}"
        out(f"{run.ablation.label:<{width}}  {what}{f'  ({run.note})' if run.note else ''}\n")
    if not no_figures:
        from veriground.evaluation.figures import plot_runs_bar_chart

        summaries = [run.summary for run in runs]
        plot_runs_bar_chart(summaries, figure, labels=header[1:], title="Baselines and ablations (golden set)")
        out(f"figure: {figure}\n")
    out(f"table: {out_csv}\n")


def _check_split(split: str) -> None:
    from veriground.errors import ConfigError

    if split not in ("dev", "test", "all"):
        raise ConfigError(f"--split must be dev, test or all, got {split!r}")
