"""The ONNX side of the embedder at inference time: the exported folder's tokenizer (the Rust `tokenizers` library,
or transformers' when only that can read it), an onnxruntime session, and pooling and normalisation in numpy, as
sentence-transformers does them. Exporting the folder is sentence_embedder.py's job.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from veriground.backends.model_files import MODELS_EXTRA_HINT
from veriground.backends.onnx_export import onnx_session
from veriground.errors import BackendError

LAYOUT_FILE = "layout.json"
TOKENIZER_DIR = "tokenizer"
# Pooling modes this module reproduces in numpy; sentence-transformers has a few more (weightedmean, lasttoken).
ONNX_POOLING_MODES = ("cls", "max", "mean", "mean_sqrt_len_tokens")


def normalise_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 length, as float32 (an all-zero row stays zero, as torch's normalize does)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, np.float32(1e-12))


def pool_tokens(token_embeddings: np.ndarray, attention_mask: np.ndarray, modes: Sequence[str]) -> np.ndarray:
    """Sentence vectors from (batch, tokens, hidden) token vectors, as sentence-transformers' Pooling module
    computes them for right-padded input; several modes are concatenated in order."""
    mask = attention_mask.astype(np.float32)[:, :, None]
    counts = np.maximum(mask.sum(axis=1), np.float32(1e-9))
    pooled = []
    for mode in modes:
        if mode == "cls":
            first = attention_mask.argmax(axis=1)
            pooled.append(token_embeddings[np.arange(len(first)), first])
        elif mode == "max":
            pooled.append(np.where(mask > 0, token_embeddings, -np.inf).max(axis=1))
        elif mode == "mean":
            pooled.append((token_embeddings * mask).sum(axis=1) / counts)
        elif mode == "mean_sqrt_len_tokens":
            pooled.append((token_embeddings * mask).sum(axis=1) / np.sqrt(counts))
        else:
            raise BackendError(f"pooling mode {mode!r} has no ONNX implementation; valid: {ONNX_POOLING_MODES}")
    return np.concatenate(pooled, axis=1).astype(np.float32)


class OnnxPipeline:
    """Tokenise -> onnxruntime -> pool -> normalise, for one exported folder."""

    def __init__(self, onnx_path: Path, *, device: str, threads: int | None) -> None:
        ort = import_onnx_stack()
        export_dir = onnx_path.parent
        layout = json.loads((export_dir / LAYOUT_FILE).read_text(encoding="utf-8"))
        self.max_seq_length: int = layout["max_seq_length"]
        self.do_lower_case: bool = layout["do_lower_case"]
        self.pooling_modes: list[str] = layout["pooling_modes"]
        self.input_names: list[str] = layout["input_names"]
        self.dimension: int = layout["dimension"]
        self.tokenizer = _load_tokenizer(export_dir / TOKENIZER_DIR, self.max_seq_length)
        # transformers' fast tokenizers set truncation and padding on every call, which fails ("Already borrowed")
        # when two threads call at once; the Rust one is configured once and then only read.
        self.thread_safe = isinstance(self.tokenizer, _RustTokenizer)
        self.session = onnx_session(onnx_path, providers=_providers(ort, device), threads=threads)

    def embed(self, texts: list[str]) -> np.ndarray:
        if self.do_lower_case:
            texts = [text.lower() for text in texts]
        encoded = self.tokenizer(texts)
        feeds = {name: encoded[name].astype(np.int64) for name in self.input_names}
        (token_embeddings,) = self.session.run(["token_embeddings"], feeds)
        return normalise_rows(pool_tokens(token_embeddings, encoded["attention_mask"], self.pooling_modes))


class _RustTokenizer:
    """The export's tokenizer.json read by the `tokenizers` library alone: the same Rust tokenizer that
    transformers' fast tokenizer wraps, without importing transformers (about 10 s of a first search on a busy
    2-core machine). Pads to the longest text and truncates at the model's max_seq_length, as the call
    `tokenizer(texts, padding=True, truncation=True, max_length=...)` does."""

    def __init__(self, tokenizer: Any) -> None:
        self._tokenizer = tokenizer

    def __call__(self, texts: list[str]) -> dict[str, np.ndarray]:
        encodings = self._tokenizer.encode_batch(texts)
        return {
            "input_ids": np.asarray([encoding.ids for encoding in encodings], dtype=np.int64),
            "attention_mask": np.asarray([encoding.attention_mask for encoding in encodings], dtype=np.int64),
            "token_type_ids": np.asarray([encoding.type_ids for encoding in encodings], dtype=np.int64),
        }


class _TransformersTokenizer:
    """A tokenizer folder without a usable tokenizer.json, through transformers."""

    def __init__(self, tokenizer: Any, max_length: int) -> None:
        self._tokenizer = tokenizer
        self._max_length = max_length

    def __call__(self, texts: list[str]) -> dict[str, np.ndarray]:
        return self._tokenizer(texts, padding=True, truncation=True, max_length=self._max_length, return_tensors="np")


def _load_tokenizer(folder: Path, max_length: int) -> _RustTokenizer | _TransformersTokenizer:
    try:
        import tokenizers

        settings = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
        tokenizer = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
        pad_token = settings["pad_token"]
        pad_token = pad_token["content"] if isinstance(pad_token, dict) else pad_token
        pad_id = tokenizer.token_to_id(pad_token)
        if pad_id is None or settings.get("padding_side", "right") != "right":
            raise ValueError("no right-padding token")
    except Exception:  # no tokenizers package, no tokenizer.json, an unreadable config: transformers decides
        from transformers import AutoTokenizer

        return _TransformersTokenizer(AutoTokenizer.from_pretrained(str(folder), local_files_only=True), max_length)
    tokenizer.enable_truncation(max_length=max_length)
    tokenizer.enable_padding(pad_id=pad_id, pad_token=pad_token)
    return _RustTokenizer(tokenizer)


def import_onnx_stack() -> Any:
    try:
        import onnxruntime
    except ImportError as err:
        raise BackendError(f"the ONNX runtime cannot be imported ({err}); {MODELS_EXTRA_HINT}") from None
    return onnxruntime


def _providers(ort: Any, device: str) -> list[str]:
    if device == "cpu":
        return ["CPUExecutionProvider"]
    if device.startswith("cuda") and "CUDAExecutionProvider" in ort.get_available_providers():
        return ["CUDAExecutionProvider", "CPUExecutionProvider"]
    raise BackendError(
        f"models.device {device!r} is not available to onnxruntime (providers: {ort.get_available_providers()}); "
        'set models.device = "cpu", or models.runtime = "torch"'
    )
