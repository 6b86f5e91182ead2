"""The frame every web page shares: title + body HTML -> a whole page (header, navigation, skip link) as a response.

No page carries inline script or style (the Content-Security-Policy forbids both): styles are /static/report.css and
/static/page.css, behaviour is /static/page.js. Every user string a page shows goes through `html.escape`.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from urllib.parse import quote

from fastapi.responses import HTMLResponse

from veriground.service.cancellation import whole_seconds

STATIC_DIR = Path(__file__).parent / "static"
NAV_LINKS = (
    ("/", "Check a text"),
    ("/ask", "Ask a question"),
    ("/corpus", "Documents"),
    ("/critic/page", "Critique a draft"),
    ("/docs", "API"),
)


def page_response(title: str, body: str, *, status: int = 200, retry_after_s: float = 1.0) -> HTMLResponse:
    """A whole page; a 503 says when to come back (Retry-After)."""
    nav = "".join(f'<a href="{href}">{escape(label)}</a>' for href, label in NAV_LINKS)
    html = (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)} · veriground</title>\n"
        '<link rel="icon" href="data:,">\n'  # no /favicon.ico request (and no 404) on every page
        '<link rel="stylesheet" href="/static/report.css">\n'
        '<link rel="stylesheet" href="/static/page.css">\n<script src="/static/page.js" defer></script>\n'
        "</head>\n<body>\n"
        '<a class="skip" href="#main">Skip to content</a>\n'
        f'<header class="site"><a class="brand" href="/">veriground</a><nav aria-label="Main">{nav}</nav></header>\n'
        f'<main id="main" tabindex="-1">\n{body}\n</main>\n</body>\n</html>\n'
    )
    headers = {"Retry-After": str(whole_seconds(retry_after_s))} if status == 503 else None
    return HTMLResponse(html, status_code=status, headers=headers)


def alert(title: str, status: int, message: str) -> str:
    return f'<div class="error" role="alert"><strong>{escape(title)}</strong> ({status}): {escape(message)}</div>'


def passage_href(passage_id: str) -> str:
    """The page that shows one passage; ids hold '#' and '/', so the id travels as a query value."""
    return f"/corpus/passage?id={quote(passage_id, safe='')}"


def document_href(doc_id: str, version: int | None = None) -> str:
    href = f"/corpus/document?id={quote(doc_id, safe='')}"
    return href if version is None else f"{href}&version={version}"
