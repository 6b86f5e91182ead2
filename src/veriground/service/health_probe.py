"""GET /health answered before routing, from bytes encoded when the snapshot was taken: request -> 200 JSON.

The event loop shares the GIL with the engine thread, whose NLI and segmentation are pure Python; every Python step a
probe takes may wait for the GIL, so a probe that skips routing, validation and serialisation answers sooner under
load. The interpreter's switch interval is shortened while serving for the same reason: a thread that wants the
GIL waits up to that long for the engine to hand it over (CPython's default is 5 ms, paid on each socket send).
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.types import ASGIApp, Receive, Scope, Send

HEALTH_PATH = "/health"
# Measured with bench/bench_reliability.py: each response send of the event loop cost 5.4 ms at the default 5 ms
# and 3.1 ms at 1 ms, on a loaded 2-core machine.
SERVING_SWITCH_INTERVAL_S = 0.001


class HealthProbeMiddleware:
    """GET /health with the body `health_body()` returns (the snapshot's JSON); None falls through to the route,
    which answers 503 while the engine is still opening."""

    def __init__(self, app: ASGIApp, health_body: Callable[[], bytes | None]) -> None:
        self.app = app
        self.health_body = health_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == HEALTH_PATH and scope["method"] == "GET":
            body = self.health_body()
            if body is not None:
                headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
                await send({"type": "http.response.start", "status": 200, "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
