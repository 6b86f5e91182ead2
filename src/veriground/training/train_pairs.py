"""One NLI training pair and the label set: the record the training mix, the synthetic pairs, the trainer and
the calibration share (its own module, so the mix and the synthetic pairs do not import each other)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

TrainLabel = Literal["entailment", "neutral", "contradiction", "not_entailment"]
TRAIN_LABELS: tuple[TrainLabel, ...] = ("entailment", "neutral", "contradiction", "not_entailment")
# The model's logits are the first three, in this order; not_entailment (3) is a training target only.
LABEL_INDEX = {label: index for index, label in enumerate(TRAIN_LABELS)}


@dataclass(frozen=True)
class TrainPair:
    premise: str
    hypothesis: str
    label: TrainLabel
    source: str  # dataset name, or synthetic:<edit>
