"""The web page's work forms: check a text (with a domain profile), ask a question (with filters and a mode), give
the token -> HTML result pages. The Documents pages (upload, browse, passage view) are in corpus_pages.py.

Results embed the same HTML views as the exported audit report, with passage ids linked to the passage view; a
little plain JS (static/page.js) opens a claim's evidence when its row in the trace or the inspector is followed and
shows a running job's elapsed time. Every user string is escaped, and no page carries inline script or style (the
Content-Security-Policy forbids both): the report's style is served as /static/report.css.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Annotated

from fastapi import APIRouter, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from veriground.errors import InputTextError, VerigroundError
from veriground.schema import QARequest, SourceType
from veriground.service import jobs
from veriground.service.access import TOKEN_COOKIE
from veriground.service.admission import answer_units, check_text_limits, verify_units
from veriground.service.api_routes import run_job, worker
from veriground.service.cancellation import ServerBusyError
from veriground.service.exports import ExportFormat, render_export
from veriground.service.facets import CorpusFacets
from veriground.service.page_shell import STATIC_DIR, alert, page_response, passage_href
from veriground.service.problems import engine_retry_after_s, status_for
from veriground.service.request_log import answer_fields, report_fields

__all__ = ["STATIC_DIR", "router"]

router = APIRouter(include_in_schema=False)
EXAMPLE_TEXT = (
    "Kinetic energy is the energy an object has because of its motion. "
    "The kinetic energy of an object of mass m moving at speed v is one half m v squared."
)
TextField = Annotated[str, Form()]
SERVER_INPUT_LIMIT_HINT = "VERIGROUND_VERIFICATION__MAX_INPUT_CHARS on the server"
# The Ask form's filter fields -> the `ask --filter` keys (answering/pipeline.py FILTER_KEYS).
FILTER_FIELDS = {"filter_doc": "doc", "filter_source": "source", "filter_source_type": "source_type"}


def _options(choices: list[tuple[str, str]], selected: str) -> str:
    return "".join(
        f'<option value="{escape(value)}"{" selected" if value == selected else ""}>{escape(label)}</option>'
        for value, label in choices
    )


def _verify_form(text: str = "", domain: str = "", facets: CorpusFacets | None = None) -> str:
    from veriground.domains.profiles import PROFILES

    domains = [("", "Server default")] + [(name, profile.display_name) for name, profile in PROFILES.items()]
    described = "".join(
        f"<li><strong>{escape(profile.display_name)}</strong>: {escape(profile.description)}</li>"
        for profile in PROFILES.values()
    )
    suggestion = (
        f'<p class="hint" id="domain-suggestion">Suggested for this corpus: {escape(facets.suggested_domain)} '
        f"({escape(facets.suggestion_reason)}).</p>"
        if facets is not None
        else ""
    )
    return (
        '<section class="form"><h1>Check a text</h1>'
        "<p>Paste AI-written text (or upload a .txt / .md file). Each claim is checked against the corpus and "
        "gets a verdict, a plain explanation, the rule that decided it and the passage behind it.</p>"
        '<form method="post" action="/ui/verify" enctype="multipart/form-data" class="work" '
        'data-busy="Checking each claim against the corpus">'
        '<label for="text">Text to check</label>'
        f'<textarea id="text" name="text" rows="8" placeholder="{escape(EXAMPLE_TEXT)}">{escape(text)}</textarea>'
        '<label for="file">or a file</label><input id="file" name="file" type="file" accept=".txt,.md,.markdown">'
        '<label for="domain">Domain profile</label>'
        f'<select id="domain" name="domain" aria-describedby="domain-help">{_options(domains, domain)}</select>'
        f'<details id="domain-help" class="hint"><summary>What the profiles check</summary><ul>{described}</ul>'
        f"</details>{suggestion}"
        '<button id="verify-button" type="submit">Verify</button></form></section>'
    )


def _ask_form(
    query: str = "", mode: str = "brief", filters: Mapping[str, str] | None = None, facets: CorpusFacets | None = None
) -> str:
    filters = filters or {}
    modes = _options([("brief", "brief"), ("detailed", "detailed")], mode)
    types = _options(
        [("", "any type")] + [(kind.value, kind.value) for kind in SourceType], filters.get("source_type", "")
    )
    folders = "".join(f'<option value="{escape(v)}"></option>' for v in (facets.folders if facets else ()))
    sources = "".join(f'<option value="{escape(v)}"></option>' for v in (facets.sources if facets else ()))
    return (
        '<section class="form"><h1>Ask a question</h1>'
        "<p>The answer comes only from the corpus, with a citation on every sentence, or the page says why it "
        "abstains.</p>"
        '<form method="post" action="/ui/ask" class="work" data-busy="Searching the corpus and checking the answer">'
        f'<label for="query">Question</label><input id="query" name="query" type="text" required '
        f'maxlength="2000" value="{escape(query)}" placeholder="What is kinetic energy?">'
        f'<label for="mode">Answer length</label><select id="mode" name="mode">{modes}</select>'
        '<fieldset class="filters"><legend>Search only in (optional)</legend>'
        '<label for="filter_doc">Folder or document id</label>'
        f'<input id="filter_doc" name="filter_doc" type="text" list="folder-choices" '
        f'value="{escape(filters.get("doc", ""))}" placeholder="uploads" aria-describedby="filter-doc-help">'
        f'<datalist id="folder-choices">{folders}</datalist>'
        '<p class="hint" id="filter-doc-help">A document id, or a folder: every document whose id starts with it.</p>'
        '<label for="filter_source">Source</label>'
        f'<input id="filter_source" name="filter_source" type="text" list="source-choices" '
        f'value="{escape(filters.get("source", ""))}"><datalist id="source-choices">{sources}</datalist>'
        f'<label for="filter_source_type">Source type</label>'
        f'<select id="filter_source_type" name="filter_source_type">{types}</select></fieldset>'
        '<button id="ask-button" type="submit">Ask</button></form></section>'
    )


def _error_page(request: Request, title: str, err: VerigroundError, form: str) -> HTMLResponse:
    status, heading = status_for(err)
    retry = err.retry_after_s if isinstance(err, ServerBusyError) else engine_retry_after_s(request)
    return page_response(title, alert(heading, status, str(err)) + form, status=status, retry_after_s=retry)


def _exports(export_id: str) -> str:
    return (
        '<nav class="exports" aria-label="Export the audit report">'
        f'<a id="export-html" href="/exports/{export_id}.html" download>Download audit report (HTML)</a>'
        f'<a id="export-json" href="/exports/{export_id}.json" download>Download audit report (JSON)</a></nav>'
    )


@router.get("/static/report.css")
async def report_css() -> Response:
    """The audit report's style (reports.html.REPORT_STYLE), as a file so the pages need no inline <style>."""
    from veriground.reports.html import REPORT_STYLE

    return Response(REPORT_STYLE, media_type="text/css; charset=utf-8")


