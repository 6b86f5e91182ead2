"""Sentence embedders over sentence-transformers models: texts -> unit-length float32 vectors, on torch or on
onnxruntime (fp32 or int8), plus `build_embedder`, which picks one by `models.runtime`.

Both runtimes load the same model folder through sentence-transformers; the ONNX one exports its transformer
once, keeps the model's own tokenizer and pooling settings beside it, and pools in numpy.
"""

from __future__ import annotations

import inspect
import json
import shutil
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from veriground.backends.model_files import (
    MODELS_EXTRA_HINT,
    file_sha256,
    resolve_model,
    use_offline_hub,
    weights_sha256,
)
from veriground.backends.model_options import onnx_options, torch_options
from veriground.backends.onnx_export import (
    export_module,
    inference_workers,
    onnx_cache_dir,
    quantise_onnx,
)
from veriground.backends.onnx_pipeline import (
    LAYOUT_FILE,
    ONNX_POOLING_MODES,
    TOKENIZER_DIR,
    OnnxPipeline,
    import_onnx_stack,
    normalise_rows,
)
from veriground.errors import BackendError

if TYPE_CHECKING:
    from veriground.backends.protocols import Embedder
    from veriground.config import ModelsConfig

FP32_FILE = "model.fp32.onnx"
INT8_FILE = "model.int8.onnx"
# An fp32 export must reproduce torch to float rounding; anything less means a mis-traced graph.
EXPORT_MIN_COSINE = 0.9999
# Different lengths, so the traced graph keeps its padding-mask path (a batch without padding can let
# transformers skip the mask at trace time, and the graph would then ignore padding forever).
PROBE_TEXTS = (
    "Velocity is the rate at which position changes with time.",
    "A heap keeps its smallest key at the root.",
    "Short one.",
)
# Checked after export in other shapes than the traced ones: a larger batch, and each text alone (no padding).
CHECK_TEXTS = (
    "The Treaty of Westphalia ended the Thirty Years' War in 1648, after five years of negotiation.",
    "Four colours suffice.",
    "Agencies publish open data in machine-readable formats.",
    "x",
)
# sentence-transformers < 6 saves one boolean per mode, in this concatenation order.
_LEGACY_POOLING_KEYS = {
    "pooling_mode_cls_token": "cls",
    "pooling_mode_max_tokens": "max",
    "pooling_mode_mean_tokens": "mean",
    "pooling_mode_mean_sqrt_len_tokens": "mean_sqrt_len_tokens",
    "pooling_mode_weightedmean_tokens": "weightedmean",
    "pooling_mode_lasttoken": "lasttoken",
}

Model = TypeVar("Model")


def import_sentence_transformers() -> Any:
    """The sentence_transformers module, or BackendError naming the install command."""
    try:
        import sentence_transformers
    except ImportError as err:
        raise BackendError(f"sentence-transformers cannot be imported ({err}); {MODELS_EXTRA_HINT}") from None
    return sentence_transformers


def load_hf_model(
    name: str, *, allow_download: bool, config_key: str, load: Callable[[str], Model]
) -> tuple[Model, str, Path]:
    """(model, model id, local folder): `name` resolved (offline unless downloads are allowed) and loaded by
    `load(folder or hub id)`. A hub id fetched during the load is looked up again in the local cache."""
    use_offline_hub(allow_download)
    model_id, folder = resolve_model(name, allow_download=allow_download)
    try:
        model = load(str(folder) if folder is not None else model_id)
    except BackendError:
        raise
    except Exception as err:  # transformers and sentence-transformers raise many unrelated types
        raise BackendError(
            f"cannot load model {name!r} ({folder or model_id}): {type(err).__name__}: {err}; "
            f"give a sentence-transformers model folder or hub id in {config_key}"
        ) from err
    if folder is None:
        model_id, folder = resolve_model(model_id, allow_download=False)
    if folder is None:  # resolve_model never answers None with downloads off; kept for the type checker
        raise BackendError(f"model {name!r} was loaded but is not in the local Hugging Face cache")
    return model, model_id, folder


def load_sentence_transformer(name: str, *, device: str, allow_download: bool) -> tuple[Any, str, Path]:
    """(SentenceTransformer in eval mode, model id, folder) for a model name, folder or hub id."""
    sentence_transformers = import_sentence_transformers()

    def load(ref: str) -> Any:
        return sentence_transformers.SentenceTransformer(ref, device=device, local_files_only=not allow_download)

    model, model_id, folder = load_hf_model(
        name, allow_download=allow_download, config_key="models.embedder", load=load
    )
    model.eval()
    return model, model_id, folder


