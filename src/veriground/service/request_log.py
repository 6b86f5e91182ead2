"""Structured request logs (seed 003 §11): one JSON line per request on the `veriground.service.requests` logger.

Routes add what they learned (query id, evidence size, claim counts, failure reasons, confidence, abstention
reason) to the request's `log_fields`. Raw questions and texts are logged only when service.log_text is on.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
import uuid
from collections import Counter
from typing import Any

from starlette.types import Message, Receive, Scope, Send

from veriground.schema import DisplayVerdict, GroundedAnswer, VerificationReport
from veriground.service.http_middleware import HttpMiddleware

log = logging.getLogger("veriground.service.requests")


class RequestLogMiddleware(HttpMiddleware):
    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        fields: dict[str, Any] = {}
        scope.setdefault("state", {})["log_fields"] = fields
        request_id = uuid.uuid4().hex[:16]
        status = 500
        started = time.perf_counter()

        async def watched_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message.setdefault("headers", []).append((b"x-request-id", request_id.encode()))
            await send(message)

        try:
            await self.app(scope, receive, watched_send)
        finally:
            entry = {
                "event": "request",
                "request_id": request_id,
                "method": scope["method"],
                "path": scope["path"],
                "status": status,
                "duration_ms": round((time.perf_counter() - started) * 1000, 1),
                **fields,
            }
            log.info(json.dumps(entry, sort_keys=True, ensure_ascii=False))


def text_id(prefix: str, text: str) -> str:
    return f"{prefix}_{hashlib.sha256(text.encode()).hexdigest()[:12]}"


def answer_fields(answer: GroundedAnswer, *, log_text: bool) -> dict[str, Any]:
    trace = answer.trace
    claims = trace.claims if trace is not None else ()
    fields: dict[str, Any] = {
        "query_id": text_id("q", answer.query),
        "evidence_size": len(trace.evidence) if trace is not None else 0,
        "claim_counts_by_type": dict(sorted(Counter(claim.claim_class.value for claim in claims).items())),
        "failure_reasons": dict(sorted(Counter(c.rule or c.reason for c in claims if not c.kept).items())),
        "confidence": answer.confidence.value,
        "abstention_reason": answer.abstention_reason,
    }
    if log_text:
        fields["query"] = answer.query
    return fields


def report_fields(report: VerificationReport, *, text: str, log_text: bool) -> dict[str, Any]:
    items = report.claims
    passages = {chunk.passage_id for item in items for chunk in item.evidence}
    failing = [item for item in items if item.decision.status != DisplayVerdict.SUPPORTED]
    fields: dict[str, Any] = {
        "answer_id": report.annotated_answer.answer_id,
        "evidence_size": len(passages),
        "claim_counts_by_type": dict(
            sorted(Counter(str(item.claim.claim_type or "unknown") for item in items).items())
        ),
        "verdict_counts": dict(sorted(Counter(item.decision.status for item in items).items())),
        "failure_reasons": dict(sorted(Counter(item.decision.rule for item in failing).items())),
    }
    if log_text:
        fields["text"] = text
    return fields