@router.get("/", response_class=HTMLResponse)
async def verify_page(request: Request) -> HTMLResponse:
    return page_response("Check a text", _verify_form(facets=worker(request).facets))


@router.get("/ask", response_class=HTMLResponse)
async def ask_page(request: Request) -> HTMLResponse:
    return page_response("Ask a question", _ask_form(facets=worker(request).facets))


@router.post("/ui/verify", response_class=HTMLResponse)
async def verify_submit(
    request: Request, text: TextField = "", domain: TextField = "", file: UploadFile | None = None
) -> HTMLResponse:
    from veriground.domains.profiles import get_profile
    from veriground.reports.html import render_verification_body
    from veriground.text_input import decode_text

    config = request.app.state.config
    try:
        if file is not None and file.filename:
            limit = config.verification.max_input_chars
            text = decode_text(await file.read(), file.filename, limit, limit_hint=SERVER_INPUT_LIMIT_HINT)
        if not text.strip():
            raise InputTextError("there is no text to check; paste a text or choose a file")
        chosen = get_profile(domain.strip()).name if domain.strip() else None
        units = verify_units(check_text_limits(text, config), config)
        report = await run_job(request, lambda ctx: jobs.verify(ctx, text, domain=chosen), units=units)
    except VerigroundError as err:
        return _error_page(request, "Check a text", err, _verify_form(text, domain))
    request.state.log_fields.update(report_fields(report, text=text, log_text=config.service.log_text))
    export_id = request.app.state.exports.put(report)
    body = render_verification_body(report, passage_href)
    result = f'<section id="result">{_exports(export_id)}{body}</section>'
    return page_response("Verification", _verify_form(text, domain) + result)


