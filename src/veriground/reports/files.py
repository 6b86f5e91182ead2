"""Report files: a VerificationReport and a path (.json, .md or .html) -> the rendered file, written whole or
not at all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from veriground.errors import ConfigError, InputTextError
from veriground.schema import VerificationReport

REPORT_SUFFIXES = (".md", ".html", ".json")


def json_text(data: Any) -> str:
    """Stable JSON: sorted keys, so the same records always give the same bytes."""
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def check_report_path(path: Path) -> None:
    """Refuse an unknown report type before any work is done."""
    if path.suffix.lower() not in REPORT_SUFFIXES:
        raise ConfigError(f"--report {path}: unknown report type; use a name ending in {', '.join(REPORT_SUFFIXES)}")


def write_report(report: VerificationReport, path: Path) -> None:
    """Render by suffix, write next to the target and rename, so an interrupted run never leaves half a report."""
    from veriground.reports.html import render_html
    from veriground.reports.markdown import render_markdown

    check_report_path(path)
    suffix = path.suffix.lower()
    if suffix == ".json":
        content = json_text(report.model_dump(mode="json"))
    else:
        content = render_html(report) if suffix == ".html" else render_markdown(report)
    partial = path.with_name(path.name + ".partial")
    try:
        partial.write_text(content, encoding="utf-8")
        partial.replace(path)
    except OSError as err:
        raise InputTextError(
            f"cannot write the report to {path}: {err.strerror or err}; choose a writable path"
        ) from None
