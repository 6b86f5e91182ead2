"""`veriground calibrate`: the visible dev rows of the shared datasets and synthetic edits of the domain corpora ->
the support aggregator for the configured NLI (two logistic models, temperature, thresholds, figures) -> one entry
of an aggregator file (the shipped verdicts/aggregator.json with --out src/veriground/verdicts/aggregator.json)."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from veriground.cli import options
from veriground.cli.app import app, open_workspace
from veriground.cli.progress import progress_group

if TYPE_CHECKING:
    from veriground.schema import LabelledPair

LOG_EVERY_ROWS = 200


@app.command("calibrate")
def calibrate(
    out: Annotated[Path, typer.Option("--out", help="Aggregator file to write or update (one entry per NLI).")],
    data: Annotated[
        Path, typer.Option("--data", envvar="VERIGROUND_DATASETS", help="The shared datasets folder.")
    ] = Path("..") / "shared" / "datasets",
    nli: options.NLI = None,
    rows_per_source: Annotated[int, typer.Option("--rows-per-source", min=20, help="Seeded sample per source.")] = 500,
    nli_cache: Annotated[
        Path | None, typer.Option("--nli-cache", help="JSONL of NLI scores kept between runs (scores new pairs only).")
    ] = None,
    figures: Annotated[
        Path | None, typer.Option("--figures", help="Folder for reliability diagrams before/after (needs [eval]).")
    ] = None,
    retrieved_rows: Annotated[
        bool,
        typer.Option("--retrieved-rows", help="Add domain sentences against their BM25 top-k (corpus-like evidence)."),
    ] = False,
    monotone: Annotated[
        bool, typer.Option("--monotone", help="Hold every feature weight to its declared direction (sign).")
    ] = False,
    antonym_rows: Annotated[
        bool,
        typer.Option("--antonym-rows", help="Add domain sentences with an antonym swapped (the shipped model's fit)."),
    ] = False,
    platt_rows: Annotated[
        Path | None,
        typer.Option(
            "--platt-rows",
            help="JSON of calibration row ids the NLI never trained on (scripts/nli_oof.py unseen): the support "
            "model's Platt scaling is refitted on them, scored by the NLI itself.",
        ),
    ] = None,
    units_per_passage: options.UnitsPerPassage = None,
    frames: options.Frames = None,
    config_file: options.ConfigFile = None,
) -> None:
    """Fit the calibrated support aggregator for one NLI backend and write it with its dev figures."""
    from veriground.errors import InputFileError
    from veriground.evaluation.aggregator_fit import fit_aggregator
    from veriground.evaluation.batching import MemoNLIModel
    from veriground.evaluation.calibration_data import calibration_rows, rows_sha256
    from veriground.evaluation.calibration_signals import collect_signals
    from veriground.evidence.units import MAX_UNITS_PER_CHUNK

    if not data.is_dir():
        raise InputFileError(data, "is not a folder", "point --data (or VERIGROUND_DATASETS) at the shared datasets")
    with open_workspace(calibrate, locals()) as workspace:  # only its NLI, which outlives it
        config, nli_model = workspace.config, workspace.nli
    model = MemoNLIModel(nli_model, nli_cache)
    rows = calibration_rows(data, rows_per_source, retrieved=retrieved_rows, antonyms=antonym_rows)
    unseen = read_platt_rows(platt_rows, rows) if platt_rows is not None else None
    counts: dict[str, dict[str, int]] = {}
    for row in rows:
        counts.setdefault(row.group or "", {}).setdefault(row.label, 0)
        counts[row.group or ""][row.label] += 1
    for group, labels in sorted(counts.items()):
        sys.stderr.write(f"{group:18} {json.dumps(dict(sorted(labels.items())))}\n")
    with progress_group() as bars:
        on_progress = bars.callback("Scoring calibration rows") if bars.active else _log_progress
        signals = collect_signals(rows, config=config, nli=model, progress=lambda done: on_progress(done, len(rows)))
        # The NLI's own scores (no --nli-cache): these rows are where the shipped model is read as it will be
        platt_signals = None if unseen is None else collect_signals(unseen, config=config, nli=nli_model)
    units = config.verification.units_per_passage or MAX_UNITS_PER_CHUNK
    entry = fit_aggregator(
        signals,
        model.name,
        rows_sha256(rows),
        monotone=monotone,
        units_per_passage=units,
        platt_signals=platt_signals,
    )
    if platt_rows is not None:
        entry["fit"]["platt_rows"]["file"] = platt_rows.name
    if model.checksum:  # the weights it was fitted for: verification refuses it for others under the same name
        entry["nli_checksum"] = model.checksum
    if antonym_rows:  # said only when used, so entries fitted without them stay as they were
        entry["fit"]["antonym_rows"] = True
    if not config.verification.frames:  # the dev claims were read whole, frames and all (claims/frames.py)
        entry["fit"]["frames"] = False
    if nli_cache is not None:  # e.g. out-of-fold scores (scripts/nli_oof.py): the fit read these, not the model's
        entry["fit"]["nli_scores"] = _cache_provenance(nli_cache, model.scored_by_model)
    existing = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    aggregators = dict(existing.get("aggregators", {}))
    aggregators[model.name] = entry
    document = {
        "about": "Calibrated support aggregators, one per NLI backend; written by `veriground calibrate`.",
        "aggregators": dict(sorted(aggregators.items())),
    }
    out.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    if figures is not None:
        _plot(entry, model.name, figures)
    figures_shown = dict(entry["dev_figures"])
    for key in ("calibration_before", "calibration_after"):
        figures_shown[key] = {name: figures_shown[key][name] for name in ("ece", "brier")}
    shown = {
        "nli": model.name,
        "thresholds": entry["thresholds"],
        "hard_rejection_support": entry["hard_rejection_support"],
        "dev_figures": figures_shown,
    }
    typer.echo(json.dumps(shown, indent=1))
    typer.echo(f"wrote {out}")


def read_platt_rows(path: Path, rows: Sequence[LabelledPair]) -> list[LabelledPair]:
    """The calibration rows `path` names (a JSON object whose "rows" lists row ids), in calibration order; every id
    must be among `rows`, or the file was written for other data."""
    from veriground.errors import InputFileError

    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        wanted = set(document["rows"])
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise InputFileError(
            path, f"is not a Platt rows file ({err})", "write it with scripts/nli_oof.py unseen"
        ) from None
    chosen = [row for row in rows if row.id in wanted]
    missing = len(wanted) - len(chosen)
    if missing or not chosen:
        raise InputFileError(
            path,
            f"names {missing} row ids that are not calibration rows here" if missing else "names no rows",
            "write it again with scripts/nli_oof.py unseen for these datasets and options",
        )
    return chosen


def _cache_provenance(path: Path, scored_by_model: int) -> dict[str, object]:
    """What the fit's NLI scores were read from: the cache file's name and SHA-256 as it stood after the run, and
    how many pairs were not in it (the model scored them, and they were appended)."""
    import hashlib

    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return {"cache": path.name, "sha256": digest, "pairs_scored_by_model": scored_by_model}


def _plot(entry: dict, nli_name: str, folder: Path) -> None:
    from veriground.evaluation.figures import check_figures_available, plot_reliability_diagram

    check_figures_available()
    folder.mkdir(parents=True, exist_ok=True)
    for key, label in (("calibration_before", "raw NLI entailment"), ("calibration_after", "calibrated aggregator")):
        path = folder / f"reliability-{nli_name}-{key.removeprefix('calibration_')}.png"
        plot_reliability_diagram(
            entry["dev_figures"][key]["bins"],
            path,
            xlabel=f"P(supported), {label}",
            ylabel="share of dev rows supported",
            title=f"Reliability on the calibration dev rows ({nli_name})",
        )
        typer.echo(f"wrote {path}")


def _log_progress(done: int, total: int) -> None:
    """Without a terminal (a log file, CI): a line every LOG_EVERY_ROWS rows instead of a bar."""
    if done % LOG_EVERY_ROWS == 0 or done == total:
        sys.stderr.write(f"  signals {done}/{total}\n")
