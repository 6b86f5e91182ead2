"""verify-batch rows and records: an input JSONL line -> a row to verify or an error record; an output JSONL file ->
the keys of the rows it already holds.

A row is `{"id": ..., "text": ..., "evidence": <evidence pack>?, "question": ...?}`. A record is one output line:
`{"id", "line", "report"}` (the report `verify --json` prints) or `{"id", "line", "error", "error_type"}`.
Rows that cannot be told apart by their id (no usable id, an id given twice) get `"id": null` and are known by line.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from veriground.errors import InputFileError

ROW_FIELDS = ("id", "text", "evidence", "question")
_ROW_FIELDS_HINT = 'a row is {"id": ..., "text": ..., "evidence": <evidence pack>?, "question": ...?}'
_UTF8_BOM = b"\xef\xbb\xbf"
# Output JSONL is compact (one record per line) with sorted keys, so equal records are equal bytes.
_SEPARATORS = (",", ":")
_REPORT_HEAD = '{"id":'
_REPORT_LINE = re.compile(r',"line":\d+,"report":\{')
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class RowTask:
    """A well-formed input row, numbered in the order records are written (`seq`) and by its input `line`."""

    seq: int
    line: int
    row_id: str | int
    text: str
    evidence: Any = None  # an evidence pack as JSON data (a dict or a list of passages), checked by the verifier
    question: str | None = None

    def to_json(self) -> str:
        return json.dumps(
            {
                "seq": self.seq,
                "line": self.line,
                "id": self.row_id,
                "text": self.text,
                "evidence": self.evidence,
                "question": self.question,
            },
            ensure_ascii=False,
        )

    @classmethod
    def from_json(cls, data: str) -> RowTask:
        item = json.loads(data)
        return cls(item["seq"], item["line"], item["id"], item["text"], item["evidence"], item["question"])


@dataclass(frozen=True)
class BadRow:
    """An input line that is no row: written as an error record without being verified."""

    line: int
    row_id: str | int | None
    reason: str
    error_type: str = "InputTextError"


@dataclass(frozen=True)
class InputLine:
    """One non-blank input line: its key (what an output record of it is known by) and what to do with it."""

    key: str
    item: RowTask | BadRow


def id_key(row_id: str | int) -> str:
    return "id:" + json.dumps(row_id, ensure_ascii=False)


def line_key(line: int) -> str:
    return f"line:{line}"


def report_record(row_id: str | int, line: int, report: dict[str, Any]) -> str:
    """The output line of a verified row: `report` is the report's JSON data (`model_dump(mode="json")`)."""
    return _record_line({"id": row_id, "line": line, "report": report})


def error_record(row_id: str | int | None, line: int, reason: str, error_type: str) -> str:
    """The output line of a row that could not be verified, with a one-line reason."""
    one_line = " ".join(reason.split())
    return _record_line({"id": row_id, "line": line, "error": one_line, "error_type": error_type})


def bad_row_record(bad: BadRow) -> str:
    return error_record(bad.row_id, bad.line, bad.reason, bad.error_type)


def _record_line(record: dict[str, Any]) -> str:
    return json.dumps(record, sort_keys=True, ensure_ascii=False, separators=_SEPARATORS) + "\n"


def count_rows(path: Path) -> int:
    """How many non-blank lines `path` holds (the rows a progress bar counts towards)."""
    rows = 0
    with _open_input(path) as handle:
        for raw in handle:
            if raw.strip():
                rows += 1
    return rows


def read_input_lines(path: Path) -> Iterator[InputLine]:
    """Each non-blank line of the input, in order, as a row or a bad row; an id's second use is a bad row."""
    seen: dict[str, int] = {}
    with _open_input(path) as handle:
        for number, raw in enumerate(handle, start=1):
            if number == 1 and raw.startswith(_UTF8_BOM):
                raw = raw[len(_UTF8_BOM) :]
            if not raw.strip():
                continue
            yield _parse_line(raw, number, seen)


def _open_input(path: Path):  # noqa: ANN202 - a binary file handle
    try:
        return path.open("rb")
    except OSError as err:
        raise InputFileError(
            path, f"cannot read the batch input: {err.strerror or err}", "pass an existing JSONL file"
        ) from None