@router.post("/ui/ask", response_class=HTMLResponse)
async def ask_submit(
    request: Request,
    query: TextField = "",
    mode: TextField = "brief",
    filter_doc: TextField = "",
    filter_source: TextField = "",
    filter_source_type: TextField = "",
) -> HTMLResponse:
    from veriground.reports.answer_html import render_answer_body

    fields = {"filter_doc": filter_doc, "filter_source": filter_source, "filter_source_type": filter_source_type}
    filters = {FILTER_FIELDS[name]: value.strip() for name, value in fields.items() if value.strip()}
    try:
        if filters.get("source_type", "unknown") not in {kind.value for kind in SourceType}:
            valid = ", ".join(kind.value for kind in SourceType)
            raise InputTextError(f"source type {filters['source_type']!r} is not one of: {valid}")
        body = QARequest.model_validate({"query": query.strip() or " ", "mode": mode, "filters": filters})
        units = answer_units(request.app.state.config, body.mode)
        answer = await run_job(request, lambda ctx: jobs.answer(ctx, body), units=units)
    except VerigroundError as err:
        return _error_page(request, "Ask a question", err, _ask_form(query, mode, filters))
    except ValueError as err:  # pydantic: an unknown mode or an over-long question
        form = _ask_form(query, "brief", filters)
        return page_response("Ask a question", alert("Input cannot be used", 422, str(err)) + form, status=422)
    request.state.log_fields.update(answer_fields(answer, log_text=request.app.state.config.service.log_text))
    export_id = request.app.state.exports.put(answer)
    result = f'<section id="result">{_exports(export_id)}{render_answer_body(answer, passage_href)}</section>'
    return page_response("Answer", _ask_form(query, mode, filters) + result)


@router.get("/exports/{export_id}.{fmt}")
async def export(export_id: str, fmt: str, request: Request) -> Response:
    if fmt not in ("html", "json"):
        raise InputTextError(f"export format {fmt!r} is not html or json")
    record = request.app.state.exports.get(export_id)
    media = "text/html; charset=utf-8" if fmt == "html" else "application/json"
    disposition = f'attachment; filename="veriground-{export_id}.{fmt}"'
    kind: ExportFormat = "html" if fmt == "html" else "json"
    return Response(render_export(record, kind), media_type=media, headers={"Content-Disposition": disposition})


@router.get("/login", response_class=HTMLResponse)
async def login_page() -> HTMLResponse:
    return page_response("API token", _login_form())


@router.post("/login")
async def login_submit(request: Request, token: TextField = "") -> Response:
    from veriground.service.access import tokens_match

    expected = request.app.state.token
    if expected is None:
        return RedirectResponse("/", status_code=303)
    if not tokens_match(token.strip(), expected):
        return page_response("API token", alert("Wrong token", 401, "try again") + _login_form(), status=401)
    response = RedirectResponse("/", status_code=303)
    response.set_cookie(TOKEN_COOKIE, token.strip(), httponly=True, samesite="strict")
    return response


def _login_form() -> str:
    return (
        '<section class="form"><h1>API token</h1><p>This server needs its API token (the value of the '
        "environment variable that service.api_token_env names on the server).</p>"
        '<form method="post" action="/login" class="work"><label for="token">Token</label>'
        '<input id="token" name="token" type="password" autocomplete="current-password" required>'
        '<button type="submit">Continue</button></form></section>'
    )
