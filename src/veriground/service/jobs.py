"""What each endpoint asks of the engine: request records -> result records, run on an engine thread.

The same stage functions as the CLI (answer_question, verify_text, ingest_paths) do the work, so a request
gives the record the matching command prints with --json.
"""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from veriground import __version__
from veriground.errors import InputFileError, InputTextError, InputTooLargeError
from veriground.schema import DisplayVerdict, QAVerifyResult, ServiceHealth, SourceType
from veriground.service.admission import claim_limit, too_many_claims
from veriground.service.engine_worker import EngineContext
from veriground.service.facets import CorpusFacets, corpus_facets

if TYPE_CHECKING:
    from veriground.schema import (
        DocumentInfo,
        GroundedAnswer,
        IngestItem,
        IngestReport,
        Passage,
        QARequest,
        QAVerifyRequest,
        VerificationReport,
    )

# Cited or silent: a candidate passes only when every claim is Supported; a weakly supported claim is a reason code.
PASSING_VERDICTS = frozenset({DisplayVerdict.SUPPORTED})
UPLOAD_FOLDER = "uploads"  # uploads get doc ids uploads/<file stem>
MAX_FILENAME_CHARS = 200
MAX_FILENAME_BYTES = 255  # what Linux file systems allow (NAME_MAX), counted in UTF-8 bytes


def answer(ctx: EngineContext, request: QARequest) -> GroundedAnswer:
    from veriground.answering.pipeline import AnswerBackends, answer_question, parse_filters

    filters = parse_filters([f"{key}={value}" for key, value in request.filters.items()])
    config = ctx.config
    if request.mode is not None:
        config = config.model_copy(update={"answer": config.answer.model_copy(update={"mode": request.mode})})
    backends = AnswerBackends(store=ctx.store, retriever=ctx.retriever, nli=ctx.nli, llm=ctx.llm)
    return answer_question(request.query, config=config, backends=backends, filters=filters)


class UploadNameTakenError(InputFileError):
    """An upload whose name an earlier, different upload holds: storing it would replace that one in search."""


def verify(ctx: EngineContext, text: str, query: str | None = None, domain: str | None = None) -> VerificationReport:
    """`domain` picks a profile for this request only (verification.domain otherwise)."""
    from veriground.domains.profiles import get_profile
    from veriground.engine import verify_text
    from veriground.evidence.gather import CorpusEvidence

    config = ctx.config
    if domain is not None:
        get_profile(domain)  # an unknown name is a ConfigError naming the valid ones
        verification = config.verification.model_copy(update={"domain": domain})
        config = config.model_copy(update={"verification": verification})
    check_claim_count(ctx, text)
    source = CorpusEvidence(ctx.store, config.retrieval, ctx.retriever)
    return verify_text(text, config=config, source=source, nli=ctx.nli, query=query, judge=ctx.judge)


def verify_candidate(ctx: EngineContext, request: QAVerifyRequest) -> QAVerifyResult:
    """Seed 003 §12: check a candidate answer against its evidence pack only; pass/fail with reason codes."""
    from veriground.answering.pipeline import qa_verification
    from veriground.engine import verify_text
    from veriground.evidence.gather import PackEvidence
    from veriground.evidence.pack import complete_pack, pack_chunks

    pack = complete_pack(request.evidence, lambda passage_id: ctx.store.passage(passage_id).text, origin="evidence")
    text = request.answer if isinstance(request.answer, str) else cited_text(request.answer)
    query = (
        request.question
        or request.query
        or pack.query
        or (None if isinstance(request.answer, str) else request.answer.query)
    )
    check_claim_count(ctx, text)
    config = qa_verification(ctx.config)  # seed 003: one direct citation per claim, as grounded QA verifies
    source = PackEvidence(pack_chunks(pack), config.retrieval)  # the pack completed above, once
    report = verify_text(text, config=config, source=source, nli=ctx.nli, query=query)
    failing = [item for item in report.claims if item.decision.status not in PASSING_VERDICTS]
    codes = sorted({item.decision.reason.value for item in failing})
    return QAVerifyResult(passed=bool(report.claims) and not failing, reason_codes=tuple(codes), report=report)


def check_claim_count(ctx: EngineContext, text: str) -> None:
    """service.max_claims, counted exactly (by the claim extractor, which stops at the limit) when it is lower
    than verification.max_claims; otherwise the engine's own check names the binding key."""
    from veriground.claims import extract_claims

    limit = claim_limit(ctx.config)
    if limit >= ctx.config.verification.max_claims:
        return
    try:
        extract_claims(text, answer_id="ans_limit_check", max_claims=limit)
    except InputTooLargeError:
        raise InputTooLargeError(too_many_claims("the text", f"over {limit}", ctx.config)) from None
    except InputTextError:
        return  # an empty text: verify_text says so in its own words


def cited_text(answer: GroundedAnswer) -> str:
    """A GroundedAnswer as text whose sentences carry their citations in the B3 `[CITATION: id]` form."""
    if not answer.claims:
        raise InputTextError(
            "the candidate GroundedAnswer has no claims (it abstained), so there is nothing to verify; "
            "send an answer with claims, or its text as a string"
        )
    sentences = []
    for claim in answer.claims:
        cites = "".join(
            f" [CITATION: {citation.passage_id}]" for citation in claim.supporting_citations if citation.passage_id
        )
        sentences.append(claim.text.rstrip() + cites)
    return "\n".join(sentences)


