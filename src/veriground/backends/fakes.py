"""Deterministic stand-ins for the backend protocols, for tests: a table-driven NLI and one that always fails."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from veriground.errors import BackendError
from veriground.schema import NLIScores


class FakeNLIModel:
    """Looks each (premise, hypothesis) pair up in a table, else answers `default`; records every batch."""

    name = "fake-nli.v1"
    model_id = "veriground/fake-nli"
    checksum: str | None = None

    def __init__(self, table: Mapping[tuple[str, str], NLIScores], default: NLIScores) -> None:
        self.table = dict(table)
        self.default = default
        self.calls: list[list[tuple[str, str]]] = []

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        batch = list(pairs)
        self.calls.append(batch)
        return [self.table.get(pair, self.default) for pair in batch]


class FailingNLIModel:
    """Raises BackendError on every call, as a backend whose weights are missing would."""

    name = "failing-nli.v1"
    model_id = "veriground/failing-nli"
    checksum: str | None = None

    def __init__(self, message: str = "model weights not found") -> None:
        self.message = message

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        raise BackendError(self.message)
