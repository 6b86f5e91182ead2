"""The LLM call cache: request body -> completions, kept as an append-only JSONL file so that a run can be
replayed without the server. One line per call: {"completions", "request", "request_sha256"}, canonical JSON.

Several processes may share one file: each write takes an exclusive lock (POSIX) and appends its whole line in
one write call, and a reader picks up lines other processes appended since it last looked.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from veriground.errors import BackendError
from veriground.schema import LLMCompletion

try:  # POSIX; elsewhere writes rely on the single append call alone
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

RECORD_KEYS = frozenset({"completions", "request", "request_sha256"})


def canonical_json(value: Any) -> str:
    """One spelling per value: sorted keys, no spaces, UTF-8 kept as is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def request_key(body: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical JSON of a chat request body (model, messages and every parameter)."""
    return hashlib.sha256(canonical_json(body).encode("utf-8")).hexdigest()


class LLMCallCache:
    """Completions by request key, read lazily from `path` and appended to on `put`.

    A last line without its newline is a write cut short by a crash: it is ignored (and noted in `notes`) and
    cut off before the next append. Any other line that is not a valid record is an error.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.notes: list[str] = []
        self._records: dict[str, list[LLMCompletion]] = {}
        self._offset = 0  # bytes of complete lines read so far
        self._lines_read = 0

    def get(self, key: str) -> list[LLMCompletion] | None:
        """The completions cached for `key`, or None."""
        if key not in self._records:
            self._read_new_lines()
        found = self._records.get(key)
        return None if found is None else list(found)

    def put(self, key: str, request: Mapping[str, Any], completions: Sequence[LLMCompletion]) -> None:
        """Append one record; a key already in the file (written by another process) is not written twice."""
        record = {
            "completions": [completion.model_dump(mode="json") for completion in completions],
            "request": dict(request),
            "request_sha256": key,
        }
        line = (canonical_json(record) + "\n").encode("utf-8")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            tail = self._read_new_lines()
            if tail:
                # Under the lock no other writer is mid-line: the fragment is a crashed write. Cut it off so
                # that this line does not join it into a corrupt middle line.
                os.ftruncate(fd, self._offset)
            if key in self._records:
                return
            written = os.write(fd, line)
            if written != len(line):
                raise BackendError(
                    f"LLM cache {self.path}: only {written} of {len(line)} bytes were written; free disk space "
                    "and run again"
                )
            os.fsync(fd)
            self._offset += written
            self._lines_read += 1
            self._records[key] = list(completions)
        finally:
            os.close(fd)

    def _read_new_lines(self) -> bytes:
        """Load the complete lines appended since the last read; returns the unfinished tail (b"" if none)."""
        try:
            with self.path.open("rb") as handle:
                handle.seek(0, os.SEEK_END)
                if handle.tell() < self._offset:  # the file was replaced or emptied: start over
                    self._records.clear()
                    self._offset = self._lines_read = 0
                handle.seek(self._offset)
                data = handle.read()
        except FileNotFoundError:
            self._records.clear()
            self._offset = self._lines_read = 0
            return b""
        complete, newline, tail = data.rpartition(b"\n")
        if newline:
            for raw in complete.split(b"\n"):
                self._lines_read += 1
                self._load_line(raw, self._lines_read)
            self._offset += len(complete) + 1
        if tail:
            note = (
                f"LLM cache {self.path}: ignored an unfinished last line (line {self._lines_read + 1}, "
                f"{len(tail)} bytes), left by an interrupted write"
            )
            if note not in self.notes:
                self.notes.append(note)
        return tail

    def _load_line(self, raw: bytes, number: int) -> None:
        if not raw.strip():
            return
        try:
            record = json.loads(raw.decode("utf-8"))
            if not isinstance(record, dict) or set(record) != RECORD_KEYS:
                raise ValueError(f"expected an object with keys {sorted(RECORD_KEYS)}")
            key = record["request_sha256"]
            if not isinstance(key, str) or not isinstance(record["completions"], list):
                raise ValueError("request_sha256 must be a string and completions a list")
            completions = [LLMCompletion.model_validate(item) for item in record["completions"]]
        except (UnicodeDecodeError, ValueError, ValidationError) as err:
            detail = " ".join(str(err).split())[:200]
            raise BackendError(
                f"LLM cache {self.path} line {number} is not a valid record ({detail}); delete that line or the "
                "file to rebuild the cache"
            ) from None
        self._records.setdefault(key, completions)
