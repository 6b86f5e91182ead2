"""Distillation (Hinton et al. 2015) for the NLI trainer: a student that keeps some of the start model's encoder layers
(a 4-layer MiniLM scores a pair in 2/3 of the 6-layer time), trained on (1 - w) x the label loss + w x T^2 x
KL(teacher || student) at temperature T, against the teacher's logits for each pair, computed once before training
(ship.score_logits). `TrainSettings.keep_layers`, `distil_weight` and `distil_temperature` choose them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from veriground.errors import BackendError


def keep_layers(model: Any, keep: Sequence[int]) -> None:
    """Drop every encoder layer of a BERT-style model but `keep` (in that order)."""
    import torch

    encoder = getattr(model.base_model, "encoder", None)
    layers = getattr(encoder, "layer", None)
    if encoder is None or layers is None or not keep or any(not 0 <= index < len(layers) for index in keep):
        count = "no" if layers is None else len(layers)
        raise BackendError(f"keep_layers {tuple(keep)} does not fit the start model ({count} encoder layers)")
    encoder.layer = torch.nn.ModuleList([layers[index] for index in keep])
    model.config.num_hidden_layers = len(keep)


def distillation_loss(torch: Any, logits: Any, teacher: Any, temperature: float) -> Any:
    """T^2 x KL(softmax(teacher / T) || softmax(student / T)), the batch mean (T^2 keeps its gradients on the scale
    of the label loss's whatever T)."""
    student = torch.log_softmax(logits.float() / temperature, dim=-1)
    target = torch.log_softmax(teacher.float() / temperature, dim=-1)
    kl = torch.nn.functional.kl_div(student, target, reduction="batchmean", log_target=True)
    return kl * temperature**2
