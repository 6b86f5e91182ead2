"""Headers every response carries, problem bodies and static files included: what a browser may load and run
for our pages (scripts and styles from this server only, never inline), no framing, no MIME sniffing, no
Referer sent to other sites."""

from __future__ import annotations

from starlette.types import Message, Receive, Scope, Send

from veriground.service.http_middleware import HttpMiddleware

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",  # no inline script, no eval: page.js and docs.js are files
        "style-src 'self'",  # the report's style is /static/report.css
        "img-src 'self' data:",  # Swagger UI's icons are data: URIs
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-frame-options", b"DENY"),  # frame-ancestors for browsers that predate CSP 2
    (b"x-content-type-options", b"nosniff"),
    # Not "no-referrer": under it a browser sends `Origin: null` on the page's own form posts (Fetch standard,
    # "append a request Origin header"), which the same-origin check must refuse. "same-origin" still sends no
    # Referer to any other site.
    (b"referrer-policy", b"same-origin"),
)


class SecurityHeadersMiddleware(HttpMiddleware):
    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", ())}
                extra = [(name, value) for name, value in SECURITY_HEADERS if name not in present]
                message = {**message, "headers": [*message.get("headers", ()), *extra]}
            await send(message)

        await self.app(scope, receive, with_headers)
