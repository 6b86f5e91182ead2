"""Temperature scaling of the trained NLI model (Guo et al. 2017): one T > 0 divides the logits, fitted on the
held-out dev pairs to minimise the same loss the model was trained on, so that P(entailment) >= 0.60 and
P(contradiction) >= 0.30 in the decision tree mean what they say.

ECE is reported two ways, before and after: top-label ECE of the 3-way prediction on 3-way dev pairs, and ECE of
P(entailment) against "entailed" on every dev pair (what the verdict rules read).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from veriground.evaluation.metrics import expected_calibration_error
from veriground.training.train_pairs import LABEL_INDEX, TrainPair

_T_RANGE = (0.25, 8.0)


@dataclass(frozen=True)
class CalibrationReport:
    temperature: float
    dev_pairs: int
    nll_before: float
    nll_after: float
    ece_top_label_before: float | None
    ece_top_label_after: float | None
    ece_entailment_before: float | None
    ece_entailment_after: float | None
    accuracy_3way: float | None

    def to_json(self) -> dict[str, Any]:
        return {key: (round(value, 6) if isinstance(value, float) else value) for key, value in asdict(self).items()}


def fit_temperature(logits: np.ndarray, pairs: Sequence[TrainPair]) -> CalibrationReport:
    """The T minimising the mixed NLL on (logits, labels) by golden-section search over log T, and ECE both ways."""
    targets = np.array([LABEL_INDEX[pair.label] for pair in pairs])
    lo, hi = math.log(_T_RANGE[0]), math.log(_T_RANGE[1])
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(60):
        a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        if mixed_nll(logits / math.exp(a), targets) <= mixed_nll(logits / math.exp(b), targets):
            hi = b
        else:
            lo = a
    temperature = round(math.exp((lo + hi) / 2), 4)
    before, after = softmax(logits), softmax(logits / temperature)
    three_way = targets < 3
    accuracy = float((before[three_way].argmax(axis=1) == targets[three_way]).mean()) if three_way.any() else None
    return CalibrationReport(
        temperature=temperature,
        dev_pairs=len(pairs),
        nll_before=mixed_nll(logits, targets),
        nll_after=mixed_nll(logits / temperature, targets),
        ece_top_label_before=_top_label_ece(before, targets),
        ece_top_label_after=_top_label_ece(after, targets),
        ece_entailment_before=_entailment_ece(before, targets),
        ece_entailment_after=_entailment_ece(after, targets),
        accuracy_3way=accuracy,
    )


def softmax(logits: np.ndarray) -> np.ndarray:
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


def mixed_nll(logits: np.ndarray, targets: np.ndarray) -> float:
    """Mean -log P(label), with P(neutral) + P(contradiction) for a not_entailment (3) target."""
    probs = softmax(np.asarray(logits, dtype=np.float64))
    picked = np.where(targets < 3, probs[np.arange(len(targets)), np.minimum(targets, 2)], probs[:, 1] + probs[:, 2])
    return float(-np.log(np.clip(picked, 1e-12, 1.0)).mean())


def _top_label_ece(probs: np.ndarray, targets: np.ndarray) -> float | None:
    rows = targets < 3
    if not rows.any():
        return None
    confidence = probs[rows].max(axis=1)
    correct = probs[rows].argmax(axis=1) == targets[rows]
    return expected_calibration_error([float(c) for c in confidence], [bool(c) for c in correct]).value


def _entailment_ece(probs: np.ndarray, targets: np.ndarray) -> float | None:
    if not len(targets):
        return None
    return expected_calibration_error([float(p) for p in probs[:, 0]], [bool(t == 0) for t in targets]).value
