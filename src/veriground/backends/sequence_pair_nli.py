"""The runtime-independent half of a trained NLI backend: a sequence-classification model's labels -> which logit
is entailment and which contradiction, and SequencePairNLIModel, which tokenises (premise, hypothesis) pairs,
windows over-long premises, batches them and maps logits to NLIScores. A runtime (torch, onnxruntime, the
shipped int8 model) supplies only `_logits`; nothing here imports torch.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from veriground.backends.nli_cache import NLIScoreCache
from veriground.errors import BackendError, ConfigError
from veriground.schema import NLIScores
from veriground.text.variables import restate_as_premise_writes

# A premise window shorter than this cannot hold a sentence of evidence (~25 words), so a claim that leaves less room
# than this is read in parts (SequencePairNLIModel._hypothesis_parts) rather than judged on scraps.
MIN_PREMISE_TOKENS = 32
# Where a hypothesis too long for the model is cut into parts first (SequencePairNLIModel._hypothesis_parts)
_CLAUSE_CUT = re.compile(r"(?<=[,;:])\s+")
# These models number positions from padding_idx + 1 = 2, so two of max_position_embeddings are never usable.
_POSITION_OFFSETS = {"roberta": 2, "xlm-roberta": 2, "camembert": 2, "longformer": 2, "mpnet": 2, "data2vec-text": 2}
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
    (evidence anywhere in the passage counts), and neutral is what is left (see finish_scores). A hypothesis too long
    to leave MIN_PREMISE_TOKENS of evidence beside it is read in parts of at most half the model's length, cut after a
    comma, semicolon or colon where it can be and between words where it cannot: the pair is as entailing as its
    least entailed part (every part must hold) and as contradicting as its most contradicted one. A 341-token claim
    was Unverified ("split the claim into shorter claims"); no claim is refused for its length now.
    """

    name: str
    model_id: str
    checksum: str | None

    def __init__(
        self,
        tokenizer: Any,
        config: Any,
        *,
        label_map: NLILabelMap,
        batch_size: int,
        input_names: Sequence[str],
        workers: int = 1,
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
        # Batches scored at once by `workers` threads (a runtime whose `_logits` releases the GIL and is safe to
        # call from several threads, like an onnxruntime session); each batch's logits are what one call gives.
        self.workers = max(1, workers)
        self._pool: ThreadPoolExecutor | None = None
        self._special_tokens = tokenizer.num_special_tokens_to_add(pair=True)
        # Run one window at a time, a pair's score depends on nothing else: each distinct pair is scored once and
        # remembered. Batched, a score depends on its batch's padding (and int8 scales), so nothing is reused.
        self.score_cache = (
            NLIScoreCache(f"{self.name}|{self.model_id}|{getattr(self, 'checksum', None)}") if batch_size == 1 else None
        )

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        if not pairs:
            return []
        if self.score_cache is None:
            return self._score_pairs(pairs)
        return self.score_cache.predict(pairs, self._score_pairs)

    def predict_uncached(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        """What `predict` gives, without reading or filling `score_cache`: for a caller that keeps its own."""
        return self._score_pairs(pairs) if pairs else []

    def _score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        # A model cannot convert units or rename variables: a hypothesis's quantity equal to one of the premise's is
        # read in its units, and its variables by the premise's names ("n vertices ... n - 1 edges" as "v vertices").
        pairs = [(premise, restate_as_premise_writes(premise, hypothesis)) for premise, hypothesis in pairs]
        # a claim is paired with each of its units: its length is read once
        parts_of = {hypothesis: self._hypothesis_parts(hypothesis) for hypothesis in {h for _, h in pairs}}
        parts = [(index, premise, part) for index, (premise, hypothesis) in enumerate(pairs)
                 for part in parts_of[hypothesis]]  # fmt: skip
        windows, owners = self._encode_windows([(premise, part) for _, premise, part in parts])
        entail = np.zeros(len(windows))
        contradict = np.zeros(len(windows))
        # Shortest first, so a batch pads to lengths close to its own; the order is a function of the input alone.
        order = sorted(range(len(windows)), key=lambda row: len(windows[row]["input_ids"]))
        batches = [order[start : start + self.batch_size] for start in range(0, len(order), self.batch_size)]
        features = [self._features([windows[row] for row in rows]) for rows in batches]
        for rows, logits in zip(batches, self._run_batches(features), strict=True):
            probs = _softmax(np.asarray(logits, dtype=np.float64))
            entail[rows] = probs[:, self.label_map.entail_index]
            if self.label_map.contradict_index is not None:
                contradict[rows] = probs[:, self.label_map.contradict_index]
        best_entail = np.zeros(len(parts))
        best_contradict = np.zeros(len(parts))
        np.maximum.at(best_entail, owners, entail)
        np.maximum.at(best_contradict, owners, contradict)
        pair_of = np.asarray([index for index, _, _ in parts], dtype=np.int64)
        pair_entail = np.ones(len(pairs))
        pair_contradict = np.zeros(len(pairs))
        np.minimum.at(pair_entail, pair_of, best_entail)  # every part must be entailed
        np.maximum.at(pair_contradict, pair_of, best_contradict)
        return [finish_scores(float(e), float(c)) for e, c in zip(pair_entail, pair_contradict, strict=True)]

    def _hypothesis_parts(self, hypothesis: str) -> list[str]:
        """The hypothesis whole when it leaves MIN_PREMISE_TOKENS beside it; else its parts (see the class note)."""
        if self._token_count(hypothesis) <= self.max_length - self._special_tokens - MIN_PREMISE_TOKENS:
            return [hypothesis]
        budget = max(1, (self.max_length - self._special_tokens) // 2)
        pieces = [piece for piece in _CLAUSE_CUT.split(hypothesis) if piece.strip()]
        parts: list[str] = []
        for piece in pieces:
            for small in self._within(piece, budget):
                if parts and self._token_count(f"{parts[-1]} {small}") <= budget:
                    parts[-1] = f"{parts[-1]} {small}"
                else:
                    parts.append(small)
        return parts

    def _within(self, piece: str, budget: int) -> list[str]:
        """`piece` in runs of whole words of at most `budget` tokens (a word longer than that, in runs of letters)."""
        if self._token_count(piece) <= budget:
            return [piece]
        runs: list[str] = []
        for word in piece.split():
            if self._token_count(word) > budget:  # a run with no space at all: a token is at least one character
                runs += [word[start : start + budget] for start in range(0, len(word), budget)]
            elif runs and self._token_count(f"{runs[-1]} {word}") <= budget:
                runs[-1] = f"{runs[-1]} {word}"
            else:
                runs.append(word)
        return runs

    def _token_count(self, text: str) -> int:
        return len(self.tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"])

    def _logits(self, features: dict[str, np.ndarray]) -> np.ndarray:
        """(batch, num_labels) logits for int64 features named by `input_names`, each (batch, sequence)."""
        raise NotImplementedError

    def _features(self, windows: list[dict[str, list[int]]]) -> dict[str, np.ndarray]:
        if len(windows) == 1:  # nothing to pad
            return {key: np.asarray([windows[0][key]], dtype=np.int64) for key in self.input_names}
        padded = self.tokenizer.pad(windows, return_tensors="np")
        return {key: np.asarray(padded[key], dtype=np.int64) for key in self.input_names}

    def _run_batches(self, features: list[dict[str, np.ndarray]]) -> list[np.ndarray]:
        """Logits of each batch, in order; spread over `workers` threads when there are several batches."""
        if self.workers == 1 or len(features) < 2:
            return [self._logits(batch) for batch in features]
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="veriground-nli")
        return list(self._pool.map(self._logits, features))

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
        claim_tokens = self._token_count(hypothesis)
        room = self.max_length - self._special_tokens - claim_tokens
        if room < MIN_PREMISE_TOKENS:
            raise BackendError(
                f"claim {index + 1} of {count} is {claim_tokens} tokens long ({hypothesis[:60]!r}...); "
                f"{self.model_id} reads {self.max_length} tokens per (evidence, claim) pair, which leaves {room} "
                f"for evidence and at least {MIN_PREMISE_TOKENS} are needed; split the claim into shorter claims"
            )
        return room


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
