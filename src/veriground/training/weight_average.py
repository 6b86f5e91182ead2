"""A moving average of a model's weights (Polyak averaging) for the NLI trainer: updated after every optimiser step,
swapped into the model to score, save or ship it, and swapped out again to go on training."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class WeightAverage:
    """An exponential moving average of a model's floating-point parameters and buffers, on the model's device. Each
    tensor is held once, however many names it has (tied weights are one parameter)."""

    def __init__(self, model: Any, decay: float) -> None:
        self.decay = decay
        self.values = [tensor.detach().clone() for tensor in _averaged_tensors(model)]

    def update(self, model: Any, step: int) -> None:
        import torch

        decay = min(self.decay, (1 + step) / (10 + step))
        with torch.no_grad():
            for value, tensor in zip(self.values, _averaged_tensors(model), strict=True):
                value.lerp_(tensor.detach(), 1.0 - decay)

    def swap(self, model: Any) -> None:
        """Exchange the model's weights with the average's (twice restores both)."""
        import torch

        with torch.no_grad():
            for index, tensor in enumerate(_averaged_tensors(model)):
                held = tensor.detach().clone()
                tensor.copy_(self.values[index])
                self.values[index] = held

    def state(self) -> list[Any]:
        return [value.detach().cpu() for value in self.values]

    def load(self, values: list[Any] | None) -> None:
        if values is not None:
            self.values = [saved.to(value.device) for saved, value in zip(values, self.values, strict=True)]


def _averaged_tensors(model: Any) -> list[Any]:
    """The model's floating-point parameters and buffers, each once (named_* leave out a tied duplicate)."""
    tensors = [*model.parameters(), *model.buffers()]
    return [tensor for tensor in tensors if tensor.is_floating_point()]


@contextmanager
def averaged(model: Any, average: WeightAverage | None) -> Iterator[None]:
    """Inside, the model holds the averaged weights; its own ones again after."""
    if average is not None:
        average.swap(model)
    try:
        yield
    finally:
        if average is not None:
            average.swap(model)
