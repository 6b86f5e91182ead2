"""Fewer garbage-collector passes while a verification runs.

A verification allocates hundreds of thousands of small objects (word tuples, stem sets, text readings) and keeps
many of them in the text memos (text/memo.py). With CPython's default young-generation threshold (700 allocations)
the collector walks those survivors again and again (a sixth of the CPU time of bench/bench_verify.py with the lexical
NLI when this was written), and every tenth pass walks all the survivors of the last ten again. Inside
`fewer_collections` the young threshold is YOUNG_THRESHOLD and the middle one MIDDLE_THRESHOLD, so collections still
happen (reference cycles are freed; memory stays bounded), only less often; the oldest generation's threshold is
left alone. Measured over a dozen verifications in a row, collections included, the middle threshold alone saves
about 5 % of the CPU time.

The collector is the process's, not veriground's: while any verification runs, every thread of the host process
sees the raised threshold. Threads of a server share it, so entries are counted and the previous thresholds come
back when the last verification leaves, unless the host changed them meanwhile (its setting is then kept).
"""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG_THRESHOLD = 20_000  # allocations between young-generation passes while verifying (CPython's default: 700)
# Young passes between middle-generation passes while verifying (CPython's default: 10). Python 3.14's incremental
# collector reads the second threshold differently (how slowly the old generation is scanned), and this was measured
# on the generational collector of 3.11-3.13 only: from 3.14 on the second threshold is left alone.
MIDDLE_THRESHOLD = 100 if sys.version_info < (3, 14) else None

_lock = threading.Lock()
_inside = 0
_saved: tuple[int, int, int] | None = None  # the thresholds before the first verification entered
_raised: tuple[int, int, int] | None = None  # what fewer_collections set, None when it set nothing


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Raise the collector's young threshold to YOUNG_THRESHOLD and its middle one to MIDDLE_THRESHOLD for the
    duration; never lower either, and change nothing while the collector is off (a young threshold of 0)."""
    global _inside, _saved, _raised
    with _lock:
        if _inside == 0:
            _saved = gc.get_threshold()
            young, middle, old = _saved
            _raised = None
            if 0 < young < YOUNG_THRESHOLD:
                _raised = (YOUNG_THRESHOLD, middle if MIDDLE_THRESHOLD is None else max(middle, MIDDLE_THRESHOLD), old)
                gc.set_threshold(*_raised)
        _inside += 1
    try:
        yield
    finally:
        with _lock:
            _inside -= 1
            if _inside == 0:
                if _raised is not None and _saved is not None and gc.get_threshold() == _raised:
                    gc.set_threshold(*_saved)  # thresholds the host set meanwhile are its own: kept
                _saved = _raised = None
