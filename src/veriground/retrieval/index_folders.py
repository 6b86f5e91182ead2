"""Index folders swapped in whole: write into a fresh staging folder, then rename it over the live one under a lock,
so a crash never leaves a half-written index; staging folders a killed swap left behind are removed on open.

Used by the BM25 index (`bm25/`) and the dense matrices (`dense-<model>/`): `<name>.new.*` is a folder being
written, `<name>.old.*` the previous index on its way out.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

LOCK_NAME = "bm25.lock"  # held while any index is swapped in, so a cleaner knows which staging folders are live
_STAGING_GLOBS = ("*.new.*", "*.old.*")


@contextmanager
def index_swap(target: Path) -> Iterator[Path]:
    """A fresh, uniquely named staging folder to write `target`'s new content into, swapped in over `target` (two
    renames) when the block ends; nothing changes if it raises. The swap lock is held throughout, so a cleaner never
    removes a folder still being written. When another process swapped its own index in at the same moment, ours
    is dropped: both were built from the same store."""
    with swap_lock(target.parent, wait=True):
        staging = Path(tempfile.mkdtemp(prefix=f"{target.name}.new.", dir=target.parent))
        try:
            yield staging
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        old = Path(tempfile.mkdtemp(prefix=f"{target.name}.old.", dir=target.parent)) / target.name
        try:
            if target.exists():
                target.rename(old)
            staging.rename(target)
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)
            if old.exists() and not target.exists():
                old.rename(target)  # the second rename failed: the index in use before stays in use
        shutil.rmtree(old.parent, ignore_errors=True)


def remove_orphaned_folders(corpus_dir: Path) -> list[Path]:
    """Remove the staging folders of swaps that never finished (a process killed between the two renames, or while
    writing); returns them. Skipped while another process is swapping (the lock is held): its folders are still in
    use. Without advisory locks (no fcntl) nothing is removed."""
    with swap_lock(corpus_dir, wait=False) as held:
        if not held:
            return []
        orphans = sorted(folder for pattern in _STAGING_GLOBS for folder in corpus_dir.glob(pattern) if folder.is_dir())
        for folder in orphans:
            shutil.rmtree(folder, ignore_errors=True)
        return orphans


@contextmanager
def swap_lock(corpus_dir: Path, *, wait: bool) -> Iterator[bool]:
    """An exclusive advisory lock on the corpus's index swaps; yields whether it is held (always, when `wait`)."""
    if fcntl is None:
        yield wait
        return
    with open(corpus_dir / LOCK_NAME, "a+b") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
