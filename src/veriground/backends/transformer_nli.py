"""Trained NLI: (premise, hypothesis) pairs → entail / neutral / contradict probabilities from a Hugging Face
sequence-classification model, run by torch (TransformerNLIModel) or by onnxruntime (OnnxNLIModel).

Both read the label order from the model's config (any order, several spellings), batch the pairs, and never
truncate silently: a pair longer than the model reads is scored on overlapping windows of the premise, and a
claim too long to leave room for evidence raises BackendError, which the NLI signal reports as unavailable.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
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
from veriground.backends.onnx_export import ONNX_OPSET, export_module, onnx_cache_dir, onnx_session, quantise_onnx
from veriground.backends.protocols import NLIModel
from veriground.errors import BackendError, ConfigError
from veriground.schema import NLIScores

if TYPE_CHECKING:
    from veriground.config import ModelsConfig

TRANSFORMER_NLI_NAME = "transformers-nli.v1"
ONNX_NLI_NAME = "onnx-nli.v1"
LEXICAL_MODEL_NAME = "lexical"
# A premise window shorter than this cannot hold a sentence of evidence (~25 words), so a claim that leaves
# less room than this is refused rather than judged on scraps.
MIN_PREMISE_TOKENS = 32
# These models number positions from padding_idx + 1 = 2, so two of max_position_embeddings are never usable.
_POSITION_OFFSETS = {"roberta": 2, "xlm-roberta": 2, "camembert": 2, "longformer": 2, "mpnet": 2, "data2vec-text": 2}
_TOKENIZER_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_DECIMALS = 6

_ENTAIL, _NEUTRAL, _CONTRADICT, _NOT_ENTAIL = "entailment", "neutral", "contradiction", "not_entailment"
# Label spellings seen on NLI and fact-checking models (MNLI, ANLI, FEVER, 2-way RTE-style), after lower-casing
# and turning spaces and hyphens into underscores.
_LABEL_ROLES = {
    "entailment": _ENTAIL,
    "entail": _ENTAIL,
    "entails": _ENTAIL,
    "entailed": _ENTAIL,
    "supported": _ENTAIL,
    "supports": _ENTAIL,
    "neutral": _NEUTRAL,
    "not_enough_info": _NEUTRAL,
    "contradiction": _CONTRADICT,
    "contradict": _CONTRADICT,
    "contradicts": _CONTRADICT,
    "contradictory": _CONTRADICT,
    "refutes": _CONTRADICT,
    "refuted": _CONTRADICT,
    "not_entailment": _NOT_ENTAIL,
    "non_entailment": _NOT_ENTAIL,
    "not_entailed": _NOT_ENTAIL,
    "unsupported": _NOT_ENTAIL,
    "not_supported": _NOT_ENTAIL,
}
_GENERIC_LABEL = re.compile(r"label_\d+")
_EXPECTED_LABELS = (
    "entailment, neutral and contradiction in any order (or entailment and not_entailment, "
    "or supported and unsupported)"
)


@dataclass(frozen=True)
class NLILabelMap:
    """Which logit is entailment and which contradiction; every other logit is neutral mass."""

    entail_index: int
    contradict_index: int | None  # None for a 2-label model: its non-entailment mass counts as neutral


def read_label_map(id2label: dict[int, str], label_order: Sequence[str] | None = None) -> NLILabelMap:
    """The label map of a model's config.id2label, or of `label_order` (names in logit order) when given."""
    names = list(label_order) if label_order is not None else [id2label[i] for i in sorted(id2label)]
    if label_order is not None and len(names) != len(id2label):
        raise BackendError(f"label_order names {len(names)} labels {names} but the model has {len(id2label)} logits")
    keys = [re.sub(r"[\s-]+", "_", str(name).strip().lower()) for name in names]
    if any(_GENERIC_LABEL.fullmatch(key) for key in keys):
        raise BackendError(
            f"the model's labels {names} are generic, so which one is entailment cannot be told; expected "
            f"{_EXPECTED_LABELS}; set id2label in its config.json or pass label_order"
        )
    roles = [_LABEL_ROLES.get(key, "unknown") for key in keys]
    if sorted(roles) == sorted([_ENTAIL, _NEUTRAL, _CONTRADICT]):
        return NLILabelMap(entail_index=roles.index(_ENTAIL), contradict_index=roles.index(_CONTRADICT))
    if sorted(roles) == sorted([_ENTAIL, _NOT_ENTAIL]):
        return NLILabelMap(entail_index=roles.index(_ENTAIL), contradict_index=None)
    raise BackendError(
        f"the model's labels {names} are not NLI labels; expected {_EXPECTED_LABELS}; "
        "set id2label in its config.json or pass label_order"
    )


def finish_scores(entail: float, contradict: float) -> NLIScores:
    """Clamped to [0, 1], rounded to 6 places, with neutral = 1 - entail - contradict; when entail and contradict
    together exceed 1 (two windows of one premise, one entailing and one contradicting) both are scaled down to
    sum to 1 and neutral is 0."""
    entail, contradict = min(1.0, max(0.0, entail)), min(1.0, max(0.0, contradict))
    if entail + contradict > 1.0:
        entail, contradict = entail / (entail + contradict), contradict / (entail + contradict)
    entail, contradict = round(entail, _DECIMALS), round(contradict, _DECIMALS)
    if entail + contradict > 1.0:  # rounding both up can overshoot by 1e-6
        contradict = round(1.0 - entail, _DECIMALS)
    neutral = round(max(0.0, 1.0 - entail - contradict), _DECIMALS)
    return NLIScores(entail=entail, neutral=neutral, contradict=contradict)