def encode_in_batches(
    texts: Sequence[str],
    *,
    batch_size: int,
    dimension: int,
    backend: str,
    embed: Callable[[list[str]], np.ndarray],
    pool: ThreadPoolExecutor | None = None,
) -> np.ndarray:
    """Unit vectors for `texts` in their order, computed `batch_size` at a time, longest texts first (like
    sentence-transformers, so batches hold similar lengths and little padding); with a `pool`, several batches at
    once (each batch's vectors are what one `embed` call gives)."""
    texts = list(texts)
    result = np.zeros((len(texts), dimension), dtype=np.float32)
    order = sorted(range(len(texts)), key=lambda index: -len(texts[index]))
    batches = [order[start : start + batch_size] for start in range(0, len(order), batch_size)]

    def embed_batch(rows: list[int]) -> np.ndarray:
        try:
            return embed([texts[row] for row in rows])
        except BackendError:
            raise
        except Exception as err:  # out of memory, a bad tensor shape, a runtime fault
            raise BackendError(
                f"{backend} failed to encode a batch of {len(rows)} texts: {type(err).__name__}: {err}; "
                "a smaller models.batch_size may help"
            ) from err

    vectors = map(embed_batch, batches) if pool is None or len(batches) < 2 else pool.map(embed_batch, batches)
    for rows, batch_vectors in zip(batches, vectors, strict=True):
        result[rows] = normalise_rows(batch_vectors)
    return result


class SentenceTransformerEmbedder:
    """A sentence-transformers model on torch; "minilm" is the bundled, checksum-verified all-MiniLM-L6-v2."""

    name = "sentence-transformers.v1"

    def __init__(
        self, model: str = "minilm", *, device: str = "cpu", batch_size: int = 32, allow_download: bool = False
    ) -> None:
        self._model, self.model_id, folder = load_sentence_transformer(
            model, device=device, allow_download=allow_download
        )
        self.checksum: str | None = weights_sha256(folder)
        dimension = getattr(self._model, "get_embedding_dimension", None) or (
            self._model.get_sentence_embedding_dimension  # sentence-transformers < 6
        )
        self.dimension = int(dimension())
        self.batch_size = batch_size

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return encode_in_batches(
            texts, batch_size=self.batch_size, dimension=self.dimension, backend=self.name, embed=self._embed
        )

    def _embed(self, batch: list[str]) -> np.ndarray:
        return self._model.encode(
            batch, batch_size=len(batch), normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )


class OnnxEmbedder:
    """The same models on onnxruntime: the transformer exported once with torch.onnx (optionally int8
    per-channel quantised), cached under `cache_dir`/<sha256 of the source weights>/, reused when present.
    With int8 it encodes one text per run, whatever `batch_size` says (see below)."""

    name = "onnx-embedder.v1"

    def __init__(
        self,
        model: str = "minilm",
        *,
        int8: bool = True,
        device: str = "cpu",
        batch_size: int = 32,
        allow_download: bool = False,
        cache_dir: Path | None = None,
        threads: int | None = None,
    ) -> None:
        import_onnx_stack()
        use_offline_hub(allow_download)
        self.model_id, folder = resolve_model(model, allow_download=allow_download)
        if folder is None:  # a hub id to fetch first: loading it once puts it in the Hugging Face cache
            _, self.model_id, folder = load_sentence_transformer(model, device="cpu", allow_download=True)
        export_dir = onnx_cache_dir(cache_dir) / weights_sha256(folder)
        self.onnx_path = ensure_onnx_export(folder, export_dir, int8=int8)
        self.checksum: str | None = file_sha256(self.onnx_path)
        self.int8 = int8
        # int8 runs one text at a time (below). Unless told how many threads to use, each run gets one and the
        # cores take different texts: 200 passages/s against 95 for one run on two threads on an idle 2-core
        # machine, the same vectors.
        parallel = int8 and threads is None and device == "cpu"
        self._pipeline = OnnxPipeline(self.onnx_path, device=device, threads=1 if parallel else threads)
        workers = inference_workers() if parallel and self._pipeline.thread_safe else 1
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="veriground-embed") if workers > 1 else None
        self.dimension = self._pipeline.dimension
        # Dynamic int8 quantisation scales activations per tensor, i.e. over the whole batch and its padding,
        # so a batched text's vector would depend on its neighbours (cosine down to 0.987 on MiniLM). One text
        # per run keeps each vector a function of its text alone, and on 2 CPU threads it was not slower
        # (bench/bench_embeddings.py).
        self.batch_size = 1 if int8 else batch_size

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return encode_in_batches(
            texts,
            batch_size=self.batch_size,
            dimension=self.dimension,
            backend=self.name,
            embed=self._pipeline.embed,
            pool=self._pool,
        )


def ensure_onnx_export(source: Path, export_dir: Path, *, int8: bool) -> Path:
    """The .onnx file for `source` in `export_dir` (fp32 or int8), exported and quantised only if missing."""
    target = export_dir / (INT8_FILE if int8 else FP32_FILE)
    complete = (export_dir / LAYOUT_FILE).is_file() and (export_dir / TOKENIZER_DIR).is_dir()
    if complete and target.is_file():
        return target
    if not (complete and (export_dir / FP32_FILE).is_file()):
        export_onnx(source, export_dir)
    if int8:
        quantise_onnx(export_dir / FP32_FILE, target)
    return target


