"""`veriground eval ablate`: one golden set, corpus and config -> the full pipeline (B3), each ablation of seed 000
§4.2.3 and seed 004 §4.3 and the baselines B2 and B1, each its own run folder, and one comparison table.

Every ablation is listed. One whose config equals the base run's (--retrieval bm25 when retrieval.mode is already
bm25) is the base run and says so rather than run twice; one with no mechanism in the pipeline to switch off says
that instead of being invented.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from veriground.config import Config, with_overrides
from veriground.evaluation.golden_run import GoldenInputs, planned_run_id, run_config

BASE_LABEL = "B3"
# Seed 000 §2.5's dependency checker (claims/dependencies.py) reports terms used before their definition; the
# warnings change a verdict only under verification.strict_dependencies, which is off by default.
DEPENDENCIES_REPORT_ONLY = (
    "dependency warnings change verdicts only with verification.strict_dependencies (off by default), so grounded "
    "QA's metrics may equal the base run's"
)


@dataclass(frozen=True)
class Ablation:
    """One column of the table: the `eval run` flags that make it and the config keys they set."""

    label: str
    flags: str
    overrides: Mapping[str, Any]
    missing: str | None = None  # why the pipeline has nothing to switch off; the run is not made
    same_metrics_hint: str | None = None  # why its metrics may equal the base run's


ABLATIONS: tuple[Ablation, ...] = (
    Ablation(BASE_LABEL, "(none: the full pipeline)", {}),
    Ablation("no-rerank", "--no-rerank", {"models.reranker": None}),
    Ablation("no-verify", "--no-verify", {"answer.verify": False}),
    Ablation("no-contradictions", "--no-contradictions", {"verification.contradictions": False}),
    Ablation("bm25", "--retrieval bm25", {"retrieval.mode": "bm25"}),
    Ablation("lexical-nli", "--nli lexical", {"models.nli": "lexical"}),
    Ablation("min-sources-2", "--min-sources 2", {"verification.min_supporting_sources": 2}),  # seed 000's rule
    Ablation("no-atomic", "--no-atomic", {"verification.atomic": False}),
    Ablation(
        "no-dependencies",
        "--no-dependencies",
        {"verification.dependencies": False},
        same_metrics_hint=DEPENDENCIES_REPORT_ONLY,
    ),
    Ablation("B2", "--baseline B2", {"answer.baseline": "B2"}),
    Ablation("B1", "--baseline B1", {"answer.baseline": "B1"}),
)


@dataclass(frozen=True)
class AblationRun:
    """What became of one ablation: the run it names (None when not made), its summary and a note."""

    ablation: Ablation
    run_id: str | None
    summary: Mapping[str, Any]
    note: str


def run_ablations(
    inputs: GoldenInputs,
    config: Config,
    *,
    runs_dir: Path,
    figures: bool = True,
    ablations: Sequence[Ablation] = ABLATIONS,
    on_progress: Callable[[int, int], None] | None = None,
) -> list[AblationRun]:
    """The base run (`config` as B3), then every other ablation on top of it, in order; `on_progress(done, total)`
    counts the ablations as they finish."""
    progress = on_progress or (lambda done, total: None)
    progress(0, len(ablations))
    base = with_overrides(config, {"answer.baseline": "B3"})
    base_run = run_config(inputs, base, runs_dir=runs_dir, figures=figures)
    done: list[AblationRun] = []
    for ablation in ablations:
        progress(len(done), len(ablations))
        if ablation.label == BASE_LABEL:
            done.append(AblationRun(ablation, base_run.run_id, base_run.summary, "the base run"))
            continue
        if ablation.missing is not None:
            done.append(AblationRun(ablation, None, {"metrics": {}}, f"not run: {ablation.missing}"))
            continue
        variant = with_overrides(base, ablation.overrides)
        if planned_run_id(inputs, variant) == base_run.run_id:
            already = ", ".join(f"{key} is already {value!r}" for key, value in ablation.overrides.items())
            note = f"same config as the base run ({already}): it is the base run, not run twice"
            done.append(AblationRun(ablation, base_run.run_id, base_run.summary, note))
            continue
        result = run_config(inputs, variant, runs_dir=runs_dir, figures=figures)
        done.append(
            AblationRun(ablation, result.run_id, result.summary, _note(result.summary, base_run.summary, ablation))
        )
    progress(len(done), len(ablations))
    return done


def _note(summary: Mapping[str, Any], base: Mapping[str, Any], ablation: Ablation) -> str:
    if not summary.get("runnable", True):
        return f"not runnable: {summary.get('reason')}"
    if summary["metrics"] == base["metrics"]:
        hint = f": {ablation.same_metrics_hint}" if ablation.same_metrics_hint else ""
        return f"a run of its own, every metric as in the base run{hint}"
    return ""


def ablation_table(runs: Sequence[AblationRun]) -> tuple[list[str], list[list[str]]]:
    """`run_files.comparison_rows` of the runs, one column per ablation label."""
    from veriground.evaluation.run_files import comparison_rows

    return comparison_rows([run.summary for run in runs], [run.ablation.label for run in runs])


def ablation_facts(runs: Sequence[AblationRun]) -> list[list[str]]:
    """Rows that say what each column is: its run id, its `eval run` flags and its note."""
    return [
        ["run id", *(run.run_id or "" for run in runs)],
        ["flags", *(run.ablation.flags for run in runs)],
        ["note", *(run.note for run in runs)],
    ]
