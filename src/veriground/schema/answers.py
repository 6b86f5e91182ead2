"""Answer records: LLM messages and completions, drafts, the evidence gate, the answer trace and the grounded
answer (seed 003 §4.2)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from veriground.schema.base import AnswerClaimClass, AnswerConfidence, DocId, PassageId, Record
from veriground.schema.corpus import EvidenceChunk
from veriground.schema.verdicts import DisplayVerdict, ReportManifest


class ChatMessage(Record):
    """One turn of an OpenAI-style chat."""

    role: Literal["system", "user", "assistant"]
    content: str


class LLMCompletion(Record):
    """One answer of an LLM call. `request_sha256` keys the call in the cache (model, messages, parameters);
    token log-probabilities and per-token entropies (over the returned top alternatives, in nats) are None when
    the server does not offer them."""

    text: str
    finish_reason: str | None = None
    request_sha256: str
    sample_index: int = Field(0, ge=0)
    token_logprobs: tuple[float, ...] | None = None
    token_entropies: tuple[float, ...] | None = None


class SupportingCitation(Record):
    work_id: DocId
    passage_id: PassageId | None = None


class GroundedClaim(Record):
    text: str
    supporting_citations: tuple[SupportingCitation, ...]
    support_level: Literal["direct", "indirect"]


class Reference(Record):
    work_id: DocId
    title: str | None = None
    source_id: str | None = None
    passage_ids: tuple[PassageId, ...] = ()


class DraftClaim(Record):
    """One sentence a generator proposes, with the passage ids it cites, before verification."""

    text: str
    cited_ids: tuple[str, ...] = ()
    claim_class: AnswerClaimClass = AnswerClaimClass.FACTUAL


class DraftAnswer(Record):
    """What a generator (extractive, LLM, baseline) returned for a question and an evidence pack."""

    claims: tuple[DraftClaim, ...] = ()
    abstained: bool = False  # the generator itself said the evidence does not answer the question
    abstain_reason: str | None = None
    # Seed 001 uncertainty signals of an LLM draft; None when not computable (no logprobs, one sample, offline).
    mean_token_entropy: float | None = None
    consistency: float | None = Field(None, ge=0, le=1)


class EvidenceGate(Record):
    """Seed 004 §3.6 abstention gate over the top retrieved passages, before anything is generated.
    `score_kind` says which score was read: a reranker's probability, or the lexical query coverage (the
    idf-weighted share of the question's content words a passage contains) when no reranker is configured."""

    score_kind: Literal["rerank", "query_coverage"]
    max_top5: float
    mean_top3: float
    threshold: float
    passed: bool


class AnswerClaimTrace(Record):
    """What verification made of one draft claim: kept or removed, and why."""

    text: str
    claim_class: AnswerClaimClass
    cited_ids: tuple[str, ...]
    kept: bool
    verdict: DisplayVerdict | None = None  # of the verification core; None when never verified
    rule: str | None = None
    reason: str
    support_level: Literal["direct", "indirect"] | None = None
    supporting_passages: tuple[PassageId, ...] = ()
    entailment_prob: float | None = None


class AnswerTrace(Record):
    """Everything behind a GroundedAnswer: the gate, the generator, each claim's verification, the evidence."""

    mode: Literal["brief", "detailed"]
    baseline: Literal["B1", "B2", "B3"]
    filters: dict[str, str] = Field(default_factory=dict)
    gate: EvidenceGate | None = None  # None for the baselines that skip it
    draft: DraftAnswer | None = None
    claims: tuple[AnswerClaimTrace, ...] = ()
    verified_share: float | None = Field(None, ge=0, le=1)
    citation_problems: tuple[str, ...] = ()
    evidence: tuple[EvidenceChunk, ...] = ()
    manifest: ReportManifest


class GroundedAnswer(Record):
    """Seed 003 §4.2, plus the question, why it abstained (when it did), filter suggestions and the trace."""

    query: str = ""
    answer_summary: str
    claims: tuple[GroundedClaim, ...]
    references: tuple[Reference, ...]
    confidence: AnswerConfidence
    limitations: tuple[str, ...] = ()
    query_refinements: tuple[str, ...] = ()
    abstention_reason: str | None = None
    filter_suggestions: tuple[str, ...] = ()
    trace: AnswerTrace | None = None
