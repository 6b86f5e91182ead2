"""HTTP API records (issue 6): request bodies and the answers that are not records of another role."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from veriground.schema.answers import GroundedAnswer
from veriground.schema.base import Record
from veriground.schema.corpus import EvidencePack
from veriground.schema.verdicts import VerificationReport

MAX_REQUEST_QUERY_CHARS = 2_000


class RequestRecord(Record):
    """A request body: every string in it must be encodable text (JSON lets a lone surrogate like \\ud800
    through, and it would fail later when hashed or stored)."""

    @model_validator(mode="before")
    @classmethod
    def _text_only(cls, data: Any) -> Any:
        where = _lone_surrogate(data, "")
        if where is not None:
            raise ValueError(f"{where or 'the body'} holds a lone UTF-16 surrogate, which is not text; send UTF-8 text")
        return data


def _lone_surrogate(value: Any, path: str) -> str | None:
    """The dotted path of the first string holding a lone surrogate, or None."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return path
        return None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list | tuple) else ()
    for key, item in items:
        found = _lone_surrogate(key, path) if isinstance(key, str) else None
        found = found if found is not None else _lone_surrogate(item, f"{path}.{key}" if path else str(key))
        if found is not None:
            return found
    return None


class QARequest(RequestRecord):
    """`POST /qa`: a question, optional filters (doc, source, source_type) and the output mode."""

    query: str = Field(min_length=1, max_length=MAX_REQUEST_QUERY_CHARS)
    filters: dict[str, str] = Field(default_factory=dict)
    mode: Literal["brief", "detailed"] | None = None  # None: config answer.mode


class VerifyRequest(RequestRecord):
    """`POST /verify`: a text checked claim by claim against the served corpus."""

    text: str = Field(min_length=1)
    query: str | None = None


class QAVerifyRequest(RequestRecord):
    """`POST /qa/verify` (seed 003 §12): a candidate answer (its text, or a GroundedAnswer from /qa) and the
    evidence pack it must be checked against, and nothing else."""

    answer: str | GroundedAnswer
    evidence: EvidencePack
    query: str | None = None
    # The question the answer answers: a short answer ("Arthur's Magazine") is verified as the answer to it.
    question: str | None = None


class QAVerifyResult(Record):
    """Pass when every claim is Supported; reason codes are the seed 000 reasons of the rest."""

    passed: bool
    reason_codes: tuple[str, ...]
    report: VerificationReport


class ServiceHealth(Record):
    status: Literal["ok"]
    version: str
    documents: int = Field(ge=0)
    passages_indexed: int = Field(ge=0)
    nli: str
    retrieval: str
    llm: str | None


class ServiceReadiness(Record):
    """`GET /ready`: whether the server can take work now, answered without queueing for the engine."""

    ready: bool
    engine_loaded: bool
    jobs_running: int = Field(ge=0)
    jobs_queued: int = Field(ge=0)
    estimated_wait_s: float = Field(ge=0)  # queued work at the measured rate
    seconds_per_unit: float = Field(ge=0)  # measured cost of one claim x evidence passage
    request_deadline_s: float = Field(gt=0)


class CriticRequest(RequestRecord):
    """`POST /critic`: a draft and the tier (2 asks the configured LLM, falling back to tier 1)."""

    text: str = Field(min_length=1)
    tier: Literal[1, 2] = 1
