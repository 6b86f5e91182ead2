"""veriground's own NLI model, shipped inside the package (src/veriground/nli_model/): a MiniLM-L6 cross-encoder
fine-tuned by `veriground train nli`, as int8 ONNX weights run by onnxruntime on CPU, with no torch needed, and
tokenised by the `tokenizers` library alone (pair_tokenizer.py: the same ids as transformers, without its import).

Its folder holds veriground-nli.json: the weights' SHA-256 (checked at every load: a damaged or swapped file is
refused, never silently used) and the calibration temperature that divides the logits before the softmax (fitted
on held-out dev pairs, so P(entailment) >= 0.60 means what the verdict rules assume). One pair per onnxruntime run:
dynamic int8 quantisation scales activations over the whole batch, so a batch would let one pair's scores depend
on its neighbours and reports would stop being reproducible. Batching is also no faster on 2 CPU cores (8 or 32
pairs a run cost as much per pair as one; so did a graph rewritten to quantise each row on its own, which matched
one-pair runs bit for bit). What makes a note cheaper is scoring each distinct pair once: SequencePairNLIModel
keeps an NLIScoreCache (backends/nli_cache.py) keyed by the model and the pair; and running one pair per core,
each on one thread, which gives the same scores for 40 % less CPU than one run on two threads.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from veriground.backends.model_files import verify_sha256
from veriground.backends.onnx_export import inference_workers, onnx_session
from veriground.backends.pair_tokenizer import PairTokenizer
from veriground.backends.sequence_pair_nli import SequencePairNLIModel, read_label_map
from veriground.errors import BackendError

SHIPPED_NLI = "veriground-nli"
SHIPPED_NLI_NAME = "veriground-nli.v1"  # the name of a model whose manifest names none (v1 did not)
MANIFEST = "veriground-nli.json"
_REINSTALL = "reinstall veriground, or set models.nli = 'lexical'"


def shipped_model_folder() -> Path:
    return Path(str(resources.files("veriground") / "nli_model"))


def read_manifest(folder: Path) -> dict[str, Any]:
    path = folder / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BackendError(f"the shipped NLI model is missing ({path} not found); {_REINSTALL}") from None
    except (OSError, json.JSONDecodeError) as err:
        raise BackendError(f"cannot read {path}: {err}; {_REINSTALL}") from None
    missing = [key for key in ("model_id", "onnx_file", "sha256", "temperature", "labels") if key not in manifest]
    if missing:
        raise BackendError(f"{path} lacks {', '.join(missing)}; {_REINSTALL}")
    return manifest


class ShippedNLIModel(SequencePairNLIModel):
    """The shipped model (or any folder `veriground train nli` wrote as OUT/shipped)."""

    name = SHIPPED_NLI_NAME

    def __init__(self, folder: Path | None = None) -> None:
        folder = folder or shipped_model_folder()
        manifest = read_manifest(folder)
        onnx_path = folder / manifest["onnx_file"]
        verify_sha256(onnx_path, manifest["sha256"])
        try:
            import onnxruntime  # noqa: F401
        except ImportError as err:
            raise BackendError(
                f"the shipped NLI model needs onnxruntime, and {err.name} cannot be imported; {_REINSTALL}"
            ) from None
        try:
            tokenizer = PairTokenizer(folder)
            config = _model_config(folder)
        except BackendError as err:
            raise BackendError(f"cannot load the tokenizer of the shipped NLI model: {err}; {_REINSTALL}") from None
        self.name = str(manifest.get("name", SHIPPED_NLI_NAME))
        self.model_id = manifest["model_id"]
        self.checksum = manifest["sha256"]
        self.temperature = float(manifest["temperature"])
        if not self.temperature > 0:
            raise BackendError(f"{folder / MANIFEST}: temperature must be > 0, got {self.temperature}; {_REINSTALL}")
        # One thread per run and one run per core: a 128-token pair is too small to split across threads (2 threads
        # cost 8.5 ms of CPU a pair against 5 for 1), so the cores take different pairs. The scores are the same.
        self._session = onnx_session(onnx_path, providers=["CPUExecutionProvider"], threads=1, int8=True)
        inputs = {node.name for node in self._session.get_inputs()}
        names = [name for name in ("input_ids", "attention_mask", "token_type_ids") if name in inputs]
        label_map = read_label_map(dict(enumerate(manifest["labels"])))
        super().__init__(
            tokenizer, config, label_map=label_map, batch_size=1, input_names=names, workers=inference_workers()
        )

    def _logits(self, features: dict[str, np.ndarray]) -> np.ndarray:
        return self._session.run(["logits"], features)[0] / self.temperature


def _model_config(folder: Path) -> SimpleNamespace:
    """What SequencePairNLIModel reads of config.json (the position limit and the model type), without transformers."""
    path = folder / "config.json"
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise BackendError(f"cannot read {path}: {err}") from None
    return SimpleNamespace(
        max_position_embeddings=config.get("max_position_embeddings"), model_type=config.get("model_type", "")
    )
