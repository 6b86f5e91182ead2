"""Trained NLI: (premise, hypothesis) pairs → entail / neutral / contradict probabilities from a Hugging Face
sequence-classification model, run by torch (TransformerNLIModel) or by onnxruntime (OnnxNLIModel).

Loading (offline by default, checksummed), the two runtimes and the ONNX export live here; label mapping,
windowing and batching, shared with the shipped model, live in sequence_pair_nli.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from veriground.backends.lexical_nli import LexicalNLIModel
from veriground.backends.model_files import (
    MODELS_EXTRA_HINT,
    file_sha256,
    resolve_model,
    use_offline_hub,
    weights_sha256,
)
from veriground.backends.model_options import onnx_options, torch_options
from veriground.backends.onnx_export import ONNX_OPSET, export_module, onnx_cache_dir, onnx_session, quantise_onnx
from veriground.backends.protocols import NLIModel
from veriground.backends.sequence_pair_nli import SequencePairNLIModel, read_label_map
from veriground.errors import BackendError, ConfigError

if TYPE_CHECKING:
    from veriground.config import ModelsConfig

TRANSFORMER_NLI_NAME = "transformers-nli.v1"
ONNX_NLI_NAME = "onnx-nli.v1"
LEXICAL_MODEL_NAME = "lexical"
_TOKENIZER_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


class TransformerNLIModel(SequencePairNLIModel):
    """A sequence-classification NLI model (e.g. an MNLI cross-encoder) run by torch in eval mode."""

    name = TRANSFORMER_NLI_NAME

    def __init__(
        self,
        model: str,
        *,
        device: str = "cpu",
        batch_size: int = 32,
        allow_download: bool = False,
        label_order: Sequence[str] | None = None,
    ) -> None:
        torch, transformers = _import_models_extra()
        self.model_id, source, folder = _locate(model, allow_download)
        tokenizer, config = _load_tokenizer_and_config(transformers, source, allow_download, self.model_id)
        self._model = _load_classifier(transformers, source, allow_download, self.model_id)
        try:
            self._device = torch.device(device)
            self._model.to(self._device)
        except (RuntimeError, ValueError, AssertionError) as err:
            raise BackendError(f"models.device {device!r} cannot run {self.model_id}: {err}; try 'cpu'") from None
        self._model.eval()
        self._torch = torch
        folder = folder or _downloaded_folder(model)
        self.checksum = weights_sha256(folder) if folder else None
        label_map = read_label_map(config.id2label, label_order)
        super().__init__(
            tokenizer, config, label_map=label_map, batch_size=batch_size, input_names=_input_names(tokenizer)
        )

    def _logits(self, features: dict[str, np.ndarray]) -> np.ndarray:
        torch = self._torch
        with torch.inference_mode():
            inputs = {key: torch.from_numpy(value).to(self._device) for key, value in features.items()}
            return self._model(**inputs).logits.float().cpu().numpy()


class OnnxNLIModel(SequencePairNLIModel):
    """The same model exported once to ONNX (optionally int8 weights) and run by onnxruntime on CPU.

    The export is cached under `cache_dir` (default ~/.cache/veriground/onnx, or $XDG_CACHE_HOME) in a folder
    named by the source weights' SHA-256, precision and opset, so a rerun loads it instead of exporting. Not
    inside the model folder: weights_sha256 hashes every *.onnx there, so the source checksum would change.
    With int8 weights it scores one window per run, whatever `batch_size` says: dynamic quantisation scales
    activations over the whole batch, so a pair's scores would otherwise depend on the pairs batched with it.
    """

    name = ONNX_NLI_NAME

    def __init__(
        self,
        model: str,
        *,
        batch_size: int = 32,
        allow_download: bool = False,
        quantize: bool = False,
        cache_dir: Path | None = None,
        label_order: Sequence[str] | None = None,
    ) -> None:
        torch, transformers = _import_models_extra()
        try:
            import onnxruntime  # noqa: F401  (onnx_session imports it; fail here with the install hint)
        except ImportError:
            raise BackendError(f"the onnx runtime needs onnxruntime; {MODELS_EXTRA_HINT}") from None
        self.model_id, source, folder = _locate(model, allow_download)
        tokenizer, config = _load_tokenizer_and_config(transformers, source, allow_download, self.model_id)
        input_names = _input_names(tokenizer)
        folder = folder or _downloaded_folder(model)
        if folder is None:
            raise BackendError(f"cannot find the downloaded files of {model!r} in the Hugging Face cache to export")
        source_sha = weights_sha256(folder)
        root = onnx_cache_dir(cache_dir)
        fp32_path = root / f"{source_sha}-fp32-opset{ONNX_OPSET}" / "model.onnx"
        if not fp32_path.is_file():
            classifier = _load_classifier(transformers, source, allow_download, self.model_id, eager=True)
            _export_classifier(torch, classifier, tokenizer, input_names, fp32_path)
        self.onnx_path = fp32_path
        if quantize:
            self.onnx_path = root / f"{source_sha}-int8-opset{ONNX_OPSET}" / "model.onnx"
            if not self.onnx_path.is_file():
                quantise_onnx(fp32_path, self.onnx_path)
        self.quantized = quantize
        self.checksum = file_sha256(self.onnx_path)
        self._session = onnx_session(self.onnx_path, providers=["CPUExecutionProvider"], int8=quantize)
        session_inputs = {node.name for node in self._session.get_inputs()}
        label_map = read_label_map(config.id2label, label_order)
        super().__init__(
            tokenizer,
            config,
            label_map=label_map,
            batch_size=1 if quantize else batch_size,
            input_names=[name for name in input_names if name in session_inputs],
        )

    def _logits(self, features: dict[str, np.ndarray]) -> np.ndarray:
        return self._session.run(["logits"], features)[0]


def build_nli_model(models: ModelsConfig) -> NLIModel:
    """The NLI backend that models.nli and models.runtime name: "lexical", or a model folder / hub id."""
    if models.nli == LEXICAL_MODEL_NAME:
        return LexicalNLIModel()
    if models.runtime == "onnx":
        if models.device != "cpu":
            raise ConfigError(
                f"models.device = {models.device!r} needs models.runtime = 'torch'; the onnx runtime runs on CPU "
                "(set models.device = 'cpu')"
            )
        return OnnxNLIModel(models.nli, quantize=models.quantize, **onnx_options(models))
    return TransformerNLIModel(models.nli, **torch_options(models))


def _import_models_extra() -> tuple[Any, Any]:
    try:
        import torch
        import transformers
    except ImportError as err:
        raise BackendError(
            f"a transformer NLI model needs torch and transformers, and {err.name or err} cannot be imported; "
            f"{MODELS_EXTRA_HINT}"
        ) from None
    return torch, transformers


def _locate(model: str, allow_download: bool) -> tuple[str, str, Path | None]:
    """(model id, what to pass to from_pretrained, local folder or None when the library will download it)."""
    model_id, folder = resolve_model(model, allow_download=allow_download)
    use_offline_hub(allow_download)
    return model_id, str(folder) if folder is not None else model, folder


def _downloaded_folder(model: str) -> Path | None:
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(model, local_files_only=True))
    except Exception:  # any of several huggingface_hub "not cached" errors: no checksum then
        return None


def _load_tokenizer_and_config(transformers: Any, source: str, allow_download: bool, model_id: str) -> tuple[Any, Any]:
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(source, local_files_only=not allow_download)
        config = transformers.AutoConfig.from_pretrained(source, local_files_only=not allow_download)
    except Exception as err:  # OSError, ValueError, KeyError...: whatever a broken folder provokes
        raise BackendError(f"cannot load the tokenizer and config of {model_id}: {err}") from None
    return tokenizer, config


def _load_classifier(transformers: Any, source: str, allow_download: bool, model_id: str, eager: bool = False) -> Any:
    import torch

    # eager attention for export: the traced graph then holds plain MatMul/Softmax rather than an SDPA kernel.
    options = {"attn_implementation": "eager"} if eager else {}
    try:
        model = transformers.AutoModelForSequenceClassification.from_pretrained(
            source, local_files_only=not allow_download, dtype=torch.float32, **options
        )
    except Exception as err:
        raise BackendError(f"cannot load {model_id} as a sequence-classification model: {err}") from None
    return model.eval()


def _input_names(tokenizer: Any) -> list[str]:
    return [name for name in _TOKENIZER_INPUTS if name in tokenizer.model_input_names]


def _logits_module(torch: Any, model: Any, input_names: Sequence[str]) -> Any:
    """The classifier as a module of positional tensors that returns only the logits, for tracing."""

    class LogitsOnly(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *inputs: Any) -> Any:
            return self.model(**dict(zip(input_names, inputs, strict=True))).logits

    return LogitsOnly().eval()


def _export_classifier(torch: Any, model: Any, tokenizer: Any, input_names: Sequence[str], path: Path) -> None:
    # Two pairs of different lengths, so the traced graph sees padding and a batch above one.
    sample = tokenizer(
        ["A passage of evidence with several words.", "Short."],
        ["A claim.", "Another claim to check."],
        padding=True,
        return_tensors="pt",
    )
    export_module(
        _logits_module(torch, model, input_names),
        {name: sample[name] for name in input_names},
        output_name="logits",
        output_axes={0: "batch"},
        path=path,
    )


def export_classifier_onnx(folder: Path, path: Path) -> None:
    """Export the sequence-classification model saved in `folder` to an fp32 ONNX file at `path`."""
    torch, transformers = _import_models_extra()
    tokenizer, _ = _load_tokenizer_and_config(transformers, str(folder), False, str(folder))
    classifier = _load_classifier(transformers, str(folder), False, str(folder), eager=True)
    _export_classifier(torch, classifier, tokenizer, _input_names(tokenizer), path)
