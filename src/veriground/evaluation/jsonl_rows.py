"""The labelled JSONL inputs of the evaluations (labelled pairs, the critic set, rubric files): one JSON object per
line, each with its own id, read by `text_input.read_jsonl_records` so that every error names the file, the line
and the fields a row may have."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar


class _Identified(Protocol):
    @property
    def id(self) -> str: ...


T = TypeVar("T", bound=_Identified)


def read_id_rows(
    path: Path,
    what: str,
    parse: Callable[[dict[str, Any], str], T],
    *,
    fields: str,
    record_name: str = "a row",
    plural: str = "rows",
    duplicate_fix: str = "give each row its own id",
) -> list[T]:
    """The records `parse(data, where)` makes of the non-blank lines of `path` ("the critic set": `what`), ids unique;
    `fields` lists the fields a row may have, for the messages ("id, text, label")."""
    from veriground.text_input import read_jsonl_records

    return read_jsonl_records(
        path,
        what,
        parse,
        lambda record: record.id,
        record_name=record_name,
        fields_fix=f"fields: {fields}",
        duplicate_fix=duplicate_fix,
        empty=(f"no {plural}", f"write one JSON object per line with {fields}"),
    )
