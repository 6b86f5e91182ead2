"""Readable terminal views of records (rich): ingest progress, search hits, documents, passages."""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from veriground.schema import DocumentInfo, EvidenceChunk, IngestItem, IngestReport, Passage

console = Console(highlight=False, soft_wrap=True)
error_console = Console(stderr=True, highlight=False, soft_wrap=True)
SNIPPET_CHARS = 220

_OUTCOME_STYLE = {
    "added": "green",
    "new_version": "yellow",
    "unchanged": "dim",
    "skipped": "dim yellow",
    "failed": "red",
    "removed": "magenta",
}


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def print_ingest_item(item: IngestItem) -> None:
    if item.outcome in ("failed", "skipped"):
        target = error_console if item.outcome == "failed" else console
        target.print(Text(f"{item.outcome:<11} {item.problem}", style=_OUTCOME_STYLE[item.outcome]))
        return
    detail = f"{item.doc_id} v{item.version}, {item.n_passages} passages"
    if item.outcome == "removed":
        detail = f"{item.doc_id} v{item.version}: a tombstone; its file is gone"
    if item.outcome == "new_version":
        detail += f", {item.passages_changed} changed"
    console.print(Text(f"{item.outcome:<11} {item.path}  ({detail})", style=_OUTCOME_STYLE[item.outcome]))


def print_ingest_summary(report: IngestReport, corpus_dir: Path) -> None:
    from veriground.corpus.ingest import is_meta_file  # loaders (bs4, lxml, pypdf) only when an ingest is shown

    meta_files = sum(item.outcome == "skipped" and is_meta_file(Path(item.path).name) for item in report.items)
    skipped_note = (
        f" ({meta_files} licence/provenance {'file' if meta_files == 1 else 'files'}: --include-meta-files ingests "
        f"{'it' if meta_files == 1 else 'them'})"
        if meta_files
        else ""
    )
    console.print(
        f"{report.added} added, {report.new_version} new versions, {report.unchanged} unchanged, "
        f"{report.skipped} skipped{skipped_note}, {report.failed} failed"
        + (f", {report.removed} removed" if report.removed else "")
        + f"; {report.passages_indexed} passages indexed in {corpus_dir}"
    )


_SCORES = (
    ("bm25", "score_bm25", 2),
    ("dense", "score_dense", 3),
    ("hybrid", "score_hybrid", 4),
    ("rerank", "score_rerank", 3),
)


def score_text(chunk: EvidenceChunk) -> str:
    """The scores a chunk has, by name (a dense hit has no bm25 score, a bm25 hit no dense one)."""
    parts = [
        f"{label} {getattr(chunk, field):.{digits}f}"
        for label, field, digits in _SCORES
        if getattr(chunk, field) is not None
    ]
    return " · ".join(parts) or "cited"


def print_search_results(query: str, chunks: list[EvidenceChunk]) -> None:
    """One block per hit; the passage id is printed whole so it can be copied and cited."""
    console.rule(f"search: {query}")
    if not chunks:
        console.print(f"No passage matches {query!r}. Try other words, or ingest more documents.")
        return
    for chunk in chunks:
        where = f"{chunk.version.rpartition('@')[2]} chars {chunk.char_start}-{chunk.char_end}"
        if chunk.page is not None:
            where += f" page {chunk.page}"
        console.print(
            Text.assemble((f"{chunk.rank}. ", "bold"), (chunk.passage_id, "bold cyan"), no_wrap=True, overflow="ignore")
        )
        console.print(Text(f"   {score_text(chunk)} · {chunk.source} · {where}", style="dim"))
        console.print(Text("   " + snippet(chunk.text)))


_DOCUMENT_COLUMNS = ("doc_id", "ver", "source_id", "type", "passages", "title")
_UNBOUNDED_WIDTH = 100_000
TITLE_CHARS = 60  # the title is the one column a narrow table shortens; ids are never cut


def print_documents(documents: list[DocumentInfo], *, wide: bool = False) -> None:
    """Every document with its full id: a table when it fits the terminal (or `wide`), else one block each.

    A document id is what `corpus show`/`remove` take, so it is never truncated: a table too wide for the
    terminal turns into blocks whose first line is the id alone."""
    if not documents:
        console.print("The corpus is empty: run `veriground ingest PATH`.")
        return
    table = _documents_table(documents, title_chars=None if wide else TITLE_CHARS)
    if wide:
        Console(highlight=False, width=_natural_width(table)).print(table)
        return
    if _natural_width(table) <= console.width:
        console.print(table)
        return
    console.print(f"{len(documents)} documents (`corpus list --wide` for a table, `--json` for records)")
    for doc in documents:
        console.print(Text(doc.doc_id, style="bold cyan"), no_wrap=True, overflow="ignore", crop=False)
        console.print(
            Text(
                f"   v{_version_text(doc)} · {doc.source_id} · {doc.source_type.value} · {doc.n_passages} passages"
                + (f" · {snippet(doc.title, TITLE_CHARS)}" if doc.title else ""),
                style="dim",
            )
        )


def _natural_width(table: Table) -> int:
    """The width `table` needs with nothing cut (rich's measurement, unclamped by the terminal)."""
    return Measurement.get(console, console.options.update_width(_UNBOUNDED_WIDTH), table).maximum


def _version_text(doc: DocumentInfo) -> str:
    return f"{doc.version} (removed)" if doc.deleted else str(doc.version)


def _documents_table(documents: list[DocumentInfo], *, title_chars: int | None) -> Table:
    table = Table(title=f"{len(documents)} documents")
    for column in _DOCUMENT_COLUMNS:
        table.add_column(column, no_wrap=True, overflow="ignore")
    for doc in documents:
        title = doc.title or ""
        table.add_row(
            doc.doc_id,
            _version_text(doc),
            doc.source_id,
            doc.source_type.value,
            str(doc.n_passages),
            " ".join(title.split()) if title_chars is None else snippet(title, title_chars),
        )
    return table


def print_document(document: DocumentInfo, passages: list[Passage]) -> None:
    console.print(
        f"[bold]{document.doc_id}[/bold] v{document.version} of {document.versions}  ({document.title or 'untitled'})"
    )
    console.print(
        f"source: {document.source_key}  source_id={document.source_id}  "
        f"type={document.source_type.value}  loader={document.loader}"
    )
    if document.deleted:
        console.print(
            f"removed in this version (a tombstone): no text, no passages; "
            f"`corpus show {document.doc_id} --version {document.version - 1}` shows the last text"
        )
    console.print(f"sha256: {document.sha256}  chars: {document.n_chars}")
    for passage in passages:
        console.print(
            Text(f"{passage.passage_id}  [{passage.char_start}:{passage.char_end}]  {passage.kind}", style="cyan")
        )
        console.print("  " + snippet(passage.text, 160))


def print_removed(doc_id: str, version: int, removed_now: bool) -> None:
    """One line per `corpus remove` argument."""
    if removed_now:
        console.print(f"removed    {doc_id}  (v{version} is a tombstone; --version {version - 1} shows the last text)")
    else:
        console.print(f"unchanged  {doc_id}  (already removed in v{version})")


def print_passage(passage: Passage) -> None:
    where = f"{passage.doc_id} v{passage.version}, paragraph {passage.ordinal}, "
    where += f"chars {passage.char_start}-{passage.char_end}"
    if passage.page is not None:
        where += f", page {passage.page}"
    console.print(Text(passage.passage_id, style="bold cyan"))
    console.print(f"{where}; kind {passage.kind}; source {passage.source_id} ({passage.source_type.value})")
    sys.stdout.flush()
    console.print(Text(passage.text))
