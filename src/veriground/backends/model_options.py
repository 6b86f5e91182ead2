"""ModelsConfig -> the keyword arguments a local model backend's constructor takes, one mapping per runtime, so the
torch and ONNX factories (sentence_embedder.py, transformer_nli.py) read the config keys in one place."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:
    from veriground.config import ModelsConfig


class TorchOptions(TypedDict):
    device: str
    batch_size: int
    allow_download: bool


class OnnxOptions(TypedDict):
    """Each ONNX backend takes models.quantize under its own name, so it is not here."""

    batch_size: int
    allow_download: bool
    cache_dir: Path | None


def torch_options(models: ModelsConfig) -> TorchOptions:
    return TorchOptions(device=models.device, batch_size=models.batch_size, allow_download=models.allow_download)


def onnx_options(models: ModelsConfig) -> OnnxOptions:
    return OnnxOptions(
        batch_size=models.batch_size, allow_download=models.allow_download, cache_dir=models.onnx_cache_dir
    )
