"""Fewer garbage-collector passes while a verification runs.

A verification allocates hundreds of thousands of small objects (word tuples, stem sets, text readings) and keeps
many of them in the text memos (text/memo.py). With CPython's default young-generation threshold (700 allocations)
the collector walks those survivors again and again (a sixth of the CPU time of bench/bench_verify.py with the lexical
NLI when this was written). Inside `fewer_collections` the young threshold is YOUNG_THRESHOLD, so collections still
happen (reference cycles are freed; memory stays bounded), only less often. The older generations' thresholds are
left alone.

The collector is the process's, not veriground's: while any verification runs, every thread of the host process
sees the raised threshold. Threads of a server share it, so entries are counted and the previous thresholds come
back when the last verification leaves, unless the host changed them meanwhile (its setting is then kept).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG_THRESHOLD = 20_000  # allocations between young-generation passes while verifying (CPython's default: 700)

_lock = threading.Lock()
_inside = 0
_saved: tuple[int, int, int] | None = None


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Raise the collector's young-generation threshold to YOUNG_THRESHOLD for the duration (never lower it; a
    threshold of 0, the collector switched off, stays 0)."""
    global _inside, _saved
    with _lock:
        if _inside == 0:
            _saved = gc.get_threshold()
            young, *older = _saved
            if 0 < young < YOUNG_THRESHOLD:
                gc.set_threshold(YOUNG_THRESHOLD, *older)
        _inside += 1
    try:
        yield
    finally:
        with _lock:
            _inside -= 1
            if _inside == 0 and _saved is not None:
                if gc.get_threshold()[0] == YOUNG_THRESHOLD:  # a threshold the host set meanwhile is its own
                    gc.set_threshold(*_saved)
                _saved = None