class SequencePairNLIModel:
    """Shared tokenising, windowing, batching and label mapping; a runtime overrides `_logits`.

    A pair longer than `max_length` tokens is split the way extractive QA splits a context: the premise into
    windows that leave room for the whole hypothesis, each overlapping the one before by half its length. The
    pair is as entailing as its most entailing window and as contradicting as its most contradicting one
    (evidence anywhere in the passage counts), and neutral is what is left (see finish_scores).
    """

    name: str
    model_id: str
    checksum: str | None

    def __init__(
        self, tokenizer: Any, config: Any, *, label_map: NLILabelMap, batch_size: int, input_names: Sequence[str]
    ) -> None:
        if not getattr(tokenizer, "is_fast", False):
            raise BackendError(
                f"model {self.model_id!r} has no fast tokenizer (tokenizer.json), which premise windows need; "
                "save the model with a tokenizers-backed tokenizer"
            )
        if batch_size < 1:
            raise ConfigError(f"models.batch_size must be 1..4096, got {batch_size}")
        self.tokenizer = tokenizer
        self.label_map = label_map
        self.batch_size = batch_size
        self.input_names = tuple(input_names)
        self.max_length = _max_length(tokenizer, config, self.model_id)
        self._special_tokens = tokenizer.num_special_tokens_to_add(pair=True)

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        if not pairs:
            return []
        windows, owners = self._encode_windows(pairs)
        entail = np.zeros(len(windows))
        contradict = np.zeros(len(windows))
        # Shortest first, so a batch pads to lengths close to its own; the order is a function of the input alone.
        order = sorted(range(len(windows)), key=lambda row: len(windows[row]["input_ids"]))
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            padded = self.tokenizer.pad([windows[row] for row in rows], return_tensors="np")
            features = {key: np.asarray(padded[key], dtype=np.int64) for key in self.input_names}
            probs = _softmax(np.asarray(self._logits(features), dtype=np.float64))
            entail[rows] = probs[:, self.label_map.entail_index]
            if self.label_map.contradict_index is not None:
                contradict[rows] = probs[:, self.label_map.contradict_index]
        best_entail = np.zeros(len(pairs))
        best_contradict = np.zeros(len(pairs))
        np.maximum.at(best_entail, owners, entail)
        np.maximum.at(best_contradict, owners, contradict)
        return [finish_scores(float(e), float(c)) for e, c in zip(best_entail, best_contradict, strict=True)]

    def _logits(self, features: dict[str, np.ndarray]) -> np.ndarray:
        """(batch, num_labels) logits for int64 features named by `input_names`, each (batch, sequence)."""
        raise NotImplementedError

    def _encode_windows(self, pairs: Sequence[tuple[str, str]]) -> tuple[list[dict[str, list[int]]], np.ndarray]:
        """Token windows to score, and for each the index of its pair; raises before any scoring if a claim is
        too long for the model."""
        premises = [premise for premise, _ in pairs]
        hypotheses = [hypothesis for _, hypothesis in pairs]
        # verbose=False: an over-long pair is expected here and windowed below, not a mistake worth a warning.
        whole = self.tokenizer(premises, hypotheses, truncation=False, verbose=False)
        windows: list[dict[str, list[int]]] = []
        owners: list[int] = []
        for index, (premise, hypothesis) in enumerate(pairs):
            encoded = {key: whole[key][index] for key in self.input_names}
            if len(encoded["input_ids"]) <= self.max_length:
                windows.append(encoded)
                owners.append(index)
                continue
            room = self._premise_room(hypothesis, index, len(pairs))
            split = self.tokenizer(
                premise,
                hypothesis,
                truncation="only_first",
                max_length=self.max_length,
                stride=room // 2,  # HF's stride is the overlap: each window repeats half of the one before
                return_overflowing_tokens=True,
                verbose=False,
            )
            for window in range(len(split["input_ids"])):
                windows.append({key: split[key][window] for key in self.input_names})
                owners.append(index)
        return windows, np.asarray(owners, dtype=np.int64)

    def _premise_room(self, hypothesis: str, index: int, count: int) -> int:
        claim_tokens = len(self.tokenizer(hypothesis, add_special_tokens=False, verbose=False)["input_ids"])
        room = self.max_length - self._special_tokens - claim_tokens
        if room < MIN_PREMISE_TOKENS:
            raise BackendError(
                f"claim {index + 1} of {count} is {claim_tokens} tokens long ({hypothesis[:60]!r}...); "
                f"{self.model_id} reads {self.max_length} tokens per (evidence, claim) pair, which leaves {room} "
                f"for evidence and at least {MIN_PREMISE_TOKENS} are needed; split the claim into shorter claims"
            )
        return room


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
        self._session = onnx_session(self.onnx_path, providers=["CPUExecutionProvider"])
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
        return OnnxNLIModel(
            models.nli,
            batch_size=models.batch_size,
            allow_download=models.allow_download,
            quantize=models.quantize,
            cache_dir=models.onnx_cache_dir,
        )
    return TransformerNLIModel(
        models.nli, device=models.device, batch_size=models.batch_size, allow_download=models.allow_download
    )


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


def _max_length(tokenizer: Any, config: Any, model_id: str) -> int:
    """The longest pair the model reads: the tokenizer's limit, capped by the model's usable positions."""
    limits = []
    if tokenizer.model_max_length and tokenizer.model_max_length < 1_000_000:  # transformers' "no limit" is 1e30
        limits.append(int(tokenizer.model_max_length))
    positions = getattr(config, "max_position_embeddings", None)
    if positions:
        limits.append(int(positions) - _POSITION_OFFSETS.get(config.model_type, 0))
    if not limits:
        raise BackendError(
            f"cannot tell how many tokens {model_id} reads: neither tokenizer model_max_length nor config "
            "max_position_embeddings is set; set model_max_length in its tokenizer_config.json"
        )
    return min(limits)


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


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
