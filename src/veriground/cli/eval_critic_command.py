"""`eval critic`: critic mode over the labelled critic set -> per-label P/R/F1, macro-F1, exact match, runs/<id>/."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from veriground.cli import options
from veriground.cli.eval_commands import eval_app
from veriground.cli.eval_run_commands import RunsDirOption, SplitOption
from veriground.errors import ConfigError

SPLITS = ("dev", "test", "all")


@eval_app.command("critic")
def eval_critic(
    critic_set: Annotated[
        Path | None, typer.Option("--set", help="Critic set JSONL (default: the shipped labelled critic set).")
    ] = None,
    corpus: Annotated[
        Path | None,
        typer.Option("--corpus", help="Corpus for L3 (default: the bundled demo corpus, built in a temp dir)."),
    ] = None,
    split: SplitOption = "all",
    tier: options.Tier = 1,
    nli: options.NLI = None,
    runs_dir: RunsDirOption = Path("runs"),
    config_file: options.ConfigFile = None,
) -> None:
    """Critique every snippet of the critic set; print per-label P/R/F1, macro-F1 and exact match; write the run."""
    from veriground.evaluation.critic_run import run_critic_eval

    if split not in SPLITS:
        raise ConfigError(f"--split must be one of {', '.join(SPLITS)}, got {split!r}")
    if tier not in (1, 2):
        raise ConfigError(f"--tier must be 1 or 2, got {tier}")
    config = options.command_config(eval_critic, locals())
    result = run_critic_eval(
        config=config, critic_set=critic_set, corpus=corpus, split=split, tier=tier, runs_dir=runs_dir
    )
    metrics = result.summary["metrics"]
    rows = result.summary["rows"]
    out = sys.stdout.write
    out(
        f"run {result.run_id}: {rows['total']} snippets ({rows['labelled']} labelled, {rows['neutral']} neutral), "
        f"tier {tier}\n"
    )
    out(f"  {'label':<6}{'precision':>10}{'recall':>8}{'f1':>7}\n")
    for label in ("L1", "L2", "L3", "L4", "L5", "L6"):
        cells = [_value(metrics[f"critic.{label}.{name}"]) for name in ("precision", "recall", "f1")]
        out(f"  {label:<6}{cells[0]:>10}{cells[1]:>8}{cells[2]:>7}\n")
    for name in ("macro_f1", "exact_match", "neutral_without_finding"):
        metric = metrics[f"critic.{name}"]
        out(f"  {name:<24}{_value(metric):>7}  n={metric['n']}\n")
    out(f"run folder: {result.run_dir}\n")


def _value(metric: dict) -> str:
    return "n/a" if metric.get("value") is None else f"{metric['value']:.3f}"
