"""Report files: a VerificationReport (.json, .md, .html) or a GroundedAnswer (.json, .html) and a path -> the
rendered file, written whole or not at all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from veriground.errors import ConfigError, InputTextError
from veriground.schema import GroundedAnswer, VerificationReport

REPORT_SUFFIXES = (".md", ".html", ".json")


def json_text(data: Any) -> str:
    """Stable JSON: sorted keys, so the same records always give the same bytes."""
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def check_report_path(path: Path) -> None:
    """Refuse an unknown report type before any work is done."""
    if path.suffix.lower() not in REPORT_SUFFIXES:
        raise ConfigError(f"--report {path}: unknown report type; use a name ending in {', '.join(REPORT_SUFFIXES)}")


def write_report(report: VerificationReport, path: Path) -> None:
    """Render by suffix and write the file whole."""
    from veriground.reports.html import render_html
    from veriground.reports.markdown import render_markdown

    check_report_path(path)
    suffix = path.suffix.lower()
    if suffix == ".json":
        content = json_text(report.model_dump(mode="json"))
    else:
        content = render_html(report) if suffix == ".html" else render_markdown(report)
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
