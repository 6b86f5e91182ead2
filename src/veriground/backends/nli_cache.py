"""A memory of NLI scores: (model identity, premise, hypothesis) -> NLIScores, keyed by a SHA-256 hash; bounded
(least recently used out) or not, and optionally kept in a JSONL file between runs.

A verifier asks a model NLI the same pair again and again (two atoms of one sentence read the same evidence unit,
a server answers the same question twice, the conflict check reads sentences the support check read). Only a model
whose score for a pair does not depend on the other pairs of its batch may be cached (the shipped int8 model, run
one pair per run), so a cached score is exactly the score a fresh call would give. Evaluation runs keep every
score (evaluation/batching.py MemoNLIModel), and `calibrate --nli-cache` keeps them on disk.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path

from veriground.schema import NLIScores

# About 200 bytes a score with its key: 100,000 entries hold the pairs of ~10,000 claims in ~20 MB.
NLI_CACHE_ENTRIES = 100_000


class NLIScoreCache:
    """NLIScores per pair of one model, at most `max_entries` of them (least recently used out; None: no bound);
    with `path`, every stored score is read from that JSONL file and every fresh one appended to it. `hits` and
    `misses` count lookups."""

    def __init__(
        self, model_identity: str, max_entries: int | None = NLI_CACHE_ENTRIES, *, path: Path | None = None
    ) -> None:
        self._prefix = model_identity + "\x1f"
        self._max_entries = max_entries
        self._path = path
        self._scores: OrderedDict[bytes, NLIScores] = _read_scores(path) if path is not None else OrderedDict()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._scores)

    def clear(self) -> None:
        self._scores.clear()
        self.hits = self.misses = 0

    def key(self, premise: str, hypothesis: str) -> bytes:
        payload = self._prefix + premise + "\x1f" + hypothesis
        return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).digest()

    def predict(
        self,
        pairs: Sequence[tuple[str, str]],
        score: Callable[[Sequence[tuple[str, str]]], list[NLIScores]],
    ) -> list[NLIScores]:
        """Scores of `pairs`, in order: each distinct pair not yet known goes to one `score` call, in first-seen
        order; the rest are read from memory."""
        keys = [self.key(premise, hypothesis) for premise, hypothesis in pairs]
        found: dict[bytes, NLIScores] = {}
        todo: dict[bytes, tuple[str, str]] = {}
        for key, pair in zip(keys, pairs, strict=True):
            if key in found or key in todo:
                continue
            cached = self._scores.get(key)
            if cached is None:
                todo[key] = pair
            else:
                self._scores.move_to_end(key)
                found[key] = cached
        self.hits += len(pairs) - len(todo)
        self.misses += len(todo)
        if todo:
            fresh = score(list(todo.values()))
            if len(fresh) != len(todo):
                raise ValueError(f"returned {len(fresh)} scores for {len(todo)} pairs")
            found.update(zip(todo, fresh, strict=True))
            self._keep(dict(zip(todo, fresh, strict=True)))
        return [found[key] for key in keys]

    def _keep(self, fresh: dict[bytes, NLIScores]) -> None:
        self._scores.update(fresh)
        if self._max_entries is not None:
            while len(self._scores) > self._max_entries:
                self._scores.popitem(last=False)
        if self._path is not None:
            with self._path.open("a", encoding="utf-8") as file:
                for key, scores in fresh.items():
                    file.write(json.dumps({"key": key.hex(), **scores.model_dump()}) + "\n")


def _read_scores(path: Path) -> OrderedDict[bytes, NLIScores]:
    stored: OrderedDict[bytes, NLIScores] = OrderedDict()
    if not path.exists():
        return stored
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            data = json.loads(line)
            key = bytes.fromhex(data.pop("key"))  # before the scores are read: they forbid an unknown field
            stored[key] = NLIScores(**data)
        except (ValueError, KeyError, TypeError):
            continue  # a line cut short by an interrupted run is scored again
    return stored
