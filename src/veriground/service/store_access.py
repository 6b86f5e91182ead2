"""The engine threads' lock on the corpus store: many reading jobs side by side, or one writing job alone."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Literal

Side = Literal["read", "write"]
READ: Side = "read"
WRITE: Side = "write"


class StoreAccessLock:
    """Many readers or one writer. A waiting writer goes before readers that arrive after it, so a stream of
    reads cannot hold an upload off for ever."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._holding = {READ: 0, WRITE: 0}  # readers inside, and the writer (0 or 1)
        self._waiting = {READ: 0, WRITE: 0}

    @property
    def waiting(self) -> tuple[int, int]:
        """(readers, writers) blocked on the lock now."""
        with self._changed:
            return self._waiting[READ], self._waiting[WRITE]

    def reading(self) -> contextlib.AbstractContextManager[None]:
        return self._hold(READ)

    def writing(self) -> contextlib.AbstractContextManager[None]:
        return self._hold(WRITE)

    @contextlib.contextmanager
    def _hold(self, side: Side) -> Iterator[None]:
        """Wait until `side` may enter, count it in while the block runs, and wake the waiters when it leaves."""
        with self._changed:
            self._waiting[side] += 1
            self._changed.wait_for(lambda: self._may_enter(side))
            self._waiting[side] -= 1
            self._holding[side] += 1
        try:
            yield
        finally:
            with self._changed:
                self._holding[side] -= 1
                self._changed.notify_all()

    def _may_enter(self, side: Side) -> bool:
        if side == WRITE:
            return not self._holding[WRITE] and not self._holding[READ]
        return not self._holding[WRITE] and not self._waiting[WRITE]
