"""verify-batch: an input JSONL of rows -> an output JSONL with one record per row, in input order.

Resumable: rows whose record the output already holds are skipped, and records are appended in input order as
they complete (a finished row waits for the rows before it), so a killed run leaves a prefix that the next run
continues. Where the work runs (this process, a process pool, Ray) is the executor's business; the records are the
same bytes whichever runs it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol

from veriground.batch.rows import (
    BadRow,
    RowTask,
    bad_row_record,
    count_rows,
    read_done_keys,
    read_input_lines,
)
from veriground.config import Config
from veriground.errors import ConfigError, InputFileError, StoreError
from veriground.schema.progress import ProgressCallback


class BatchExecutor(Protocol):
    """Turns rows into (seq, record line) pairs, in any order; `name` is what the summary reports."""

    name: str

    def run(self, config: Config, tasks: Iterable[RowTask]) -> Iterator[tuple[int, str]]: ...


@dataclass(frozen=True)
class BatchSummary:
    """What one run did: `rows` in the input, `skipped` (already in the output), `verified`, `failed` (error
    records written), `remaining` (left for the next run by `max_rows`)."""

    rows: int
    skipped: int
    verified: int
    failed: int
    remaining: int
    executor: str
    out_path: str

    def as_dict(self) -> dict[str, int | str]:
        return {
            "rows": self.rows,
            "skipped": self.skipped,
            "verified": self.verified,
            "failed": self.failed,
            "remaining": self.remaining,
            "executor": self.executor,
            "out": self.out_path,
        }


def run_batch(
    in_path: Path,
    out_path: Path,
    *,
    config: Config,
    executor: BatchExecutor,
    max_rows: int | None = None,
    on_progress: ProgressCallback | None = None,
) -> BatchSummary:
    """Verify every row of `in_path` not yet in `out_path` and append its record there; `max_rows` stops after that
    many new records; `on_progress(done, total)` counts records present out of input rows."""
    _check_paths(in_path, out_path)
    if max_rows is not None and max_rows < 1:
        raise ConfigError(f"max_rows must be at least 1, got {max_rows}; leave it out (None) to run every row")
    config = _with_absolute_corpus(config)
    done_keys = read_done_keys(out_path)
    total = count_rows(in_path)
    progress = on_progress or _ignore_progress
    counts = {"skipped": 0, "remaining": 0, "verified": 0, "failed": 0}

    def on_record(record: str) -> None:
        # Records are JSON with sorted keys: an error record's first key is "error", a report record's is "id".
        counts["failed" if record.startswith('{"error"') else "verified"] += 1
        progress(min(total, len(done_keys) + counts["verified"] + counts["failed"]), total)

    has_corpus = _prepare_corpus(config)
    progress(min(total, len(done_keys)), total)
    with _append(out_path) as handle:
        writer = _OrderedWriter(handle, on_record)

        def rows_to_verify() -> Iterator[RowTask]:
            """The rows to verify, numbered in input order; a bad row's error record goes straight to the writer."""
            for entry in read_input_lines(in_path):
                if entry.key in done_keys:
                    counts["skipped"] += 1
                elif max_rows is not None and writer.numbered >= max_rows:
                    counts["remaining"] += 1  # read on only to count what the next run has left
                elif isinstance(entry.item, BadRow):
                    writer.add(writer.number_next(), bad_row_record(entry.item))
                else:
                    item = entry.item
                    if item.evidence is None and not has_corpus:
                        raise _no_corpus(config, item)
                    yield RowTask(writer.number_next(), item.line, item.row_id, item.text, item.evidence, item.question)

        for seq, record in executor.run(config, rows_to_verify()):
            writer.add(seq, record)
        writer.check_drained()
    return BatchSummary(
        rows=total,
        skipped=counts["skipped"],
        verified=counts["verified"],
        failed=counts["failed"],
        remaining=counts["remaining"],
        executor=executor.name,
        out_path=str(out_path),
    )


class _OrderedWriter:
    """Appends records in seq order: one that arrives early waits until every record before it is written."""

    def __init__(self, handle: IO[str], on_record: Callable[[str], None]) -> None:
        self._handle = handle
        self._on_record = on_record
        self._next = 0
        self._waiting: dict[int, str] = {}
        self.numbered = 0  # seqs handed out so far

    def number_next(self) -> int:
        """The seq of the next record this run writes (input order)."""
        self.numbered += 1
        return self.numbered - 1

    def add(self, seq: int, record: str) -> None:
        self._waiting[seq] = record
        while self._next in self._waiting:
            line = self._waiting.pop(self._next)
            self._handle.write(line)  # one write per whole line: a kill leaves at most one partial last line
            self._handle.flush()
            self._on_record(line)
            self._next += 1

    def check_drained(self) -> None:
        if self._next != self.numbered or self._waiting:
            raise RuntimeError(f"verify-batch wrote {self._next} of {self.numbered} records; the executor lost some")


def _check_paths(in_path: Path, out_path: Path) -> None:
    if not in_path.is_file():
        raise InputFileError(in_path, "no such batch input file", "pass a JSONL file of {id, text} rows")
    if out_path.exists() and out_path.resolve() == in_path.resolve():
        raise InputFileError(out_path, "--out is the input file", "write the records to another file")
    if not out_path.parent.is_dir():
        raise InputFileError(
            out_path, f"the folder {out_path.parent} does not exist", "create it or choose another --out"
        )


def _with_absolute_corpus(config: Config) -> Config:
    """The corpus as an absolute path: workers on other nodes or in other folders open the same corpus, and every
    record's manifest names the same path whichever worker made it."""
    corpus = config.corpus.model_copy(update={"dir": config.corpus.dir.absolute()})
    return config.model_copy(update={"corpus": corpus})


def _prepare_corpus(config: Config) -> bool:
    """Bring the BM25 index up to the store's generation once, here, so that workers load it instead of each
    rebuilding it at the same time. False when there is no corpus (fine if every row brings its evidence)."""
    from veriground.workspace import Workspace

    with Workspace(config) as workspace:  # only the BM25 side: the configured retriever could load an embedder
        if not workspace.has_corpus:
            return False
        workspace.refresh_bm25()
    return True


def _no_corpus(config: Config, task: RowTask) -> StoreError:
    """A missing corpus is no fault of one row: the batch stops instead of writing an error record for every row."""
    return StoreError(
        f"no corpus at {config.corpus.dir}, and row {task.row_id!r} (line {task.line}) has no evidence pack to be "
        "checked against; ingest documents there first (veriground ingest DOCS --corpus DIR) or pass --corpus"
    )


def _append(path: Path) -> IO[str]:
    try:
        return path.open("a", encoding="utf-8", newline="\n")
    except OSError as err:
        raise InputFileError(
            path, f"cannot write the batch output: {err.strerror or err}", "pass a writable --out"
        ) from None


def _ignore_progress(done: int, total: int) -> None:
    """The callback when the caller shows no progress."""
