"""The Documents pages: upload a file and see what ingest did, list the documents, open one with its passages, and
one passage by id (the page every reference [i] and evidence heading links to) -> HTML pages.

Uploads go through the same engine job as POST /documents, so the page and the API store a file the same way.
"""

from __future__ import annotations

from html import escape
from typing import Annotated

from fastapi import APIRouter, Form, Request, UploadFile
from fastapi.responses import HTMLResponse

from veriground.errors import VerigroundError
from veriground.reports.html_parts import render_table, text_cells
from veriground.schema import DocumentInfo, IngestReport, Passage, SourceType
from veriground.service import jobs
from veriground.service.api_routes import run_job, store_upload
from veriground.service.engine_worker import EngineContext
from veriground.service.page_shell import alert, document_href, page_response, passage_href
from veriground.service.problems import status_for

router = APIRouter(include_in_schema=False)
INGEST_COLUMNS = ("file", "outcome", "document", "version", "passages", "problem")
DOCUMENT_COLUMNS = ("document", "title", "source", "type", "version", "passages")
OUTCOME_TEXT = {
    "added": "added",
    "new_version": "stored as a new version",
    "unchanged": "unchanged (already stored)",
    "skipped": "skipped",
    "failed": "failed",
    "removed": "removed",
}


def _upload_form() -> str:
    types = "".join(f'<option value="{kind.value}">{kind.value}</option>' for kind in SourceType)
    return (
        '<section class="form" id="upload"><h2>Add a document</h2>'
        "<p>A .txt, .md, .html, .pdf, .tex, .ptx or .jsonl file becomes the document uploads/&lt;file name&gt; and "
        "is searchable at once.</p>"
        '<form method="post" action="/ui/documents" enctype="multipart/form-data" class="work" '
        'data-busy="Reading and indexing the file">'
        '<label for="upload-file">File</label><input id="upload-file" name="file" type="file" required>'
        '<label for="upload-source-type">Source type</label><select id="upload-source-type" name="source_type">'
        f'<option value="">from the file (front matter) or unknown</option>{types}</select>'
        '<label for="upload-source-id">Source id (optional)</label>'
        '<input id="upload-source-id" name="source_id" type="text" maxlength="200" '
        'aria-describedby="upload-source-id-help">'
        '<p class="hint" id="upload-source-id-help">Documents with one source id count as one source, e.g. one '
        "textbook split into chapters.</p>"
        '<div class="check"><input id="upload-replace" name="replace" type="checkbox" value="true">'
        '<label for="upload-replace">Replace: if an earlier upload has this file name, store this file as its next '
        "version</label></div>"
        '<button id="upload-button" type="submit">Upload</button></form></section>'
    )


def _document_rows(documents: list[DocumentInfo]) -> list[list[str]]:
    return [
        [
            f'<td><a href="{escape(document_href(doc.doc_id))}">{escape(doc.doc_id)}</a></td>',
            *text_cells((doc.title or "", doc.source_id, doc.source_type.value)),
            f"<td>{doc.version} of {doc.versions}</td><td>{doc.n_passages}</td>",
        ]
        for doc in documents
    ]


def _documents_section(documents: list[DocumentInfo]) -> str:
    if not documents:
        return '<section id="documents"><h2>Documents</h2><p>The corpus holds no documents yet.</p></section>'
    return (
        f'<section id="documents"><h2>Documents ({len(documents)})</h2>'
        f"{render_table(DOCUMENT_COLUMNS, _document_rows(documents), 'documents')}</section>"
    )


def _ingest_result(report: IngestReport) -> str:
    rows, outcomes = [], []
    for item in report.items:
        doc = f'<a href="{escape(document_href(item.doc_id))}">{escape(item.doc_id)}</a>' if item.doc_id else "none"
        rows.append(
            [
                *text_cells((item.path, OUTCOME_TEXT.get(item.outcome, item.outcome))),
                f"<td>{doc}</td><td>{item.version or ''}</td><td>{item.n_passages}</td>",
                *text_cells((item.problem or "",)),
            ]
        )
        outcomes.append(f' data-outcome="{escape(item.outcome)}"')
    counts = (
        f"{report.added} added, {report.new_version} new version(s), {report.unchanged} unchanged, "
        f"{report.skipped} skipped, {report.failed} failed; {report.passages_indexed:,} passages now searchable."
    )
    return (
        f'<section id="ingest-result" role="status"><h2>Upload result</h2><p>{escape(counts)}</p>'
        f"{render_table(INGEST_COLUMNS, rows, 'ingest', row_attributes=outcomes)}</section>"
    )


def _corpus_page(documents: list[DocumentInfo], before: str = "", *, status: int = 200) -> HTMLResponse:
    body = f"<h1>Documents</h1>{before}{_upload_form()}{_documents_section(documents)}"
    return page_response("Documents", body, status=status)


def _error(err: VerigroundError) -> tuple[int, str]:
    status, heading = status_for(err)
    return status, alert(heading, status, str(err))


@router.get("/corpus", response_class=HTMLResponse)
async def corpus_page(request: Request) -> HTMLResponse:
    try:
        documents = await run_job(request, jobs.documents)
    except VerigroundError as err:
        status, shown = _error(err)
        return page_response("Documents", f"<h1>Documents</h1>{shown}", status=status)
    return _corpus_page(documents)


