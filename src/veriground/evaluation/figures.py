"""Evaluation figures: run summaries, gate sweeps and calibration bins -> PNG files (matplotlib, Agg).

matplotlib is the `eval` extra and is imported only here, inside each function. The PNGs carry no Software or
date metadata, so the same data gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from veriground.errors import BackendError

EVAL_EXTRA_HINT = "pip install 'veriground[eval]'"
FIGURE_DPI = 100
# The PNG writer adds a Software tag by default; None drops it so the bytes depend on the data alone.
PNG_METADATA: dict[str, Any] = {"Software": None}
BAR_METRICS = (
    "retrieval.recall_at_5",
    "retrieval.mrr",
    "abstention.accuracy",
    "answer.correct_rate",
    "citation.alce_recall",
    "citation.alce_precision",
    "citation.gold_overlap_precision",
    "claims.ungrounded_rate",
    "contradiction.handled_rate",
)
# Colours of golden_metrics.GROUNDEDNESS_OUTCOMES, in that order (matplotlib's tab10 green, red, grey, blue).
GROUNDEDNESS_COLOURS = ("#2ca02c", "#d62728", "#7f7f7f", "#1f77b4")
GROUNDEDNESS_LABELS = (
    "stated, entailed by its citations",
    "stated, not entailed by its citations",
    "stated, not judged (NLI failed)",
    "drafted, not stated (removed or abstained)",
)


def _new_figure(width: float, height: float) -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise BackendError(f"figures need matplotlib, which is not installed; {EVAL_EXTRA_HINT}") from None
    matplotlib.rcParams["svg.hashsalt"] = "veriground"  # fixed ids, should an SVG ever be written
    figure = Figure(figsize=(width, height), dpi=FIGURE_DPI)
    FigureCanvasAgg(figure)
    return figure


def _save(figure: Any, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.tight_layout()
    figure.savefig(path, format="png", dpi=FIGURE_DPI, metadata=PNG_METADATA)
    return path


def check_figures_available() -> None:
    """Fail early, before a long run, when matplotlib is missing."""
    _new_figure(1, 1)


def plot_runs_bar_chart(
    summaries: Sequence[Mapping[str, Any]],
    path: Path,
    *,
    labels: Sequence[str] | None = None,
    title: str = "Golden-set runs",
) -> Path:
    """Grouped bars: one group per headline metric, one bar per run (named by `labels`, default the run ids); an
    undefined value is drawn as no bar."""
    figure = _new_figure(max(9, 1.2 * len(BAR_METRICS) + 0.35 * len(summaries)), 5)
    axes = figure.add_subplot()
    width = 0.8 / max(len(summaries), 1)
    names = list(labels) if labels is not None else [str(s.get("run_id", i)) for i, s in enumerate(summaries)]
    colours = _run_colours(len(summaries))
    for index, summary in enumerate(summaries):
        values = [summary["metrics"].get(name, {}).get("value") for name in BAR_METRICS]
        positions = [slot + index * width for slot in range(len(BAR_METRICS))]
        heights = [0.0 if value is None else value for value in values]
        axes.bar(positions, heights, width=width, label=names[index], color=colours[index])
    axes.set_xticks([slot + 0.4 - width / 2 for slot in range(len(BAR_METRICS))])
    axes.set_xticklabels([name.replace(".", "\n") for name in BAR_METRICS], fontsize=8)
    axes.set_ylim(0, 1.05)
    axes.set_ylabel("value")
    axes.set_title(title)
    axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _save(figure, path)


def _run_colours(count: int) -> list[Any]:
    """Distinct colours for up to 20 runs (tab20), cycling beyond."""
    from matplotlib import colormaps

    palette = colormaps["tab10" if count <= 10 else "tab20"]
    return [palette(index % palette.N) for index in range(count)]


def plot_groundedness(counts: Mapping[str, Mapping[str, int]], path: Path) -> Path:
    """One stacked bar per query kind (and all): where the drafted claims ended, as shares, with their count."""
    from veriground.evaluation.golden_metrics import GROUNDEDNESS_OUTCOMES

    figure = _new_figure(7, 4)
    axes = figure.add_subplot()
    kinds = list(counts)
    totals = [sum(counts[kind].values()) for kind in kinds]
    left = [0.0] * len(kinds)
    for outcome, colour, label in zip(GROUNDEDNESS_OUTCOMES, GROUNDEDNESS_COLOURS, GROUNDEDNESS_LABELS, strict=True):
        shares = [counts[kind][outcome] / total if total else 0.0 for kind, total in zip(kinds, totals, strict=True)]
        axes.barh(range(len(kinds)), shares, left=left, color=colour, label=label)
        left = [a + b for a, b in zip(left, shares, strict=True)]
    for row, total in enumerate(totals):
        axes.annotate(f"n={total}" if total else "no drafted claims", (1.01, row), va="center", fontsize=7)
    axes.set_yticks(range(len(kinds)))
    axes.set_yticklabels(kinds)
    axes.invert_yaxis()
    axes.set_xlim(0, 1.12)
    axes.set_xlabel("share of drafted claims (entailment: the configured NLI, as in citation.alce_recall)")
    axes.set_title("Groundedness of drafted claims by query kind")
    axes.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2)
    return _save(figure, path)


def plot_tradeoff_curve(points: Sequence[Mapping[str, Any]], path: Path) -> Path:
    """Selective accuracy against abstention rate, one point per evidence-gate threshold."""
    figure = _new_figure(6, 4.5)
    axes = figure.add_subplot()
    drawn = [p for p in points if p["abstention_rate"] is not None and p["answered_accuracy"] is not None]
    xs = [p["abstention_rate"] for p in drawn]
    ys = [p["answered_accuracy"] for p in drawn]
    axes.plot(xs, ys, marker="o")
    labels: dict[tuple[float, float], list[str]] = {}  # thresholds that land on one point share one label
    for point, x, y in zip(drawn, xs, ys, strict=True):
        labels.setdefault((x, y), []).append(f"{point['threshold']:.2f}")
    for (x, y), names in labels.items():
        text = names[0] if len(names) == 1 else f"{names[0]}–{names[-1]}"
        axes.annotate(text, (x, y), textcoords="offset points", xytext=(4, 4), fontsize=7)
    axes.set_xlim(-0.02, 1.02)
    axes.set_ylim(-0.02, 1.02)
    axes.set_xlabel("abstention rate (answerable + unanswerable questions)")
    axes.set_ylabel("accuracy of the answers given")
    axes.set_title("Abstention vs accuracy over answer.min_query_coverage")
    return _save(figure, path)


def plot_reliability_diagram(
    bins: Sequence[Mapping[str, Any]],
    path: Path,
    *,
    xlabel: str = "answer confidence (high 0.9, medium 0.75, low 0.5)",
    ylabel: str = "share answered correctly",
    title: str = "Reliability diagram",
) -> Path:
    """Observed rate against mean confidence per calibration bin, with the diagonal of perfect calibration."""
    figure = _new_figure(5, 5)
    axes = figure.add_subplot()
    axes.plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfectly calibrated")
    filled = [b for b in bins if b["count"]]
    axes.bar(
        [(b["lower"] + b["upper"]) / 2 for b in filled],
        [b["observed_rate"] for b in filled],
        width=[b["upper"] - b["lower"] for b in filled],
        edgecolor="black",
        alpha=0.6,
        label="observed rate",
    )
    axes.plot([b["mean_probability"] for b in filled], [b["observed_rate"] for b in filled], "o", label="bin mean")
    for item in filled:
        axes.annotate(f"n={item['count']}", ((item["lower"] + item["upper"]) / 2, item["observed_rate"]), fontsize=7)
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1.05)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.set_title(title)
    axes.legend(fontsize=7, loc="upper left")
    return _save(figure, path)
