"""One torch.onnx export and one int8 quantisation for every ONNX backend (embedder, NLI), each written
atomically so a crash never leaves a half file that a later run would load.

Exports use the TorchScript exporter (dynamo=False): the torch.export-based one needs onnxscript, which the
`models` extra does not install. Opset 17 is the first with a fused LayerNormalization; onnxruntime >= 1.14
runs it on every CPU.
"""

from __future__ import annotations

import os
import tempfile
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from veriground.errors import BackendError

ONNX_OPSET = 17


def default_onnx_cache_dir() -> Path:
    """$XDG_CACHE_HOME/veriground/onnx, or ~/.cache/veriground/onnx."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "veriground" / "onnx"


def onnx_cache_dir(configured: Path | None) -> Path:
    """models.onnx_cache_dir when set (with ~ expanded), else the default."""
    return configured.expanduser() if configured is not None else default_onnx_cache_dir()


def export_module(
    module: Any,
    sample: Mapping[str, Any],
    *,
    output_name: str,
    output_axes: Mapping[int, str],
    path: Path,
) -> None:
    """Export `module` (called with the tensors of `sample` positionally, in their order) to `path`, with dynamic
    batch and sequence axes on every input. The sample should hold a batch of texts of different lengths, so
    the traced graph keeps its padding-mask path."""
    import torch

    names = list(sample)

    def export(temporary: str) -> None:
        # The TorchScript exporter's deprecation notice and tracer warnings are expected, not the user's concern;
        # each caller checks the exported graph against torch.
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                module,
                tuple(sample[name] for name in names),
                temporary,
                input_names=names,
                output_names=[output_name],
                dynamic_axes={**{name: {0: "batch", 1: "sequence"} for name in names}, output_name: dict(output_axes)},
                opset_version=ONNX_OPSET,
                do_constant_folding=True,
                dynamo=False,
            )

    write_atomically(path, export, "torch.onnx export")


def quantise_onnx(fp32_path: Path, int8_path: Path, *, per_channel: bool = True) -> None:
    """Dynamic int8 quantisation of the weights (activations are quantised at run time), by default one scale per
    output channel. One scale per tensor (per_channel=False, kept for comparison) moves MiniLM's vectors about 7x
    further from torch's (mean cosine 0.967 against 0.995 in tests/test_embedder_reranker.py)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.quantization.shape_inference import quant_pre_process

    def quantise(temporary: str) -> None:
        prepared = Path(temporary).with_suffix(".prepared")
        try:
            # onnxruntime's recommended pre-pass (shape inference, graph clean-up); without it quantize_dynamic
            # calls logging.warning, which installs a handler on the application's root logger. Symbolic shape
            # inference gives up on BERT's dynamic attention shapes, so only ONNX's own inference runs.
            quant_pre_process(str(fp32_path), str(prepared), skip_symbolic_shape=True)
            quantize_dynamic(str(prepared), temporary, per_channel=per_channel, weight_type=QuantType.QInt8)
        finally:
            prepared.unlink(missing_ok=True)

    write_atomically(int8_path, quantise, "int8 quantisation")


def write_atomically(path: Path, write: Callable[[str], None], what: str) -> None:
    """`write` into a temporary file beside `path`, then rename it over `path`."""
    temporary: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
        os.close(handle)
        write(temporary)
        os.replace(temporary, path)
        temporary = None
    except OSError as err:
        raise BackendError(f"cannot write {path}: {err}; set models.onnx_cache_dir to a writable folder") from None
    except Exception as err:  # exporters raise many types; the model stays usable on the torch runtime
        raise BackendError(
            f'{what} of {path} failed: {type(err).__name__}: {err}; set models.runtime = "torch"'
        ) from None
    finally:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)


def usable_cores() -> int:
    """The CPU cores this process may run on: its affinity mask on Linux, else every core (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


def inference_workers() -> int:
    """How many single-threaded runs to keep going at once: the CPU cores this process may use (at most 8)."""
    return min(8, usable_cores())


# onnxruntime's SkipLayerNormalization kernel is slow behind dynamically quantised matmuls: on the shipped int8 NLI
# (one thread, MultiNLI pairs of ~50 tokens) each fused node costs ~100 us against ~20 us for the Add and
# LayerNormalization it replaces, 3.80 against 3.26 ms a pair in all (bench/bench_nli.py). Unfused, the scores stay
# as close to the fp32 model's (mean gap 0.034, argmax agreement 95.3 % on 300 pairs either way); fp32 models are
# unaffected (7.84 against 7.87 ms), so only int8 sessions leave it out.
INT8_DISABLED_OPTIMIZERS = ("SkipLayerNormFusion",)


def onnx_session(onnx_path: Path, *, providers: Sequence[str], threads: int | None = None, int8: bool = False) -> Any:
    """An onnxruntime InferenceSession, or BackendError saying how to recover (delete the file to re-export).
    `int8`: the model's matmuls are dynamically quantised (INT8_DISABLED_OPTIMIZERS says what that changes)."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    # Idle worker threads sleep instead of spinning: on a shared 2-core machine spinning threads steal the cores
    # the other thread needs (the shipped NLI went from 20 to 10 ms a pair there, with the same scores).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if threads is not None:
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
    try:
        return onnxruntime.InferenceSession(
            str(onnx_path),
            options,
            providers=list(providers),
            disabled_optimizers=list(INT8_DISABLED_OPTIMIZERS) if int8 else None,
        )
    except Exception as err:  # onnxruntime raises its own Fail/InvalidGraph types
        raise BackendError(f"onnxruntime cannot load {onnx_path}: {err}; delete the file to re-export it") from None