def _parse_line(raw: bytes, number: int, seen: dict[str, int]) -> InputLine:
    def bad(reason: str, row_id: str | int | None = None) -> InputLine:
        key = line_key(number) if row_id is None else id_key(row_id)
        return InputLine(key, BadRow(number, row_id, reason))

    try:
        data = json.loads(raw.decode("utf-8").strip())
    except UnicodeDecodeError as err:
        return bad(f"not UTF-8 (byte {raw[err.start]:#04x} at offset {err.start}); save the file as UTF-8")
    except json.JSONDecodeError as err:
        return bad(f"not valid JSON ({err.msg}, column {err.colno}); {_ROW_FIELDS_HINT}")
    if not isinstance(data, dict):
        return bad(f"a row must be a JSON object, got {type(data).__name__}; {_ROW_FIELDS_HINT}")
    row_id = data.get("id")
    if isinstance(row_id, bool) or not isinstance(row_id, (str, int)) or row_id == "":
        shown = "no id" if row_id is None else f"id {row_id!r}"
        return bad(f"{shown}: a row needs an id, a non-empty string or an integer; {_ROW_FIELDS_HINT}")
    key = id_key(row_id)
    if key in seen:
        return bad(f"id {row_id!r} repeats the id of line {seen[key]}; give every row its own id")
    seen[key] = number
    unknown = sorted(set(data) - set(ROW_FIELDS))
    if unknown:
        return bad(f"unknown field {', '.join(unknown)}; a row may have: {', '.join(ROW_FIELDS)}", row_id)
    text = data.get("text")
    if not isinstance(text, str) or not text.strip():
        shown = "no text" if text is None else f"text {text!r:.40}"
        return bad(f"{shown}: a row needs the text to verify as a non-empty string", row_id)
    question = data.get("question")
    if question is not None and not isinstance(question, str):
        return bad(f"question must be a string, got {type(question).__name__}; give the question as text", row_id)
    task = RowTask(seq=-1, line=number, row_id=row_id, text=text, evidence=data.get("evidence"), question=question)
    return InputLine(key, task)


def read_done_keys(path: Path) -> set[str]:
    """The keys of the records `path` already holds (none when it does not exist), read line by line. A last line
    cut short by a killed run is removed, so the next record starts on a line of its own."""
    keys: set[str] = set()
    complete_end = 0
    try:
        with path.open("rb") as handle:
            for number, raw in enumerate(handle, start=1):
                if not raw.endswith(b"\n"):
                    break  # the half-written last line
                complete_end += len(raw)
                if raw.strip():
                    keys.add(_record_key(raw, number, path))
            size = handle.seek(0, os.SEEK_END)
    except FileNotFoundError:
        return set()
    except OSError as err:
        raise InputFileError(
            path, f"cannot read the batch output: {err.strerror or err}", "pass a writable --out"
        ) from None
    if complete_end < size:
        _truncate(path, complete_end)
    return keys


def _record_key(raw: bytes, number: int, path: Path) -> str:
    """A record's key. A report record (tens of kB) starts `{"id":…,"line":N,"report":` (keys are sorted), so its key
    is read from that head alone; anything else is parsed whole."""
    text = raw.decode("utf-8", errors="replace")
    if text.startswith(_REPORT_HEAD):
        try:
            row_id, end = _DECODER.raw_decode(text, len(_REPORT_HEAD))
        except ValueError:
            row_id, end = None, 0
        match = _REPORT_LINE.match(text, end)
        if match and isinstance(row_id, (str, int)):
            return id_key(row_id)
    try:
        record = json.loads(text)
        line = record["line"]
        row_id = record["id"]
        if not isinstance(line, int) or not ("report" in record or "error" in record):
            raise ValueError
    except (ValueError, KeyError, TypeError):
        raise InputFileError(
            path,
            f"line {number} is not a verify-batch record",
            "pass the --out file an earlier verify-batch run wrote, or a new file",
        ) from None
    return line_key(line) if row_id is None else id_key(row_id)


def _truncate(path: Path, size: int) -> None:
    try:
        with path.open("r+b") as handle:
            handle.truncate(size)
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as err:
        raise InputFileError(
            path, f"cannot repair the batch output: {err.strerror or err}", "pass a writable --out"
        ) from None