def documents(ctx: EngineContext) -> list[DocumentInfo]:
    return ctx.store.list_documents()


def passage(ctx: EngineContext, passage_id: str) -> Passage:
    return ctx.store.passage(passage_id)


def health(ctx: EngineContext) -> ServiceHealth:
    return ServiceHealth(
        status="ok",
        version=__version__,
        documents=len(ctx.store.list_documents()),
        passages_indexed=ctx.retriever.passages_indexed(),
        nli=ctx.nli.name,
        retrieval=ctx.config.retrieval.mode,
        llm=ctx.config.llm.model if ctx.llm is not None else None,
    )


def status(ctx: EngineContext) -> tuple[ServiceHealth, CorpusFacets]:
    """What /health reports and what the forms offer, taken together at start-up and after each upload."""
    return health(ctx), corpus_facets(ctx.store.list_documents())


def check_upload_name(filename: str | None) -> str:
    """A bare file name with a supported suffix; anything path-like is refused, never cleaned up silently."""
    from veriground.corpus.loaders import SUPPORTED_SUFFIXES

    name = (filename or "").strip()
    if not name:
        raise InputFileError("(upload)", "the upload has no file name", "send it as a multipart field named file")
    try:
        too_long = len(name) > MAX_FILENAME_CHARS or len(name.encode("utf-8")) > MAX_FILENAME_BYTES
    except UnicodeEncodeError:
        shown = name.encode("utf-8", "replace").decode()
        raise InputFileError(shown, "the file name is not UTF-8", "rename it") from None
    if "/" in name or "\\" in name or "\x00" in name or name.startswith(".") or too_long:
        raise InputFileError(
            name,
            "the upload's file name is a path, hidden, or too long",
            f"send a bare name of at most {MAX_FILENAME_CHARS} characters ({MAX_FILENAME_BYTES} UTF-8 bytes) such as "
            "notes.md",
        )
    if Path(name).suffix.lower() not in SUPPORTED_SUFFIXES:
        raise InputFileError(
            name,
            f"unsupported file type '{Path(name).suffix or '(none)'}'",
            "upload one of: " + ", ".join(SUPPORTED_SUFFIXES),
        )
    return name


def ingest_upload(
    ctx: EngineContext,
    filename: str,
    data: bytes,
    source_type: str | None,
    source_id: str | None,
    *,
    replace: bool = False,
) -> IngestReport:
    """Ingest one uploaded file by the CLI's rules, as document uploads/<stem>; the upload is not kept.

    A different file under a name an earlier upload holds is refused (UploadNameTakenError, 409) unless `replace`,
    which stores it as that document's next version: two unrelated files called notes.md must not silently become
    one document."""
    from veriground.corpus.ingest import ingest_paths

    name = check_upload_name(filename)
    if not replace:
        check_name_free(ctx, name, data)
    source_id = (source_id or "").strip() or None
    if source_id is not None and not source_id.isprintable():
        raise InputTextError(f"source_id {source_id!r} holds control characters; send a plain name")
    ingest_config = ctx.config.ingest.model_copy(
        update={"source_type": _source_type(source_type), "source_id": source_id}
    )
    with tempfile.TemporaryDirectory(dir=ctx.store.corpus_dir, prefix=".upload-") as scratch:
        folder = Path(scratch) / UPLOAD_FOLDER
        folder.mkdir()
        (folder / name).write_bytes(data)
        report = ingest_paths([folder], ctx.store, ingest_config)
        items = tuple(_without_prefix(item, f"{Path(scratch).resolve()}/") for item in report.items)
    if ctx.config.retrieval.mode != "bm25":  # the upload's passages get vectors now; a search never embeds
        ctx.retriever.build_dense_index()
    return report.model_copy(update={"items": items})


def check_name_free(ctx: EngineContext, name: str, data: bytes) -> None:
    """Raise UploadNameTakenError when uploads/<name> holds other bytes than `data` (same bytes: unchanged)."""
    previous = ctx.store.latest_version(f"{UPLOAD_FOLDER}/{name}")
    if previous is None or previous.sha256 == hashlib.sha256(data).hexdigest():
        return
    if ctx.store.document(previous.doc_id, previous.version).deleted:
        return  # removed: the name is free again, and the new file starts the next version
    raise UploadNameTakenError(
        f"{UPLOAD_FOLDER}/{name}",
        f"an earlier upload with this name holds a different file (document {previous.doc_id}, version "
        f"{previous.version}); storing this one would replace it in search",
        f"rename the file to keep both, or send replace=true (the page's 'Replace' box) to store it as version "
        f"{previous.version + 1} of {previous.doc_id}",
    )


def _without_prefix(item: IngestItem, prefix: str) -> IngestItem:
    """Messages name the upload as uploads/<name>, not the server's scratch folder."""
    return item.model_copy(
        update={"path": item.path.replace(prefix, ""), "problem": item.problem and item.problem.replace(prefix, "")}
    )


def _source_type(value: str | None) -> SourceType | None:
    if not value or not value.strip():
        return None
    try:
        return SourceType(value.strip())
    except ValueError:
        valid = ", ".join(member.value for member in SourceType)
        raise InputTextError(f"source_type {value!r} is not one of: {valid}") from None
