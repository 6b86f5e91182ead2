"""The web page: server-rendered forms (check a text, ask a question, give the token) -> HTML result pages.

Results embed the same HTML views as the exported audit report; a little plain JS (static/page.js) opens a
claim's evidence when its row in the trace or the inspector is clicked. Every user string is escaped, and no page
carries inline script or style (the Content-Security-Policy forbids both): the report's style is served as
/static/report.css, the API docs' start-up code as /static/docs.js.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from veriground.errors import InputTextError, VerigroundError
from veriground.schema import QARequest
from veriground.service import jobs
from veriground.service.access import TOKEN_COOKIE
from veriground.service.admission import answer_units, check_text_limits, verify_units
from veriground.service.api_routes import run_job
from veriground.service.cancellation import ServerBusyError, whole_seconds
from veriground.service.exports import render_export
from veriground.service.problems import engine_retry_after_s, status_for
from veriground.service.request_log import answer_fields, report_fields

STATIC_DIR = Path(__file__).parent / "static"
router = APIRouter(include_in_schema=False)
EXAMPLE_TEXT = (
    "Kinetic energy is the energy an object has because of its motion. "
    "The kinetic energy of an object of mass m moving at speed v is one half m v squared."
)
TextField = Annotated[str, Form()]
SERVER_INPUT_LIMIT_HINT = "VERIGROUND_VERIFICATION__MAX_INPUT_CHARS on the server"


def _page(title: str, body: str, *, status: int = 200, retry_after_s: float = 1.0) -> HTMLResponse:
    html = (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)} · veriground</title>\n"
        '<link rel="stylesheet" href="/static/report.css">\n'
        '<link rel="stylesheet" href="/static/page.css">\n<script src="/static/page.js" defer></script>\n'
        "</head>\n<body>\n"
        '<header class="site"><a class="brand" href="/">veriground</a><nav aria-label="Main">'
        '<a href="/">Check a text</a><a href="/ask">Ask a question</a><a href="/docs">API</a></nav></header>\n'
        f"<main>\n{body}\n</main>\n</body>\n</html>\n"
    )
    headers = {"Retry-After": str(whole_seconds(retry_after_s))} if status == 503 else None
    return HTMLResponse(html, status_code=status, headers=headers)


def _verify_form(text: str = "") -> str:
    return (
        '<section class="form"><h1>Check a text</h1>'
        "<p>Paste AI-written text (or upload a .txt / .md file). Each claim is checked against the corpus and "
        "gets a verdict, the rule that decided it and the passage behind it.</p>"
        '<form method="post" action="/ui/verify" enctype="multipart/form-data" class="work">'
        '<label for="text">Text to check</label>'
        f'<textarea id="text" name="text" rows="8" placeholder="{escape(EXAMPLE_TEXT)}">{escape(text)}</textarea>'
        '<label for="file">or a file</label><input id="file" name="file" type="file" accept=".txt,.md,.markdown">'
        '<button id="verify-button" type="submit">Verify</button></form></section>'
    )


def _ask_form(query: str = "", mode: str = "brief") -> str:
    options = "".join(
        f'<option value="{value}"{" selected" if value == mode else ""}>{value}</option>'
        for value in ("brief", "detailed")
    )
    return (
        '<section class="form"><h1>Ask a question</h1>'
        "<p>The answer comes only from the corpus, with a citation on every sentence, or the page says why it "
        "abstains.</p>"
        '<form method="post" action="/ui/ask" class="work">'
        f'<label for="query">Question</label><input id="query" name="query" type="text" required '
        f'maxlength="2000" value="{escape(query)}" placeholder="What is kinetic energy?">'
        f'<label for="mode">Answer length</label><select id="mode" name="mode">{options}</select>'
        '<button id="ask-button" type="submit">Ask</button></form></section>'
    )


def _error_page(request: Request, title: str, err: VerigroundError, form: str) -> HTMLResponse:
    status, heading = status_for(err)
    retry = err.retry_after_s if isinstance(err, ServerBusyError) else engine_retry_after_s(request)
    return _page(title, _alert(heading, status, str(err)) + form, status=status, retry_after_s=retry)


def _alert(title: str, status: int, message: str) -> str:
    return f'<div class="error" role="alert"><strong>{escape(title)}</strong> ({status}): {escape(message)}</div>'


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
async def verify_page() -> HTMLResponse:
    return _page("Check a text", _verify_form())


@router.get("/ask", response_class=HTMLResponse)
async def ask_page() -> HTMLResponse:
    return _page("Ask a question", _ask_form())


@router.post("/ui/verify", response_class=HTMLResponse)
async def verify_submit(
    request: Request, text: Annotated[str, Form()] = "", file: UploadFile | None = None
) -> HTMLResponse:
    from veriground.reports.html import render_verification_body
    from veriground.text_input import decode_text

    config = request.app.state.config
    try:
        if file is not None and file.filename:
            limit = config.verification.max_input_chars
            text = decode_text(await file.read(), file.filename, limit, limit_hint=SERVER_INPUT_LIMIT_HINT)
        if not text.strip():
            raise InputTextError("there is no text to check; paste a text or choose a file")
        units = verify_units(check_text_limits(text, config), config)
        report = await run_job(request, lambda ctx: jobs.verify(ctx, text), units=units)
    except VerigroundError as err:
        return _error_page(request, "Check a text", err, _verify_form(text))
    request.state.log_fields.update(report_fields(report, text=text, log_text=config.service.log_text))
    export_id = request.app.state.exports.put(report)
    result = f'<section id="result">{_exports(export_id)}{render_verification_body(report)}</section>'
    return _page("Verification", _verify_form(text) + result)


@router.post("/ui/ask", response_class=HTMLResponse)
async def ask_submit(request: Request, query: TextField = "", mode: TextField = "brief") -> HTMLResponse:
    from veriground.reports.answer_html import render_answer_body

    try:
        body = QARequest.model_validate({"query": query.strip() or " ", "mode": mode})
        units = answer_units(request.app.state.config, body.mode)
        answer = await run_job(request, lambda ctx: jobs.answer(ctx, body), units=units)
    except VerigroundError as err:
        return _error_page(request, "Ask a question", err, _ask_form(query, mode))
    except ValueError as err:  # pydantic: an unknown mode or an over-long question
        return _page("Ask a question", _alert("Input cannot be used", 422, str(err)) + _ask_form(query), status=422)
    request.state.log_fields.update(answer_fields(answer, log_text=request.app.state.config.service.log_text))
    export_id = request.app.state.exports.put(answer)
    result = f'<section id="result">{_exports(export_id)}{render_answer_body(answer)}</section>'
    return _page("Answer", _ask_form(query, mode) + result)


@router.get("/exports/{export_id}.{fmt}")
async def export(export_id: str, fmt: str, request: Request) -> Response:
    if fmt not in ("html", "json"):
        raise InputTextError(f"export format {fmt!r} is not html or json")
    record = request.app.state.exports.get(export_id)
    media = "text/html; charset=utf-8" if fmt == "html" else "application/json"
    disposition = f'attachment; filename="veriground-{export_id}.{fmt}"'
    return Response(render_export(record, fmt), media_type=media, headers={"Content-Disposition": disposition})


@router.get("/login", response_class=HTMLResponse)
async def login_page() -> HTMLResponse:
    return _page("API token", _login_form())


@router.post("/login")
async def login_submit(request: Request, token: TextField = "") -> Response:
    from veriground.service.access import tokens_match

    expected = request.app.state.token
    if expected is None:
        return RedirectResponse("/", status_code=303)
    if not tokens_match(token.strip(), expected):
        return _page("API token", _alert("Wrong token", 401, "try again") + _login_form(), status=401)
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
