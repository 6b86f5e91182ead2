"""Loader cost on hostile inputs (issue 22 items 1 and 7): generated files -> seconds and passages per ingest.

    .venv/bin/python bench/bench_loader_limits.py

Each case is ingested into a fresh corpus in a temporary folder; prints one line per case. Bounded: about ten
seconds on a laptop core. Acceptance: the 150-row table in < 1 s into <= 160 passages, 1000 rows in < 2 s.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from veriground.config import IngestConfig
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore

CASES = {
    "table-150-rows.html": "<table>"
    + "".join(f"<tr><td>row {i} name<td>value {i} with some words" for i in range(150))
    + "</table>",
    "table-1000-rows.html": "<table>" + "<tr><td>" * 1000,  # the input: no text, so "failed: no text"
    "table-1000-rows-text.html": "<table>" + "".join(f"<tr><td>cell {i}" for i in range(1000)),
    "comments-8000.md": "Intro text.\n\n" + "<!--" * 8000,
    "math-brackets-50000.tex": "Some text.\n\n" + "\\[" * 50_000,
    "liquid-8000.md": "Intro text.\n\n" + "{%" * 8000 + "{{" * 8000,
    "nested-divs-5000.html": "<div>" * 5000 + "deep" + "</div>" * 5000,
    "nested-envs-3000.tex": "\\begin{quote}" * 3000 + "deep" + "\\end{quote}" * 3000,
    "nested-ptx-3000.ptx": "<section>" + "<p><em>" * 1500 + "deep" + "</em></p>" * 1500 + "</section>",
}


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        for name, content in CASES.items():
            folder = root / name.replace(".", "-")
            folder.mkdir()
            (folder / name).write_text(content, encoding="utf-8")
            with CorpusStore(root / f"corpus-{name}") as store:
                started = time.perf_counter()
                report = ingest_paths([folder], store, IngestConfig())
                seconds = time.perf_counter() - started
            item = report.items[0]
            outcome = item.outcome if item.problem is None else f"{item.outcome}: {item.problem.split(': ', 1)[-1]}"
            print(f"{name:26s} {len(content):>8,d} bytes  {seconds:6.2f} s  {item.n_passages:>5d} passages  {outcome}")


if __name__ == "__main__":
    main()
