"""Report files: a VerificationReport (.json, .md, .html) or a GroundedAnswer (.json, .html) and a path -> the
rendered file, written whole or not at all."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from veriground.errors import ConfigError, InputTextError
from veriground.schema import GroundedAnswer, Record, VerificationReport

REPORT_SUFFIXES = (".md", ".html", ".json")
R = TypeVar("R", bound=Record)


def json_text(data: Any) -> str:
    """Stable JSON: sorted keys, so the same records always give the same bytes."""
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def check_report_path(path: Path, suffixes: Sequence[str] = REPORT_SUFFIXES) -> None:
    """Refuse an unknown report type before any work is done."""
    if path.suffix.lower() not in suffixes:
        raise ConfigError(f"--report {path}: unknown report type; use a name ending in {', '.join(suffixes)}")


def write_report(report: VerificationReport, path: Path) -> None:
    """Render by suffix and write the file whole."""
    from veriground.reports.html import render_html
    from veriground.reports.markdown import render_markdown

    check_report_path(path)
    write_by_suffix(path, report, render_html, render_markdown)


def write_by_suffix(path: Path, record: R, html: Callable[[R], str], markdown: Callable[[R], str]) -> None:
    """The record's JSON (.json), HTML (.html) or Markdown (any other suffix), written whole."""
    suffix = path.suffix.lower()
    if suffix == ".json":
        content = json_text(record.model_dump(mode="json"))
    else:
        content = html(record) if suffix == ".html" else markdown(record)
    write_whole(path, content)


def write_answer_report(answer: GroundedAnswer, path: Path) -> None:
    """`ask --report`: the answer's JSON, or its self-contained HTML audit page."""
    from veriground.reports.answer_html import render_answer_html

    html = path.suffix.lower() == ".html"
    write_whole(path, render_answer_html(answer) if html else json_text(answer.model_dump(mode="json")))


def write_whole(path: Path, content: str) -> None:
    """Write next to the target and rename, so an interrupted run never leaves half a report."""
    partial = path.with_name(path.name + ".partial")
    try:
        partial.write_text(content, encoding="utf-8")
        partial.replace(path)
    except OSError as err:
        raise InputTextError(
            f"cannot write the report to {path}: {err.strerror or err}; choose a writable path"
        ) from None
