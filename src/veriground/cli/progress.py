"""Progress bars with an ETA for long CLI commands: a `(done, total)` callback in, a rich bar on stderr out.

The lower layers never import this module. A long stage takes a plain callback argument,
``on_progress: Callable[[int, int], None] | None = None``, and calls ``on_progress(done, total)`` as it goes
(``total`` may change between calls, e.g. when a folder walk finds more files; ``done`` never decreases).
The command that calls the stage opens a bar here and passes the callback down:

    from veriground.cli.progress import progress_bar

    with progress_bar("Ingesting files", enabled=not json_output) as on_progress:
        ingest_paths(..., on_progress=on_progress)

Several phases of one command share one display through `progress_group`; `bars.callback(label)` gives the
`(done, total)` callback of the bar called `label`, and `bars.update(label, done, total)` suits a stage that
names its own phases:

    with progress_group(enabled=not json_output) as bars:
        ingest_paths(..., on_progress=bars.callback("Ingesting files"))
        build_vectors(..., on_progress=bars.callback("Embedding passages"))

A bar is drawn on stderr, only when stderr is a terminal (as rich detects it: FORCE_COLOR / TTY_COMPATIBLE
count) and the command was not asked for JSON (`enabled=False`); otherwise the callback does nothing, so logs,
CI, tests and `--json` output stay clean. Stdout may be redirected (`veriground eval bench > table.txt`): the
bar never writes there. The bar disappears when its block ends; the command then prints its summary.
Setting the environment variable ``VERIGROUND_NO_PROGRESS=1`` turns bars off everywhere.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from veriground.schema.progress import ProgressCallback

__all__ = ["ProgressCallback", "ProgressGroup", "progress_bar", "progress_group", "progress_wanted"]

NO_PROGRESS_ENV = "VERIGROUND_NO_PROGRESS"


def progress_wanted(stderr: TextIO | None = None) -> bool:
    """Whether a bar may be drawn: stderr is a terminal and VERIGROUND_NO_PROGRESS is unset."""
    if os.environ.get(NO_PROGRESS_ENV, "").strip() not in ("", "0"):
        return False
    from rich.console import Console

    try:
        return Console(file=stderr or sys.stderr).is_terminal
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False


def _ignore_progress(done: int, total: int) -> None:
    """The callback handed out when no bar is drawn."""


class ProgressGroup:
    """One live display holding a bar per phase, keyed by label."""

    def __init__(self, progress=None) -> None:
        self._progress = progress  # a rich.progress.Progress, or None when bars are off
        self._tasks: dict[str, object] = {}

    @property
    def active(self) -> bool:
        """Whether bars are drawn (False: every callback does nothing)."""
        return self._progress is not None

    def callback(self, label: str) -> ProgressCallback:
        """The `(done, total)` updater of the bar called `label` (created on first use, the same bar after)."""
        if self._progress is None:
            return _ignore_progress
        return lambda done, total: self.update(label, done, total)

    def update(self, label: str, done: int, total: int) -> None:
        """Move the bar called `label` to `done` of `total`: the shape for a stage that names its own phases."""
        if self._progress is None:
            return
        if label not in self._tasks:
            self._tasks[label] = self._progress.add_task(label, total=None)
        self._progress.update(self._tasks[label], completed=max(0, done), total=max(total, done, 0) or None)


@contextmanager
def progress_group(*, enabled: bool = True, stream: TextIO | None = None) -> Iterator[ProgressGroup]:
    """A display for one command's bars; off unless `enabled` and `progress_wanted()` (or a `stream` is given)."""
    if not enabled or (stream is None and not progress_wanted()):
        yield ProgressGroup(None)
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    console = Console(file=stream or sys.stderr, force_terminal=True if stream is not None else None)
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("elapsed"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    )
    with progress:
        yield ProgressGroup(progress)


@contextmanager
def progress_bar(label: str, *, enabled: bool = True, stream: TextIO | None = None) -> Iterator[ProgressCallback]:
    """One bar called `label`; yields the `(done, total)` callback to pass to the long stage."""
    with progress_group(enabled=enabled, stream=stream) as bars:
        yield bars.callback(label)
