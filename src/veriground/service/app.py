"""The HTTP app: config -> a FastAPI app with the JSON API, the web page and the middleware around them.

Middleware, outermost first: request log, security headers, API token, same-origin and Host check, the /health
fast path, body limit (and CORS only when service.cors_origins lists origins).
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from importlib import resources

from fastapi import FastAPI

from veriground import __version__
from veriground.config import Config
from veriground.service.access import (
    BodyLimitMiddleware,
    SameOriginMiddleware,
    TokenMiddleware,
    is_loopback,
    max_body_bytes,
    resolve_token,
)
from veriground.service.api_routes import router as api_router
from veriground.service.corpus_pages import router as corpus_router
from veriground.service.critic_routes import router as critic_router
from veriground.service.engine_worker import EngineWorker
from veriground.service.exports import ExportShelf
from veriground.service.health_probe import SERVING_SWITCH_INTERVAL_S, HealthProbeMiddleware
from veriground.service.pages import STATIC_DIR
from veriground.service.pages import router as page_router
from veriground.service.problems import install_problem_handlers
from veriground.service.request_log import RequestLogMiddleware
from veriground.service.security_headers import SecurityHeadersMiddleware

# Only the package's bundled Swagger UI 5 files are used (FastAPI's own /docs loads them from a CDN).
SWAGGER_UI_FILES = resources.files("fastapi_swagger") / "resources"


def create_app(config: Config, *, worker: EngineWorker | None = None) -> FastAPI:
    """The app for `config`; the engine (corpus, models) opens when the app starts and closes when it stops."""
    token = resolve_token(config.service)
    engine = worker or EngineWorker(config)
    app = FastAPI(
        title="veriground",
        version=__version__,
        summary="Cited-or-silent answers and claim-by-claim verification against a local corpus.",
        lifespan=_engine_lifespan(engine),
        docs_url=None,  # FastAPI's /docs loads Swagger UI from a CDN; ours is served locally below
        redoc_url=None,
    )
    app.state.config = config
    app.state.token = token
    app.state.worker = engine
    app.state.exports = ExportShelf(config.service.exports_kept)
    _add_routes(app)
    install_problem_handlers(app)
    _add_middleware(app, config, engine, token)
    return app


def _engine_lifespan(engine: EngineWorker) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """Open the engine (and take the first /health snapshot) as the app starts; close it as the app stops."""

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        from veriground.service.jobs import status

        switch_interval = sys.getswitchinterval()
        sys.setswitchinterval(min(switch_interval, SERVING_SWITCH_INTERVAL_S))  # see service/health_probe.py
        engine.start()
        # /health answers from this snapshot, never from the queue; the forms offer the facets taken with it.
        engine.health, engine.facets = await engine.run(status)
        try:
            yield
        finally:
            engine.close()
            sys.setswitchinterval(switch_interval)

    return lifespan


def _add_routes(app: FastAPI) -> None:
    """The JSON API, the pages, the static files and the local API docs."""
    from fastapi.staticfiles import StaticFiles

    app.include_router(api_router)
    app.include_router(page_router)
    app.include_router(corpus_router)
    app.include_router(critic_router)
    app.mount("/static/swagger", StaticFiles(directory=str(SWAGGER_UI_FILES)), name="swagger")
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    _add_docs(app)


def _add_middleware(app: FastAPI, config: Config, engine: EngineWorker, token: str | None) -> None:
    """The middleware in the order the module docstring gives (add_middleware wraps: the last added runs first)."""
    if config.service.cors_origins:
        from fastapi.middleware.cors import CORSMiddleware

        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(config.service.cors_origins),
            allow_methods=["GET", "POST"],
            allow_headers=["authorization", "content-type"],
        )
    app.add_middleware(BodyLimitMiddleware, limit_bytes=max_body_bytes(config.service))
    app.add_middleware(HealthProbeMiddleware, health_body=lambda: engine.health_body)
    app.add_middleware(
        SameOriginMiddleware,
        allowed_origins=config.service.cors_origins,
        loopback_only=is_loopback(config.service.host),
    )
    app.add_middleware(TokenMiddleware, token=token, token_env=config.service.api_token_env)
    app.add_middleware(SecurityHeadersMiddleware)
    app.add_middleware(RequestLogMiddleware)


# FastAPI's get_swagger_ui_html starts Swagger UI with an inline <script>, which the CSP forbids; this page loads
# the same bundle and starts it from static/docs.js.
DOCS_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>veriground API</title>
<link rel="stylesheet" href="/static/swagger/swagger-ui.css">
<link rel="icon" href="/static/swagger/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/static/swagger/swagger-ui-bundle.js"></script>
<script src="/static/docs.js"></script>
</body>
</html>
"""


def _add_docs(app: FastAPI) -> None:
    from fastapi.responses import HTMLResponse

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return HTMLResponse(DOCS_PAGE)
