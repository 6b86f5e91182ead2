"""The progress callback a long stage takes, `on_progress(done, total)`: declared once, here at the bottom layer, so
retrieval, the batch runner and the CLI's progress bars name the same type."""

from __future__ import annotations

from collections.abc import Callable

ProgressCallback = Callable[[int, int], None]
