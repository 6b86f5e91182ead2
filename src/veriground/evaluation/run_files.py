"""Run folders of `veriground eval run`: a finished run's records -> runs/<run id>/ files, and back.

summary.json, metrics.csv and predictions.jsonl hold no timestamps or paths, so the same inputs write the same
bytes; the run timestamp lives only in manifest.json.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from veriground.errors import InputFileError

SUMMARY_FILE = "summary.json"
METRICS_FILE = "metrics.csv"
PREDICTIONS_FILE = "predictions.jsonl"
MANIFEST_FILE = "manifest.json"
FIGURES_DIR = "figures"
RUN_SUMMARY_CSV = Path("results") / "tables" / "run_summary.csv"
ABLATIONS_CSV = Path("results") / "tables" / "ablations.csv"
ABLATIONS_FIGURE = Path("results") / "figures" / "ablations.png"
_METRICS_HEADER = ("metric", "value", "n", "reason")


def json_bytes(data: Any) -> bytes:
    return (json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def write_run(
    run_dir: Path,
    *,
    summary: Mapping[str, Any],
    predictions: Sequence[Mapping[str, Any]],
    manifest: Mapping[str, Any],
) -> None:
    """Write the four record files of one run; figures are written separately into run_dir/figures."""
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / SUMMARY_FILE).write_bytes(json_bytes(summary))
    (run_dir / METRICS_FILE).write_bytes(metrics_csv(summary).encode("utf-8"))
    lines = [json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n" for row in predictions]
    (run_dir / PREDICTIONS_FILE).write_bytes("".join(lines).encode("utf-8"))
    (run_dir / MANIFEST_FILE).write_bytes(json_bytes(manifest))


def metrics_csv(summary: Mapping[str, Any]) -> str:
    """One row per metric of a summary: name, value (empty when undefined), rows it is over, and why undefined."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(_METRICS_HEADER)
    for name, metric in sorted(summary.get("metrics", {}).items()):
        value = metric.get("value")
        writer.writerow((name, "" if value is None else value, metric.get("n", ""), metric.get("reason") or ""))
    return buffer.getvalue()


def read_summary(run_dir: Path) -> dict[str, Any]:
    """The summary.json of a run folder; a folder that is not a run is an InputFileError naming it."""
    path = run_dir / SUMMARY_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputFileError(
            run_dir, f"not a run folder: it has no {SUMMARY_FILE}", "pass a folder written by `veriground eval run`"
        ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise InputFileError(path, f"cannot read the run summary: {err}", "rerun `veriground eval run`") from None
    if not isinstance(data, dict) or not isinstance(data.get("metrics"), dict):
        raise InputFileError(path, "the run summary has no metrics table", "rerun `veriground eval run`")
    return data


def comparison_rows(
    summaries: Sequence[Mapping[str, Any]], labels: Sequence[str] | None = None
) -> tuple[list[str], list[list[str]]]:
    """Header (metric, one column per run, named by `labels`, default the run ids) and one row per metric in any
    run; '' where a run lacks it or the value is undefined."""
    names = sorted({name for summary in summaries for name in summary["metrics"]})
    columns = labels if labels is not None else [str(summary.get("run_id", "?")) for summary in summaries]
    header = ["metric", *columns]
    rows = []
    for name in names:
        cells = []
        for summary in summaries:
            value = summary["metrics"].get(name, {}).get("value")
            cells.append("" if value is None else f"{value:.6g}")
        rows.append([name, *cells])
    return header, rows


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """The comparison as aligned text: names left, values right, '—' for an empty cell."""
    lines = [list(header), *(list(row) for row in rows)]
    widths = [max(len(str(line[i]) or "—") for line in lines) for i in range(len(header))]
    text = []
    for line in lines:
        cells = [str(cell or "—") if i else str(cell) for i, cell in enumerate(line)]
        padded = [c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))]
        text.append("  ".join(padded).rstrip() + "\n")
    return "".join(text)


def write_comparison_csv(path: Path, header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    path.write_bytes(buffer.getvalue().encode("utf-8"))
