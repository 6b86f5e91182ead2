"""Connection-level limits uvicorn lacks: a deadline for the request line and headers, one for the body, and a
cap on open connections answered with 503 + Retry-After (uvicorn's own limit_concurrency answers a bare 503).

uvicorn's h11 protocol closes only idle keep-alive connections (timeout_keep_alive); a client that trickles a
header byte every few seconds, or a body slower than it, holds its socket for as long as it likes. This subclass
arms one read deadline per request: service.header_timeout_s for the head, then service.body_timeout_s for the
body; when it passes, the client gets 408 and the socket is closed.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from veriground.config import ServiceConfig
from veriground.service.problems import PROBLEM_MEDIA_TYPE, problem_body
from veriground.service.security_headers import SECURITY_HEADERS

CONNECTION_CAP_RETRY_AFTER_S = 1  # slow connections are dropped within header_timeout_s; most free up sooner


def raw_problem(status: int, reason: str, title: str, detail: str, *, retry_after_s: int | None = None) -> bytes:
    """A complete HTTP/1.1 problem response that closes the connection, for answers outside any ASGI cycle."""
    body = json.dumps(problem_body(status, title, detail)).encode()
    headers = [
        (b"content-type", PROBLEM_MEDIA_TYPE.encode()),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
        *SECURITY_HEADERS,
    ]
    if retry_after_s is not None:
        headers.append((b"retry-after", str(retry_after_s).encode()))
    head = b"".join(name + b": " + value + b"\r\n" for name, value in headers)
    return f"HTTP/1.1 {status} {reason}\r\n".encode() + head + b"\r\n" + body


class ConnectionCap:
    """ASGI app in front of ours: 503 + Retry-After while more than `limit` connections are open."""

    def __init__(self, app: Any, connections: set[Any], limit: int) -> None:
        self.app, self.connections, self.limit = app, connections, limit

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or len(self.connections) <= self.limit:
            await self.app(scope, receive, send)
            return
        body = json.dumps(
            problem_body(
                503,
                "Too many connections",
                f"{len(self.connections)} connections are open, over service.max_connections={self.limit}; retry "
                "shortly, or raise VERIGROUND_SERVICE__MAX_CONNECTIONS on the server",
            )
        ).encode()
        retry = str(CONNECTION_CAP_RETRY_AFTER_S).encode()
        headers = [
            (b"content-type", PROBLEM_MEDIA_TYPE.encode()),
            (b"content-length", str(len(body)).encode()),
            (b"retry-after", retry),
            (b"connection", b"close"),
            *SECURITY_HEADERS,
        ]
        await send({"type": "http.response.start", "status": 503, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def guarded_protocol(service: ServiceConfig) -> type[H11Protocol]:
    """uvicorn's h11 protocol with the read deadlines and the connection cap of `service`."""

    class ServiceGuardedH11Protocol(GuardedH11Protocol):
        settings = service

    return ServiceGuardedH11Protocol


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with one read deadline per request and the connection cap; guarded_protocol gives
    it the `settings` to enforce."""

    settings: ServiceConfig

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.app = ConnectionCap(self.app, self.connections, self.settings.max_connections)
        self._read_timer: asyncio.TimerHandle | None = None
        self._reading: str | None = None  # "head" or "body": what the armed deadline is for

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self._arm("head", self.settings.header_timeout_s)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._follow_request()

    def on_response_complete(self) -> None:
        super().on_response_complete()  # arms uvicorn's keep-alive timer for the idle wait
        self._disarm()
        if self.cycle is not None and not self.cycle.response_complete:
            self._follow_request()  # a pipelined request started a new cycle

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _follow_request(self) -> None:
        """Move the deadline along with the request: head -> body -> none (the server's turn)."""
        cycle = self.cycle
        if cycle is None or cycle.response_complete:
            if self._reading != "head":  # bytes of a new request after an idle keep-alive
                self._arm("head", self.settings.header_timeout_s)
        elif cycle.more_body and not cycle.response_started:
            if self._reading != "body":
                self._arm("body", self.settings.body_timeout_s)
        else:
            self._disarm()

    def _arm(self, reading: str, seconds: float) -> None:
        self._disarm()
        self._reading = reading
        self._read_timer = self.loop.call_later(seconds, self._read_timed_out)

    def _disarm(self) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
        self._read_timer, self._reading = None, None

    def _read_timed_out(self) -> None:
        reading, self._read_timer, self._reading = self._reading, None, None
        if self.transport.is_closing():
            return
        if self.cycle is not None and not self.cycle.response_complete and self.cycle.response_started:
            self.transport.close()
            return
        if self.cycle is not None and not self.cycle.response_complete:
            self.cycle.disconnected = True  # the app's own answer, if any, is dropped: this one is sent
            self.cycle.message_event.set()
        self.transport.write(self._timeout_problem(reading))
        self.transport.close()

    def _timeout_problem(self, reading: str | None) -> bytes:
        """The 408 for a head (`reading` "head") or a body that did not arrive in time."""
        service = self.settings
        limit, key = (
            (service.header_timeout_s, "header_timeout_s")
            if reading == "head"
            else (service.body_timeout_s, "body_timeout_s")
        )
        part = "request line and headers" if reading == "head" else "request body"
        return raw_problem(
            408,
            "Request Timeout",
            "Request Timeout",
            f"the {part} did not arrive within service.{key}={limit:g} s; send it at once, or raise "
            f"VERIGROUND_SERVICE__{key.upper()} on the server",
        )
