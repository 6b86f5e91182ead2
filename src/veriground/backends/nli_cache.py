"""A bounded memory of NLI scores: (model identity, premise, hypothesis) -> NLIScores, keyed by a SHA-256 hash.

A verifier asks a model NLI the same pair again and again (two atoms of one sentence read the same evidence unit,
a server answers the same question twice, the conflict check reads sentences the support check read). Only a model
whose score for a pair does not depend on the other pairs of its batch may be cached (the shipped int8 model, run
one pair at a time), so a cached score is exactly the score a fresh call would give.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Sequence

from veriground.schema import NLIScores

# About 200 bytes a score with its key: 100,000 entries hold the pairs of ~10,000 claims in ~20 MB.
NLI_CACHE_ENTRIES = 100_000


class NLIScoreCache:
    """Least-recently-used NLIScores per pair of one model; `hits` and `misses` count lookups."""

    def __init__(self, model_identity: str, max_entries: int = NLI_CACHE_ENTRIES) -> None:
        self._prefix = model_identity.encode("utf-8") + b"\x00"
        self._max_entries = max_entries
        self._scores: OrderedDict[bytes, NLIScores] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._scores)

    def clear(self) -> None:
        self._scores.clear()
        self.hits = self.misses = 0

    def key(self, premise: str, hypothesis: str) -> bytes:
        payload = self._prefix + premise.encode("utf-8") + b"\x00" + hypothesis.encode("utf-8")
        return hashlib.sha256(payload).digest()

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
            for key, scores in zip(todo, fresh, strict=True):
                found[key] = scores
                self._scores[key] = scores
            while len(self._scores) > self._max_entries:
                self._scores.popitem(last=False)
        return [found[key] for key in keys]