@router.post("/ui/documents", response_class=HTMLResponse)
async def upload_submit(
    request: Request,
    file: UploadFile | None = None,
    source_type: Annotated[str, Form()] = "",
    source_id: Annotated[str, Form()] = "",
    replace: Annotated[bool, Form()] = False,
) -> HTMLResponse:
    status, before = 200, ""
    try:
        name = jobs.check_upload_name(file.filename if file is not None else None)
        data = await file.read() if file is not None else b""
        report = await store_upload(request, name, data, source_type or None, source_id or None, replace=replace)
        before = _ingest_result(report)
        if report.failed and not (report.added or report.new_version or report.unchanged):
            status = 422
            before = alert("Nothing was ingested", status, "the file could not be read; see the problem below") + before
    except VerigroundError as err:
        status, before = _error(err)
    try:
        documents = await run_job(request, jobs.documents)
    except VerigroundError:
        documents = []
    return _corpus_page(documents, before, status=status)


@router.get("/corpus/document", response_class=HTMLResponse)
async def document_page(request: Request, id: str, version: int | None = None) -> HTMLResponse:  # noqa: A002
    def read(ctx: EngineContext) -> tuple[DocumentInfo, list[Passage]]:
        info = ctx.store.document(id, version)
        return info, ctx.store.passages_of(info.doc_id, info.version)

    try:
        info, passages = await run_job(request, read)
    except VerigroundError as err:
        status, shown = _error(err)
        return page_response("Document", f"<h1>Document</h1>{shown}", status=status)
    return page_response(info.title or info.doc_id, _document_body(info, passages))


def _document_body(info: DocumentInfo, passages: list[Passage]) -> str:
    current = ' aria-current="page"'
    versions = " ".join(
        f'<a href="{escape(document_href(info.doc_id, n))}"{current if n == info.version else ""}>{n}</a>'
        for n in range(1, info.versions + 1)
    )
    facts = "".join(
        f"<dt>{label}</dt><dd>{value}</dd>"
        for label, value in (
            ("Document id", escape(info.doc_id)),
            ("Title", escape(info.title or "none")),
            ("Version", f"{info.version} of {info.versions}: {versions}"),
            ("Source", f"{escape(info.source_id)} ({escape(info.source_type.value)})"),
            ("Loader", escape(info.loader)),
            ("SHA-256", f"<code>{escape(info.sha256)}</code>"),
            ("Characters", f"{info.n_chars:,}"),
        )
    )
    if info.deleted:
        listing = "<p>This version removed the document; older versions stay readable above.</p>"
    elif not passages:
        listing = "<p>No passages.</p>"
    else:
        items = "".join(
            f'<li id="p-{escape(passage.passage_id.rpartition("#")[2])}" value="{passage.ordinal + 1}">'
            f'<a class="passage-link" href="{escape(passage_href(passage.passage_id))}">'
            f"{escape(passage.passage_id)}</a> "
            f'<span class="kind">{escape(passage.kind)}</span><blockquote>{escape(passage.text)}</blockquote></li>'
            for passage in passages
        )
        listing = f'<ol class="passages">{items}</ol>'
    return (
        f"<h1>{escape(info.title or info.doc_id)}</h1><dl>{facts}</dl>"
        f'<section id="passages"><h2>Passages ({len(passages)})</h2>{listing}</section>'
        '<p><a href="/corpus">All documents</a></p>'
    )


@router.get("/corpus/passage", response_class=HTMLResponse)
async def passage_page(request: Request, id: str) -> HTMLResponse:  # noqa: A002
    def read(ctx: EngineContext) -> tuple[Passage, DocumentInfo, list[Passage]]:
        passage = ctx.store.passage(id)
        return (
            passage,
            ctx.store.document(passage.doc_id, passage.version),
            ctx.store.passages_of(passage.doc_id, passage.version),
        )

    try:
        passage, info, siblings = await run_job(request, read)
    except VerigroundError as err:
        status, shown = _error(err)
        return page_response("Passage", f"<h1>Passage</h1>{shown}", status=status)
    return page_response(f"Passage {passage.passage_id}", _passage_body(passage, info, siblings))


def _passage_body(passage: Passage, info: DocumentInfo, siblings: list[Passage]) -> str:
    anchor = passage.passage_id.rpartition("#")[2]
    in_document = f"{document_href(passage.doc_id, passage.version)}#p-{anchor}"
    place = next((n for n, sibling in enumerate(siblings) if sibling.passage_id == passage.passage_id), None)
    steps = []
    if place is not None and place > 0:
        steps.append(f'<a rel="prev" href="{escape(passage_href(siblings[place - 1].passage_id))}">Previous</a>')
    if place is not None and place + 1 < len(siblings):
        steps.append(f'<a rel="next" href="{escape(passage_href(siblings[place + 1].passage_id))}">Next</a>')
    facts = "".join(
        f"<dt>{label}</dt><dd>{value}</dd>"
        for label, value in (
            ("Passage id", f'<code id="passage-id">{escape(passage.passage_id)}</code>'),
            ("Document", f'<a href="{escape(in_document)}">{escape(info.title or passage.doc_id)}</a> '
                         f"({escape(passage.doc_id)}, version {passage.version} of {info.versions})"),
            ("Source", f"{escape(passage.source_id)} ({escape(passage.source_type.value)})"),
            ("Kind", escape(passage.kind)),
            ("Characters", f"{passage.char_start}-{passage.char_end} of the document's text"),
            *((("Page", str(passage.page)),) if passage.page is not None else ()),
        )
    )  # fmt: skip
    return (
        f'<h1>Passage</h1><blockquote id="passage-text" class="passage">{escape(passage.text)}</blockquote>'
        f"<dl>{facts}</dl>" + (f'<nav class="steps" aria-label="Passages">{"".join(steps)}</nav>' if steps else "")
    )
