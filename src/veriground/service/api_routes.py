"""The JSON API (seed 003 §12): /qa, /qa/verify, /verify, /documents, /passages/{id}, /health, /ready.

Routes only parse, check the server's limits, hand a job to the engine threads and log; the work is in `jobs`.
/health and /ready answer from the event loop and never queue behind the engine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Form, Request, Response, UploadFile
from fastapi.responses import JSONResponse
from pydantic import Field

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
    ServiceReadiness,
    VerificationReport,
    VerifyRequest,
)
from veriground.service import jobs
from veriground.service.admission import answer_units, check_text_limits, upload_units, verify_units
from veriground.service.cancellation import ServerBusyError, client_gone, whole_seconds
from veriground.service.engine_worker import EngineContext, EngineWorker
from veriground.service.facets import CorpusFacets
from veriground.service.request_log import answer_fields, report_fields

T = TypeVar("T")
router = APIRouter()
# The profiles of domains/profiles.py (a test checks the two lists agree).
DomainName = Literal["general", "physics", "discrete_math", "algorithms", "policy"]
ERRORS: dict[int | str, dict[str, Any]] = {  # FastAPI's `responses` type
    400: {"description": "A bad setting"},
    401: {"description": "API token missing or wrong"},
    404: {"description": "Unknown id"},
    409: {"description": "An earlier upload with the same file name holds a different file"},
    413: {
        "description": "Over service.max_body_mb, service.max_claims, service.max_sentence_chars or "
        "verification.max_input_chars"
    },
    422: {"description": "Malformed body or input that cannot be used"},
    503: {
        "description": "Engine busy (queued work would not finish within service.request_deadline_s, or "
        "service.max_pending), the request ran past its deadline, or a model backend failed; see Retry-After"
    },
}


class DomainVerifyRequest(VerifyRequest):
    """`POST /verify`: a text checked claim by claim against the served corpus, under a domain profile."""

    # None: the server's verification.domain. Kept here, not in the schema package, until that split settles.
    domain: DomainName | None = Field(None, description="Domain profile: which formal checks run, what is in scope")


def worker(request: Request) -> EngineWorker:
    return request.app.state.worker


async def run_job(
    request: Request, job: Callable[[EngineContext], T], *, units: float = 1.0, writes: bool = False
) -> T:
    """Run `job` on the engine for this request: admitted by its cost, dropped if the client hangs up; `writes`
    (it changes the store) runs it alone, with no read beside it."""
    return await worker(request).run(job, units=units, writes=writes, client_gone=lambda: client_gone(request.receive))


def log_text(request: Request) -> bool:
    return request.app.state.config.service.log_text


@router.post("/qa", response_model=GroundedAnswer, responses=ERRORS, tags=["answers"])
async def ask(body: QARequest, request: Request) -> GroundedAnswer:
    """A cited-or-silent answer from the served corpus, or an abstention that says why."""
    units = answer_units(request.app.state.config, body.mode)
    answer = await run_job(request, lambda ctx: jobs.answer(ctx, body), units=units)
    request.state.log_fields.update(answer_fields(answer, log_text=log_text(request)))
    return answer


@router.post("/qa/verify", response_model=QAVerifyResult, responses=ERRORS, tags=["answers"])
async def verify_candidate(body: QAVerifyRequest, request: Request) -> QAVerifyResult:
    """Check a candidate answer against its evidence pack only: the report, pass/fail and reason codes."""
    config = request.app.state.config
    text = body.answer if isinstance(body.answer, str) else " ".join(claim.text for claim in body.answer.claims)
    shape = check_text_limits(text, config, what="the answer")
    result = await run_job(request, lambda ctx: jobs.verify_candidate(ctx, body), units=verify_units(shape, config))
    logged = body.answer if isinstance(body.answer, str) else ""
    fields = report_fields(result.report, text=logged, log_text=log_text(request))
    request.state.log_fields.update(fields, passed=result.passed)
    return result


@router.post("/verify", response_model=VerificationReport, responses=ERRORS, tags=["verification"])
async def verify(body: DomainVerifyRequest, request: Request) -> VerificationReport:
    """Check a text claim by claim against the served corpus; `annotated_answer` is the seed 001
    AnnotatedAnswer, the rest explains each verdict. `domain` picks a profile (general, physics, discrete_math,
    algorithms, policy) for this request."""
    config = request.app.state.config
    shape = check_text_limits(body.text, config)
    report = await run_job(
        request, lambda ctx: jobs.verify(ctx, body.text, body.query, body.domain), units=verify_units(shape, config)
    )
    request.state.log_fields.update(report_fields(report, text=body.text, log_text=log_text(request)))
    return report


@router.post("/documents", response_model=IngestReport, status_code=201, responses=ERRORS, tags=["corpus"])
async def upload_document(
    file: UploadFile,
    request: Request,
    response: Response,
    source_type: Annotated[str | None, Form()] = None,
    source_id: Annotated[str | None, Form()] = None,
    replace: Annotated[bool, Form()] = False,
) -> IngestReport:
    """Ingest one file (multipart field `file`) by the same rules as `veriground ingest`; it becomes document
    uploads/<file stem>. 201 when stored, 200 when unchanged, 422 (problem body) when nothing could be ingested,
    409 when an earlier upload of the same name holds a different file (`replace=true` stores it as that
    document's next version)."""
    name = jobs.check_upload_name(file.filename)
    report = await store_upload(request, name, await file.read(), source_type, source_id, replace=replace)
    if report.failed and not (report.added or report.new_version or report.unchanged):
        problems = "; ".join(item.problem or item.outcome for item in report.items if item.outcome == "failed")
        raise InputFileError(name, f"nothing was ingested: {problems}")
    if not (report.added or report.new_version):
        response.status_code = 200
    return report


async def store_upload(
    request: Request, name: str, data: bytes, source_type: str | None, source_id: str | None, *, replace: bool
) -> IngestReport:
    """Ingest one upload on the engine and refresh /health's counts and the forms' facets (the API and the
    Documents page share it)."""

    def ingest(ctx: EngineContext) -> tuple[IngestReport, tuple[ServiceHealth, CorpusFacets]]:
        return jobs.ingest_upload(ctx, name, data, source_type, source_id, replace=replace), jobs.status(ctx)

    report, (health, facets) = await run_job(request, ingest, units=upload_units(len(data)), writes=True)
    worker(request).health, worker(request).facets = health, facets
    request.state.log_fields.update(upload=name, outcomes=[item.outcome for item in report.items])
    return report


@router.get("/documents", response_model=list[DocumentInfo], responses=ERRORS, tags=["corpus"])
async def list_documents(request: Request) -> list[DocumentInfo]:
    """The latest version of every document."""
    return await run_job(request, jobs.documents)


@router.get("/passages/{passage_id:path}", response_model=Passage, responses=ERRORS, tags=["corpus"])
async def get_passage(passage_id: str, request: Request) -> Passage:
    """One passage by id (`<doc_id>#<12 hex>`; send the `#` as %23), with its document, version and offsets."""
    return await run_job(request, lambda ctx: jobs.passage(ctx, passage_id))


@router.get("/health", response_model=ServiceHealth, responses={503: ERRORS[503]}, tags=["service"])
async def health(request: Request) -> ServiceHealth:
    """Liveness, corpus size and the backends in use; needs no token and never waits for the engine (the
    counts are as of start-up or the last upload)."""
    snapshot = worker(request).health
    if snapshot is None:
        raise ServerBusyError("the engine is still opening the corpus and models; retry shortly")
    return snapshot


@router.get("/ready", response_model=ServiceReadiness, responses={503: ERRORS[503]}, tags=["service"])
async def ready(request: Request) -> JSONResponse:
    """Whether the server takes work now: the engine is loaded and its queued work fits the request deadline.
    503 (same body, with Retry-After) when not; needs no token and never waits for the engine."""
    readiness = worker(request).readiness()
    headers = None if readiness.ready else {"Retry-After": str(whole_seconds(readiness.estimated_wait_s))}
    return JSONResponse(readiness.model_dump(mode="json"), status_code=200 if readiness.ready else 503, headers=headers)