def export_onnx(source: Path, export_dir: Path) -> None:
    """Export the transformer of the sentence-transformers model in `source` to `export_dir`/model.fp32.onnx,
    with its tokenizer and pooling settings, checked against torch before the folder appears."""
    model, _, _ = load_sentence_transformer(str(source), device="cpu", allow_download=False)
    layout = _read_layout(model, source)
    export_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{export_dir.name}-", dir=export_dir.parent))
    try:
        transformer = model[0]
        transformer.tokenizer.save_pretrained(str(staging / TOKENIZER_DIR))
        (staging / LAYOUT_FILE).write_text(json.dumps(layout, indent=2, sort_keys=True), encoding="utf-8")
        _trace_to_onnx(transformer, layout, staging / FP32_FILE)
        _check_export(model, OnnxPipeline(staging / FP32_FILE, device="cpu", threads=None), source)
        if export_dir.exists():  # an incomplete earlier attempt
            shutil.rmtree(export_dir)
        staging.rename(export_dir)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _read_layout(model: Any, source: Path) -> dict[str, Any]:
    """What the ONNX pipeline must repeat of the loaded model: truncation, lower-casing, pooling, inputs."""
    kinds = [type(module).__name__ for module in model]
    if kinds[:2] != ["Transformer", "Pooling"] or any(kind != "Normalize" for kind in kinds[2:]):
        raise BackendError(
            f"model {source} is {' -> '.join(kinds)}; the ONNX embedder runs Transformer -> Pooling (-> Normalize) "
            'models only; set models.runtime = "torch" for this one'
        )
    transformer, pooling = model[0], model[1]
    modes = _pooling_modes(pooling.get_config_dict())
    unsupported = [mode for mode in modes if mode not in ONNX_POOLING_MODES]
    if unsupported:
        raise BackendError(
            f"model {source} pools with {unsupported}; the ONNX embedder supports {ONNX_POOLING_MODES}; "
            'set models.runtime = "torch" for this one'
        )
    accepted = inspect.signature(transformer.auto_model.forward).parameters
    encoded = transformer.tokenizer(["probe"])
    return {
        "max_seq_length": int(model.max_seq_length),
        "do_lower_case": bool(getattr(transformer, "do_lower_case", False)),
        "pooling_modes": list(modes),
        "input_names": [name for name in encoded if name in accepted],
        "dimension": int(transformer.auto_model.config.hidden_size) * len(modes),
    }


def _pooling_modes(config: dict[str, Any]) -> tuple[str, ...]:
    mode = config.get("pooling_mode")
    if isinstance(mode, str):
        return (mode,)
    if mode:
        return tuple(mode)
    legacy = tuple(name for key, name in _LEGACY_POOLING_KEYS.items() if config.get(key))
    return legacy or ("mean",)


def _trace_to_onnx(transformer: Any, layout: dict[str, Any], path: Path) -> None:
    import torch

    names = layout["input_names"]
    encoded = transformer.tokenizer(list(PROBE_TEXTS), padding=True, return_tensors="pt")

    class TokenEmbeddings(torch.nn.Module):
        def __init__(self, network: torch.nn.Module) -> None:
            super().__init__()
            self.network = network

        def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
            return self.network(**dict(zip(names, inputs, strict=True))).last_hidden_state

    export_module(
        TokenEmbeddings(transformer.auto_model).eval(),
        {name: encoded[name] for name in names},
        output_name="token_embeddings",
        output_axes={0: "batch", 1: "sequence"},
        path=path,
    )


def _check_export(model: Any, pipeline: OnnxPipeline, source: Path) -> None:
    expected = model.encode(list(CHECK_TEXTS), normalize_embeddings=True, convert_to_numpy=True)
    batched = pipeline.embed(list(CHECK_TEXTS))
    alone = np.concatenate([pipeline.embed([text]) for text in CHECK_TEXTS])
    cosines = np.concatenate([(batched * expected).sum(axis=1), (alone * expected).sum(axis=1)])
    if float(cosines.min()) < EXPORT_MIN_COSINE:
        raise BackendError(
            f"the ONNX export of {source} disagrees with torch (cosine {float(cosines.min()):.6f} < "
            f'{EXPORT_MIN_COSINE}); set models.runtime = "torch" for this model'
        )


def build_embedder(models: ModelsConfig) -> Embedder:
    """The embedder that `models` names, on `models.runtime`; unset, onnx on CPU and torch on a GPU
    (models.quantize applies to the onnx runtime)."""
    if models.runtime == "onnx" or (models.runtime is None and models.device == "cpu"):
        return OnnxEmbedder(models.embedder, int8=models.quantize, device=models.device, **onnx_options(models))
    return SentenceTransformerEmbedder(models.embedder, **torch_options(models))
