"""Who may call the server and how much they may send: ASGI middleware for the API token, the same-origin and
Host checks, and the body limit.

The token's *value* lives in the environment variable that service.api_token_env names, never in config.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import os
from http.cookies import SimpleCookie
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from veriground.config import ServiceConfig
from veriground.errors import ConfigError
from veriground.service.http_middleware import HttpMiddleware
from veriground.service.problems import PROBLEM_MEDIA_TYPE, problem_body

TOKEN_COOKIE = "veriground_token"
# Reachable without the token: the liveness and readiness probes, the token form and the page's own CSS/JS.
OPEN_PATHS = ("/health", "/ready", "/login", "/static/")
DEFAULT_PORTS = {"http": 80, "https": 443}
_BYTES_PER_MB = 1024 * 1024


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def resolve_token(service: ServiceConfig, environ: dict[str, str] | None = None) -> str | None:
    """The API token, or None when none is set; refuse to serve beyond loopback without one."""
    env = os.environ if environ is None else environ
    token = env.get(service.api_token_env, "").strip() or None
    if token is None and not is_loopback(service.host):
        raise ConfigError(
            f"serving on {service.host} (not loopback) needs an API token, and ${service.api_token_env} is "
            f"empty; export {service.api_token_env}=<a long random secret> (the variable's name is "
            "service.api_token_env), or serve on --host 127.0.0.1"
        )
    return token


def tokens_match(given: str, expected: str) -> bool:
    """Constant-time comparison, so response timing does not leak the token."""
    return hmac.compare_digest(given.encode(), expected.encode())


def max_body_bytes(service: ServiceConfig) -> int:
    return int(service.max_body_mb * _BYTES_PER_MB)


async def send_problem(send: Send, status: int, title: str, detail: str, **extra: object) -> None:
    body = json.dumps(problem_body(status, title, detail, **extra))
    headers = [(b"content-type", PROBLEM_MEDIA_TYPE.encode()), (b"content-length", str(len(body)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="veriground"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body.encode()})


class TokenMiddleware:
    """Every request but OPEN_PATHS needs `Authorization: Bearer <token>` or the token cookie the page sets."""

    def __init__(self, app: ASGIApp, token: str | None, token_env: str) -> None:
        self.app, self.token, self.token_env = app, token, token_env

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.token is None or scope["path"].startswith(OPEN_PATHS):
            await self.app(scope, receive, send)
            return
        given = _presented_token(scope)
        if given is not None and tokens_match(given, self.token):
            await self.app(scope, receive, send)
            return
        if scope["method"] == "GET" and _wants_html(scope):
            await send({"type": "http.response.start", "status": 303, "headers": [(b"location", b"/login")]})
            await send({"type": "http.response.body", "body": b""})
            return
        problem = "no API token was sent" if given is None else "the API token is wrong"
        await send_problem(
            send,
            401,
            "API token required",
            f"{problem}; send the value of the server's ${self.token_env} as 'Authorization: Bearer <token>' "
            "(the page asks for it at /login)",
        )


class SameOriginMiddleware(HttpMiddleware):
    """Refuse a request without a Host, a browser's cross-site write (another site posting to /documents: its
    Origin's scheme, host and port must all be this server's) and, on loopback, any Host that is not loopback
    (DNS rebinding). Requests without an Origin header (curl, scripts) pass."""

    def __init__(self, app: ASGIApp, allowed_origins: tuple[str, ...], loopback_only: bool) -> None:
        super().__init__(app)
        self.allowed, self.loopback_only = set(allowed_origins), loopback_only

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        host = (_header(scope, b"host") or "").strip()
        if not host:
            await send_problem(
                send,
                400,
                "Host header missing",
                "the request has no Host header, or an empty one; send the "
                "address you reached this server at, e.g. Host: 127.0.0.1:8000",
            )
            return
        if self.loopback_only and not is_loopback(_hostname(host)):
            await send_problem(
                send, 421, "Wrong host", f"this server answers on loopback only, not for Host {host!r}; use 127.0.0.1"
            )
            return
        origin = _header(scope, b"origin")
        unsafe = scope["method"] not in ("GET", "HEAD", "OPTIONS")
        if unsafe and origin is not None and origin not in self.allowed and not same_origin(origin, scope, host):
            await send_problem(
                send,
                403,
                "Cross-origin request refused",
                f"a page from {origin!r} may not send requests here; CORS is off unless service.cors_origins lists "
                "that origin",
            )
            return
        await self.app(scope, receive, send)


def _hostname(host: str) -> str:
    """`127.0.0.1:8000` -> `127.0.0.1`; `[::1]:8000` -> `::1`."""
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def same_origin(origin: str, scope: Scope, host: str) -> bool:
    """Whether a browser's Origin names this server as the request reached it: scheme, host and port."""
    scheme = scope.get("scheme", "http")
    try:
        sent = urlsplit(origin.strip())
        reached = urlsplit(f"//{host}")
        sent_port = sent.port or DEFAULT_PORTS.get(sent.scheme)
        reached_port = reached.port or DEFAULT_PORTS.get(scheme)
    except ValueError:  # a port that is not a number: not our origin
        return False
    return (
        sent.scheme == scheme
        and bool(sent.hostname)
        and sent.hostname == reached.hostname
        and sent_port == reached_port
    )


class BodyLimitMiddleware(HttpMiddleware):
    """413 before the app sees more than service.max_body_mb: by Content-Length, or by counting a streamed body."""

    def __init__(self, app: ASGIApp, limit_bytes: int) -> None:
        super().__init__(app)
        self.limit = limit_bytes

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        declared = _header(scope, b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await self._refuse(send, int(declared))
            return
        received = 0
        over = False  # once set, whatever the app answers is replaced by the 413
        refused = False

        async def counted_receive() -> Message:
            nonlocal received, over
            if over:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    over = True
                    return {"type": "http.disconnect"}  # the app stops reading, as if the client had gone
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal refused
            if not over:
                await send(message)
            elif not refused:
                refused = True
                await self._refuse(send, received)

        await self.app(scope, counted_receive, guarded_send)
        if over and not refused:
            await self._refuse(send, received)

    async def _refuse(self, send: Send, size: int) -> None:
        mb = self.limit / _BYTES_PER_MB
        await send_problem(
            send,
            413,
            "Request body too large",
            f"the request body is over service.max_body_mb={mb:g} ({size:,} bytes seen, limit {self.limit:,}); "
            "send less (split the text or the upload), or restart the server with VERIGROUND_SERVICE__MAX_BODY_MB "
            "set higher",
        )


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


def _presented_token(scope: Scope) -> str | None:
    authorization = _header(scope, b"authorization")
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    cookie = _header(scope, b"cookie")
    if cookie:
        jar = SimpleCookie()
        try:
            jar.load(cookie)
        except Exception:  # a malformed Cookie header is the client's problem: treat as no token
            return None
        if TOKEN_COOKIE in jar:
            return jar[TOKEN_COOKIE].value
    return None


def _wants_html(scope: Scope) -> bool:
    return "text/html" in (_header(scope, b"accept") or "")
