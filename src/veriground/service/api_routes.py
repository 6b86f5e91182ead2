"""The JSON API (seed 003 §12): /qa, /qa/verify, /verify, /documents, /passages/{id}, /health.

Routes only parse, hand a job to the engine thread and log; the work is in `jobs`.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request, Response, UploadFile

from veriground.errors import InputFileError
from veriground.schema import (
    DocumentInfo,
    GroundedAnswer,
    IngestReport,
    Passage,
    QARequest,
    QAVerifyRequest,
    QAVerifyResult,
    ServiceHealth,
    VerificationReport,
    VerifyRequest,
)
from veriground.service import jobs
from veriground.service.engine_worker import EngineWorker
from veriground.service.request_log import answer_fields, report_fields

router = APIRouter()
ERRORS = {
    400: {"description": "A bad setting"},
    401: {"description": "API token missing or wrong"},
    404: {"description": "Unknown id"},
    413: {"description": "Over service.max_body_mb or verification.max_claims / max_input_chars"},
    422: {"description": "Malformed body or input that cannot be used"},
    503: {"description": "Engine busy (service.max_pending) or a model backend failed"},
}


def worker(request: Request) -> EngineWorker:
    return request.app.state.worker


def log_text(request: Request) -> bool:
    return request.app.state.config.service.log_text


@router.post("/qa", response_model=GroundedAnswer, responses=ERRORS, tags=["answers"])
async def ask(body: QARequest, request: Request) -> GroundedAnswer:
    """A cited-or-silent answer from the served corpus, or an abstention that says why."""
    answer = await worker(request).run(lambda ctx: jobs.answer(ctx, body))
    request.state.log_fields.update(answer_fields(answer, log_text=log_text(request)))
    return answer


@router.post("/qa/verify", response_model=QAVerifyResult, responses=ERRORS, tags=["answers"])
async def verify_candidate(body: QAVerifyRequest, request: Request) -> QAVerifyResult:
    """Check a candidate answer against its evidence pack only: the report, pass/fail and reason codes."""
    result = await worker(request).run(lambda ctx: jobs.verify_candidate(ctx, body))
    text = body.answer if isinstance(body.answer, str) else ""
    fields = report_fields(result.report, text=text, log_text=log_text(request))
    request.state.log_fields.update(fields, passed=result.passed)
    return result


@router.post("/verify", response_model=VerificationReport, responses=ERRORS, tags=["verification"])
async def verify(body: VerifyRequest, request: Request) -> VerificationReport:
    """Check a text claim by claim against the served corpus; `annotated_answer` is the seed 001
    AnnotatedAnswer, the rest explains each verdict."""
    report = await worker(request).run(lambda ctx: jobs.verify(ctx, body.text, body.query))
    request.state.log_fields.update(report_fields(report, text=body.text, log_text=log_text(request)))
    return report


@router.post("/documents", response_model=IngestReport, status_code=201, responses=ERRORS, tags=["corpus"])
async def upload_document(
    file: UploadFile,
    request: Request,
    response: Response,
    source_type: Annotated[str | None, Form()] = None,
    source_id: Annotated[str | None, Form()] = None,
) -> IngestReport:
    """Ingest one file (multipart field `file`) by the same rules as `veriground ingest`; it becomes document
    uploads/<file stem>. 201 when stored, 200 when unchanged, 422 (problem body) when nothing could be ingested."""
    name = jobs.check_upload_name(file.filename)
    data = await file.read()
    report = await worker(request).run(lambda ctx: jobs.ingest_upload(ctx, name, data, source_type, source_id))
    request.state.log_fields.update(upload=name, outcomes=[item.outcome for item in report.items])
    if report.failed and not (report.added or report.new_version or report.unchanged):
        problems = "; ".join(item.problem or item.outcome for item in report.items if item.outcome == "failed")
        raise InputFileError(name, f"nothing was ingested: {problems}")
    if not (report.added or report.new_version):
        response.status_code = 200
    return report


@router.get("/documents", response_model=list[DocumentInfo], responses=ERRORS, tags=["corpus"])
async def list_documents(request: Request) -> list[DocumentInfo]:
    """The latest version of every document."""
    return await worker(request).run(jobs.documents)


@router.get("/passages/{passage_id:path}", response_model=Passage, responses=ERRORS, tags=["corpus"])
async def get_passage(passage_id: str, request: Request) -> Passage:
    """One passage by id (`<doc_id>#<12 hex>`; send the `#` as %23), with its document, version and offsets."""
    return await worker(request).run(lambda ctx: jobs.passage(ctx, passage_id))


@router.get("/health", response_model=ServiceHealth, tags=["service"])
async def health(request: Request) -> ServiceHealth:
    """Liveness, corpus size and the backends in use; needs no token."""
    return await worker(request).run(jobs.health)
