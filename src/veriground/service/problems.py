"""Errors as HTTP answers: one table from exception class to status code, and RFC 9457 problem bodies.

The `detail` of a problem is the same message the CLI prints for the same error. Every 503 carries Retry-After
(the error's own estimate, else the engine's queued work at its measured rate).
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect

from veriground.errors import (
    BackendError,
    ConfigError,
    InputFileError,
    InputTextError,
    InputTooLargeError,
    NotFoundError,
    StoreError,
    UnitConversionError,
    VerigroundError,
)
from veriground.service.cancellation import RequestCancelledError, ServerBusyError, whole_seconds
from veriground.service.jobs import UploadNameTakenError

PROBLEM_MEDIA_TYPE = "application/problem+json"
# nginx's "client closed request": nobody reads it, but the request log says what happened.
CLIENT_CLOSED_REQUEST = 499
log = logging.getLogger("veriground.service")

# Most specific class first: the first match decides the status.
STATUS_BY_ERROR: tuple[tuple[type[VerigroundError], int, str], ...] = (
    (UploadNameTakenError, 409, "Name already taken"),
    (InputTooLargeError, 413, "Input over a configured limit"),
    (NotFoundError, 404, "Not found"),
    (InputFileError, 422, "Input cannot be used"),
    (InputTextError, 422, "Input cannot be used"),
    (UnitConversionError, 422, "Unit cannot be read"),
    (ConfigError, 400, "Bad setting"),
    (ServerBusyError, 503, "Server busy"),
    (RequestCancelledError, CLIENT_CLOSED_REQUEST, "Client closed the request"),
    (BackendError, 503, "Model backend failed"),
    (StoreError, 500, "Corpus store failed"),
    (VerigroundError, 500, "veriground failed"),
)
# What the server's operator changes to raise a limit (the CLI's messages name the CLI flag).
SERVER_LIMIT_FIX = (
    "on the server, limits are config keys: set them in veriground.toml or as VERIGROUND_SECTION__KEY "
    "environment variables (e.g. VERIGROUND_VERIFICATION__MAX_CLAIMS=5000, VERIGROUND_SERVICE__MAX_BODY_MB=8) "
    "and restart `veriground serve`"
)


def problem_body(status: int, title: str, detail: str, **extra: object) -> dict[str, object]:
    return {"type": "about:blank", "status": status, "title": title, "detail": detail, **extra}


def problem(status: int, title: str, detail: str, *, retry_after_s: float = 1.0, **extra: object) -> JSONResponse:
    headers = None
    if status == 503:
        extra["retry_after_s"] = whole_seconds(retry_after_s)
        headers = {"Retry-After": str(whole_seconds(retry_after_s))}
    body = problem_body(status, title, detail, **extra)
    return JSONResponse(body, status_code=status, media_type=PROBLEM_MEDIA_TYPE, headers=headers)


def status_for(err: VerigroundError) -> tuple[int, str]:
    return next((status, title) for kind, status, title in STATUS_BY_ERROR if isinstance(err, kind))


def problem_for(err: VerigroundError, *, retry_after_s: float = 1.0) -> JSONResponse:
    """`retry_after_s` is used for a 503 whose error carries no estimate of its own."""
    status, title = status_for(err)
    extra: dict[str, object] = {"error": type(err).__name__}
    if status == 413:
        extra["fix"] = SERVER_LIMIT_FIX
    retry = err.retry_after_s if isinstance(err, ServerBusyError) else retry_after_s
    return problem(status, title, str(err), retry_after_s=retry, **extra)


def engine_retry_after_s(request: Request) -> float:
    worker = getattr(request.app.state, "worker", None)
    return 1.0 if worker is None else worker.retry_after_s()


def install_problem_handlers(app: FastAPI) -> None:
    """Every error the app can meet answers as a problem body; none shows a traceback."""

    @app.exception_handler(VerigroundError)
    async def _veriground(request: Request, err: VerigroundError) -> JSONResponse:
        return problem_for(err, retry_after_s=engine_retry_after_s(request))

    @app.exception_handler(ClientDisconnect)
    async def _gone(_: Request, __: ClientDisconnect) -> JSONResponse:
        return problem(CLIENT_CLOSED_REQUEST, "Client closed the request", "the client hung up before its body arrived")

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, err: RequestValidationError) -> JSONResponse:
        return problem(422, "Request body does not match the schema", describe_validation(err.errors()))

    @app.exception_handler(HTTPException)
    async def _http(request: Request, err: HTTPException) -> JSONResponse:
        detail = str(err.detail)
        if err.status_code in (404, 405) and detail == _reason(err.status_code):  # Starlette's bare routing answer
            detail = f"no {request.method} {request.url.path} here; the API is listed at /docs"
        return problem(err.status_code, _reason(err.status_code), detail)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, err: Exception) -> JSONResponse:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return problem(500, "Internal error", f"{type(err).__name__}: the server log has the details")


def describe_validation(errors: object) -> str:
    """pydantic's error list -> one sentence per problem, naming where in the body it is."""
    parts = []
    for error in errors if isinstance(errors, list) else []:
        where = ".".join(str(part) for part in error.get("loc", ()) if part != "body") or "body"
        if error.get("type") == "json_invalid":
            context = error.get("ctx", {}).get("error", "")
            parts.append(f"the body is not valid JSON ({context}); send a JSON object")
        elif where == "body" and isinstance(error.get("input"), bytes | str):
            parts.append("the body is not a JSON object; send one with Content-Type: application/json")
        elif error.get("type") == "missing":
            parts.append(f"{where} is required")
        elif error.get("type") == "extra_forbidden":
            parts.append(f"{where} is not a known field")
        else:
            parts.append(f"{where}: {error.get('msg', 'invalid')}, got {_short(error.get('input'))}")
    return "; ".join(parts) or "the request is not valid"


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _reason(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"
