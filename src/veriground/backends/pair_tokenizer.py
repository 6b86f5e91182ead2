"""The shipped NLI model's tokenizer read by the `tokenizers` library alone: the same Rust tokenizer that
transformers' fast tokenizer wraps, answering the calls SequencePairNLIModel makes with the same ids, without
importing transformers (2.7 s of every command that loads the shipped model on the 2-core machine, against 0.3 s).

It answers exactly these forms of a transformers tokenizer call, and nothing else:
- tokenizer(premises, hypotheses, truncation=False): every pair whole, as lists; tokenizer(premise, hypothesis):
  one pair whole;
- tokenizer(premise, hypothesis, truncation="only_first", max_length=..., stride=..., return_overflowing_tokens=True):
  the premise cut into windows that keep the whole hypothesis, each repeating `stride` tokens of the one before;
- tokenizer(text, add_special_tokens=False): one text's ids;
- pad(windows, return_tensors="np"): right-padded to the longest;
- num_special_tokens_to_add(pair=True), model_max_length, is_fast.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from veriground.errors import BackendError

FEATURES = ("input_ids", "token_type_ids", "attention_mask")


class PairTokenizer:
    """tokenizer.json and tokenizer_config.json of one model folder, through the `tokenizers` library."""

    is_fast = True

    def __init__(self, folder: Path) -> None:
        try:
            import tokenizers

            settings = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
            self._whole = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
            self._windows = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
        except (ImportError, OSError, ValueError, Exception) as err:  # tokenizers raises its own Exception subclass
            raise BackendError(f"cannot read the tokenizer in {folder}: {err}") from None
        if settings.get("padding_side", "right") != "right":
            raise BackendError(f"{folder / 'tokenizer_config.json'}: only right padding is supported")
        pad_token = settings.get("pad_token")
        pad_token = pad_token["content"] if isinstance(pad_token, dict) else pad_token
        pad_id = self._whole.token_to_id(pad_token) if pad_token else None
        if pad_id is None:
            raise BackendError(f"{folder / 'tokenizer_config.json'}: no padding token in the vocabulary")
        self.pad_id: int = pad_id
        self.pad_type_id = int(settings.get("pad_token_type_id", 0))
        self.model_max_length = int(settings.get("model_max_length", 0)) or 1_000_000_000
        for tokenizer in (self._whole, self._windows):  # tokenizer.json may carry a fixed length; calls set their own
            tokenizer.no_truncation()
            tokenizer.no_padding()
        self._windows_lock = threading.Lock()  # truncation is set per call on this copy

    def num_special_tokens_to_add(self, pair: bool = False) -> int:
        processor = self._whole.post_processor
        return 0 if processor is None else int(processor.num_special_tokens_to_add(pair))

    def __call__(
        self,
        text: str | Sequence[str],
        text_pair: str | Sequence[str] | None = None,
        *,
        truncation: bool | str = False,
        max_length: int | None = None,
        stride: int = 0,
        return_overflowing_tokens: bool = False,
        add_special_tokens: bool = True,
        verbose: bool = True,  # noqa: ARG002 - accepted as transformers does; nothing here warns
    ) -> dict[str, Any]:
        if not isinstance(text, str):
            if text_pair is None or isinstance(text_pair, str) or truncation:
                raise TypeError("PairTokenizer encodes a batch only as untruncated (premise, hypothesis) pairs")
            encodings = self._whole.encode_batch(list(zip(text, text_pair, strict=True)))
            return {name: [_feature(encoding, name) for encoding in encodings] for name in FEATURES}
        if text_pair is None:
            encoding = self._whole.encode(text, add_special_tokens=add_special_tokens)
            return {name: _feature(encoding, name) for name in FEATURES}
        assert isinstance(text_pair, str)
        if not truncation:
            encoding = self._whole.encode(text, text_pair, add_special_tokens=add_special_tokens)
            return {name: _feature(encoding, name) for name in FEATURES}
        if truncation != "only_first" or max_length is None or not return_overflowing_tokens:
            raise TypeError("PairTokenizer windows a pair only with truncation='only_first' and overflowing tokens")
        with self._windows_lock:
            self._windows.enable_truncation(max_length, stride=stride, strategy="only_first")
            try:
                encoding = self._windows.encode(text, text_pair)
            finally:
                self._windows.no_truncation()
        windows = [encoding, *encoding.overflowing]
        return {name: [_feature(window, name) for window in windows] for name in FEATURES}

    def pad(self, windows: Sequence[dict[str, Sequence[int]]], return_tensors: str = "np") -> dict[str, np.ndarray]:
        if return_tensors != "np":
            raise TypeError("PairTokenizer pads to numpy arrays only")
        longest = max(len(window["input_ids"]) for window in windows)
        fill = {"input_ids": self.pad_id, "token_type_ids": self.pad_type_id, "attention_mask": 0}
        padded = {}
        for name in (key for key in FEATURES if key in windows[0]):
            rows = [list(window[name]) + [fill[name]] * (longest - len(window[name])) for window in windows]
            padded[name] = np.asarray(rows, dtype=np.int64)
        return padded


def _feature(encoding: Any, name: str) -> list[int]:
    if name == "input_ids":
        return list(encoding.ids)
    if name == "token_type_ids":
        return list(encoding.type_ids)
    return list(encoding.attention_mask)
