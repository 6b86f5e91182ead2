"""Platt rows (`calibrate --platt-rows`): the shipped NLI's support scaling refitted on the claim rows it never
trained on, read by the model itself, with the verdict thresholds moved along so no boundary moves.

The aggregator is fitted on out-of-fold scores (scripts/nli_oof.py) of fold models, which are not the shipped model:
v3 separates held-out claims more sharply than they do, and a scaling fitted on their scores under-used it (held-out
rows wanted slope x1.17 and +0.21 on the logit). The thresholds stay the probabilities chosen on the fit's dev rows;
the new scaling maps the shipped model's scores onto them, and each threshold is read on the new scale at the same
logit, so a verdict changes only where the rules compare two probabilities. Measured on 700 held-out rows of five
benchmarks: mean ECE 0.080 -> 0.066, 12 of 3,158 verdicts changed, the property check unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from veriground.evaluation.metrics import calibration
from veriground.verdicts.aggregator import LogisticModel

if TYPE_CHECKING:
    from veriground.evaluation.calibration_signals import RowSignals

SUPPORT_THRESHOLDS = ("weak_entailment_prob", "min_entailment_prob")  # read on the support model's scale
# The row's P(supported) under a model (None when one of its claims has no unit)
SupportOf = Callable[["RowSignals", LogisticModel], float | None]


def moved_thresholds(thresholds: dict[str, float], old: LogisticModel, new: LogisticModel) -> dict[str, float]:
    """`thresholds` with each support threshold read on `new`'s scale at the logit where `old` gives it."""
    moved = dict(thresholds)
    for name in SUPPORT_THRESHOLDS:
        moved[name] = round(rescaled(thresholds[name], old, new), 4)
    return moved


def rescaled(probability: float, old: LogisticModel, new: LogisticModel) -> float:
    """The probability `new` gives where `old` gives `probability` (both Platt scalings of one logit)."""
    logit = math.log(probability / (1.0 - probability))
    raw = (logit - old.calibration_bias) / old.calibration_scale
    return 1.0 / (1.0 + math.exp(-(new.calibration_scale * raw + new.calibration_bias)))


def platt_record(
    fitted: LogisticModel,
    shipped: LogisticModel,
    rows: Sequence[RowSignals],
    thresholds: dict[str, float],
    support_of: SupportOf,
) -> dict[str, Any]:
    """What the Platt rows were and what they changed: counts per source and label, both scalings, the thresholds as
    chosen on the dev scale, and the log loss and ECE of P(supported) on those rows under each scaling."""
    counts: dict[str, dict[str, int]] = {}
    for item in rows:
        by_label = counts.setdefault(item.row.group or "", {})
        by_label[item.row.label] = by_label.get(item.row.label, 0) + 1
    figures: dict[str, dict[str, float | None]] = {}
    for name, model in (("dev_scaling", fitted), ("platt_rows_scaling", shipped)):
        pairs = [(support_of(item, model), item.row.label == "supported") for item in rows]
        scored = [(p, y) for p, y in pairs if p is not None]
        value = calibration([p for p, _ in scored], [y for _, y in scored]).ece.value
        loss = -sum(math.log(max(1e-12, p if y else 1.0 - p)) for p, y in scored) / max(1, len(scored))
        figures[name] = {"ece": None if value is None else round(value, 6), "log_loss": round(loss, 6)}
    return {
        "rows": len(rows),
        "by_source": dict(sorted(counts.items())),
        "dev_scaling": [fitted.calibration_scale, fitted.calibration_bias],
        "thresholds_on_dev_scale": {name: thresholds[name] for name in SUPPORT_THRESHOLDS},
        "on_platt_rows": figures,
    }
