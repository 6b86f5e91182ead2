"""Critic mode over HTTP: `POST /critic` (a CriticRequest -> the CriticReport `veriground critic --json` prints)
and the "Critique a draft" page at /critic/page (the draft with each finding's span highlighted, a label legend,
a finding's rationale on click via static/critic.js, and HTML/JSON audit exports).

The work runs on the engine thread like every other job; L3 is checked against the served corpus.
"""

from __future__ import annotations

import hashlib
import threading
from html import escape
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, Response

from veriground.errors import InputTextError, VerigroundError
from veriground.schema import CriticReport, CriticRequest
from veriground.service.engine_worker import EngineContext
from veriground.service.exports import RecordShelf

router = APIRouter()
ERRORS: dict[int | str, dict[str, Any]] = {  # FastAPI's `responses` type
    401: {"description": "API token missing or wrong"},
    413: {"description": "Over service.max_body_mb or verification.max_input_chars"},
    422: {"description": "Malformed body or a draft with no sentence"},
    503: {"description": "Engine busy (service.max_pending) or a model backend failed"},
}
PAGE_TITLE = "Critique a draft"
EXAMPLE_DRAFT = (
    "Either we adopt the four-day week this quarter or we will lose our best people. "
    "Keeping the five-day week is just the first step toward a culture with no flexibility at all."
)
SERVER_INPUT_LIMIT_HINT = "VERIGROUND_VERIFICATION__MAX_INPUT_CHARS on the server"


def critique(ctx: EngineContext, text: str, tier: int) -> CriticReport:
    """Critic mode on the engine thread: L3 against the served corpus, tier 2 with the configured LLM."""
    from veriground.critic import CriticBackends, corpus_verifier, critique_text

    verify = corpus_verifier(ctx.config, ctx.store, ctx.retriever, ctx.nli)
    backends = CriticBackends(nli=ctx.nli, verify=verify, llm=ctx.llm)
    return critique_text(text, config=ctx.config, backends=backends, tier=tier)


@router.post("/critic", response_model=CriticReport, responses=ERRORS, tags=["critic"])
async def critic(body: CriticRequest, request: Request) -> CriticReport:
    """Label each sentence of a policy draft L1-L6 (loaded language, framing imbalance, unsupported claim, internal
    contradiction, false dilemma, slippery slope), with span, rationale, tier and confidence; tier 2 asks the LLM
    and falls back to tier 1 with a manifest warning."""
    report = await request.app.state.worker.run(lambda ctx: critique(ctx, body.text, body.tier))
    _log(request, report)
    return report


@router.get("/critic/page", response_class=HTMLResponse, include_in_schema=False)
async def critic_page() -> HTMLResponse:
    return _page(_form())


@router.get("/critic/style.css", include_in_schema=False)
async def critic_style() -> Response:
    """The report style plus the critic's label colours, as a file (the CSP forbids inline style)."""
    from veriground.critic.render import CRITIC_STYLE
    from veriground.reports.html_parts import REPORT_STYLE

    return Response(REPORT_STYLE + CRITIC_STYLE, media_type="text/css; charset=utf-8")


@router.post("/critic/page", response_class=HTMLResponse, include_in_schema=False)
async def critic_submit(
    request: Request,
    text: Annotated[str, Form()] = "",
    tier: Annotated[str, Form()] = "1",
    file: UploadFile | None = None,
) -> HTMLResponse:
    from veriground.critic.render import render_critic_body
    from veriground.text_input import decode_text

    config = request.app.state.config
    try:
        if tier not in ("1", "2"):
            raise InputTextError(f"tier must be 1 or 2, got {tier!r}")
        # A browser sends a textarea's line breaks as CRLF (HTML form submission); the draft the user typed has LF,
        # and the spans must index the same text that POST /critic would get.
        text = text.replace("\r\n", "\n")
        if file is not None and file.filename:
            limit = config.verification.max_input_chars
            text = decode_text(await file.read(), file.filename, limit, limit_hint=SERVER_INPUT_LIMIT_HINT)
        if not text.strip():
            raise InputTextError("there is no draft to critique; paste a text or choose a file")
        report = await request.app.state.worker.run(lambda ctx: critique(ctx, text, int(tier)))
    except VerigroundError as err:
        from veriground.service.problems import status_for

        status, title = status_for(err)
        alert = f'<div class="error" role="alert"><strong>{escape(title)}</strong> ({status}): {escape(str(err))}</div>'
        return _page(alert + _form(text, tier), status=status)
    _log(request, report)
    export_id = _shelf(request).put(report)
    exports = (
        '<nav class="exports" aria-label="Export the critique">'
        f'<a id="critic-export-html" href="/critic/exports/{export_id}.html" download>Download critique (HTML)</a>'
        f'<a id="critic-export-json" href="/critic/exports/{export_id}.json" download>Download critique (JSON)</a>'
        "</nav>"
    )
    return _page(_form(text, tier) + f'<section id="result">{exports}{render_critic_body(report)}</section>')


