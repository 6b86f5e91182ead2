"""Text handed to veriground (a file to verify, stdin, an upload, a JSON/JSONL input file): bytes -> str, strictly
UTF-8, with errors that name the source and the offending byte."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar

from veriground.errors import InputFileError, InputTextError, InputTooLargeError

MAX_UTF8_BYTES_PER_CHAR = 4


def decode_text(raw: bytes, name: str, max_chars: int, *, limit_hint: str) -> str:
    """`name` says where the bytes came from; `limit_hint` how the user raises verification.max_input_chars."""
    if len(raw) > MAX_UTF8_BYTES_PER_CHAR * max_chars:
        raise InputTooLargeError(
            f"{name} is {len(raw):,} bytes, over verification.max_input_chars={max_chars:,} characters; "
            f"split it or raise the limit with {limit_hint}"
        )
    if b"\x00" in raw:
        raise InputTextError(f"{name} holds NUL bytes, so it is binary, not text; send a UTF-8 text file")
    try:
        # "utf-8-sig": a byte-order mark (Windows Notepad writes one) is encoding, not text.
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputTextError(
            f"{name} is not UTF-8 (byte {raw[err.start]:#04x} at offset {err.start}); save it as UTF-8"
        ) from None


def check_encodable(text: str, name: str) -> None:
    """Refuse a lone UTF-16 surrogate ("\\ud800" in JSON, an undecodable byte in a command-line argument): it is
    not a character, and nothing downstream can hash, store or print it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise InputTextError(
            f"{name} holds a lone surrogate {text[err.start]!r} at character {err.start}, which is not text; "
            "send UTF-8 text (in JSON, escape characters as valid \\u pairs)"
        ) from None


# Python refuses to turn longer digit strings into an int (sys.get_int_max_str_digits, CVE-2020-10735).
MAX_JSON_INT_DIGITS = 4300


def parse_json(text: str) -> Any:
    """json.loads that says in one line what no reader downstream could hold, as ValueError: nesting too deep for
    the parser, a number of more than MAX_JSON_INT_DIGITS digits, a lone UTF-16 surrogate (with the field's path).
    Invalid JSON stays json.JSONDecodeError (a ValueError) with its line and column."""
    try:
        value = json.loads(text, parse_int=_checked_int)
    except RecursionError:
        raise ValueError("JSON nesting too deep to read (arrays or objects inside each other)") from None
    found = find_lone_surrogate(value)
    if found is not None:
        path, escaped = found
        raise ValueError(f"{path or 'the value'} holds {escaped}, a lone UTF-16 surrogate that is not text")
    return value


def _checked_int(digits: str) -> int:
    count = len(digits.lstrip("-"))
    if count > MAX_JSON_INT_DIGITS:
        raise ValueError(f"a number with {count} digits, over the {MAX_JSON_INT_DIGITS} a JSON reader accepts")
    return int(digits)


def find_lone_surrogate(value: Any) -> tuple[str, str] | None:
    """(dotted path such as "passages.0.text", the surrogate escaped as "\\ud800") of the first string, key or
    value, holding a lone surrogate; None when every string is text. Iterative, so any depth json.loads gives."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, path = stack.pop()
        children: list[tuple[Any, str]] = []
        if isinstance(item, dict):
            for key, child in item.items():
                child_path = f"{path}.{key}" if path else str(key)
                children.extend([(key, child_path), (child, child_path)])
        elif isinstance(item, list):
            children = [(child, f"{path}.{index}" if path else str(index)) for index, child in enumerate(item)]
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as err:
                return path, item[err.start].encode("unicode_escape").decode()
        stack.extend(reversed(children))
    return None


class _Readable(Protocol):
    def read_bytes(self) -> bytes: ...


def read_utf8_file(path: Path | _Readable, what: str, fix: str) -> str:
    """A whole input file as text; `what` names it in the error ("the golden set"), `fix` says what to pass."""
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise InputFileError(str(path), f"cannot read {what}: {err.strerror or err}", fix) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputFileError(
            str(path), f"not UTF-8 (byte {raw[err.start]:#04x} at offset {err.start})", "save it as UTF-8"
        ) from None


class _Identified(Protocol):
    @property
    def id(self) -> str: ...


T = TypeVar("T", bound=_Identified)


def read_jsonl_records(
    path: Path,
    what: str,
    parse: Callable[[dict[str, Any], str], T],
    *,
    fields: str,
    record_name: str = "a row",
    plural: str = "rows",
    duplicate_fix: str = "give each row its own id",
) -> list[T]:
    """One record per non-blank line of a UTF-8 JSONL file ("the critic set": `what`): each line must be a JSON
    object, which `parse(data, where)` turns into a record (raising InputFileError naming `where`, "<path> line N");
    record ids must be unique, and a file with none is an error. `fields` lists the fields a row may have, for the
    messages ("id, text, label"); `record_name` ("a row") words the error for a line that is JSON but not an
    object, `plural` the one for an empty file."""
    text = read_utf8_file(path, what, "pass an existing JSONL file")
    records: list[T] = []
    first_line: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path} line {number}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as err:
            raise InputFileError(where, f"not valid JSON: {err.msg} at column {err.colno}") from None
        if not isinstance(data, dict):
            problem = f"{record_name} must be a JSON object, got {type(data).__name__}"
            raise InputFileError(where, problem, f"fields: {fields}")
        record = parse(data, where)
        key = record.id
        if key in first_line:
            raise InputFileError(where, f"id {key!r} repeats line {first_line[key]}", duplicate_fix)
        first_line[key] = number
        records.append(record)
    if not records:
        raise InputFileError(path, f"no {plural}", f"write one JSON object per line with {fields}")
    return records