@router.get("/critic/exports/{export_id}.{fmt}", include_in_schema=False)
async def critic_export(export_id: str, fmt: str, request: Request) -> Response:
    from veriground.critic.render import render_critic_html
    from veriground.reports.files import json_text

    if fmt not in ("html", "json"):
        raise InputTextError(f"export format {fmt!r} is not html or json")
    report = _shelf(request).get(export_id)
    content = render_critic_html(report) if fmt == "html" else json_text(report.model_dump(mode="json"))
    media = "text/html; charset=utf-8" if fmt == "html" else "application/json"
    disposition = f'attachment; filename="veriground-{export_id}.{fmt}"'
    return Response(content, media_type=media, headers={"Content-Disposition": disposition})


class CritiqueShelf(RecordShelf[CriticReport]):
    """The page's recent critiques by content id."""

    def __init__(self, capacity: int) -> None:
        super().__init__(capacity, what="critique", redo="critique the draft again")

    def put(self, report: CriticReport) -> str:
        return self.shelve("critique-" + hashlib.sha256(report.model_dump_json().encode()).hexdigest()[:16], report)


_SHELF_LOCK = threading.Lock()


def _shelf(request: Request) -> CritiqueShelf:
    state = request.app.state
    with _SHELF_LOCK:
        if not hasattr(state, "critiques"):
            state.critiques = CritiqueShelf(state.config.service.exports_kept)
        return state.critiques


def _log(request: Request, report: CriticReport) -> None:
    fields = getattr(request.state, "log_fields", None)
    if isinstance(fields, dict):
        fields.update(
            draft_id=report.draft_id,
            critic_labels=list(report.summary.labels),
            critic_findings=len(report.findings),
            critic_tier=report.summary.final_tier,
        )


def _form(text: str = "", tier: str = "1") -> str:
    options = "".join(
        f'<option value="{value}"{" selected" if value == tier else ""}>{label}</option>'
        for value, label in (("1", "tier 1 (offline)"), ("2", "tier 2 (LLM)"))
    )
    return (
        f'<section class="form"><h1>{PAGE_TITLE}</h1>'
        "<p>Paste a policy draft (or upload a .txt / .md file). Each sentence is checked for L1 loaded language, "
        "L2 framing imbalance, L3 unsupported claims (against the corpus), L4 internal contradictions, L5 false "
        "dilemmas and L6 slippery slopes.</p>"
        '<form method="post" action="/critic/page" enctype="multipart/form-data" class="work">'
        '<label for="critic-text">Draft</label>'
        f'<textarea id="critic-text" name="text" rows="8" placeholder="{escape(EXAMPLE_DRAFT)}">{escape(text)}'
        "</textarea>"
        '<label for="critic-file">or a file</label>'
        '<input id="critic-file" name="file" type="file" accept=".txt,.md,.markdown">'
        f'<label for="critic-tier">Tier</label><select id="critic-tier" name="tier">{options}</select>'
        '<button id="critic-button" type="submit">Critique</button></form></section>'
    )


def _page(body: str, *, status: int = 200) -> HTMLResponse:
    """A page with no inline style or script (the server's CSP allows neither): CSS from /critic/style.css."""
    html = (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{PAGE_TITLE} · veriground</title>\n"
        '<link rel="stylesheet" href="/critic/style.css">\n<link rel="stylesheet" href="/static/page.css">\n'
        '<script src="/static/page.js" defer></script>\n<script src="/static/critic.js" defer></script>\n'
        "</head>\n<body>\n"
        '<header class="site"><a class="brand" href="/">veriground</a><nav aria-label="Main">'
        '<a href="/">Check a text</a><a href="/ask">Ask a question</a><a href="/critic/page">Critique a draft</a>'
        '<a href="/docs">API</a></nav></header>\n'
        f"<main>\n{body}\n</main>\n</body>\n</html>\n"
    )
    return HTMLResponse(html, status_code=status)
