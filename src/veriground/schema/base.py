"""The base of every record, the id aliases and the shared vocabularies (seed 000 statuses and reason codes,
claim types, source types, seed 003 claim classes and answer confidence)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict

PassageId = str


DocId = str


MetadataValue = str | int | float | bool | None | list[str]


class Record(BaseModel):
    """Base of every record: immutable, unknown fields rejected."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class SourceType(StrEnum):
    """What kind of source a document is; drives independent-source counting (seed 000)."""

    TEXTBOOK = "textbook"
    LECTURE_NOTES = "lecture_notes"
    TRANSCRIPT = "transcript"
    POLICY = "policy"
    PAPER = "paper"
    WEB = "web"
    DATASET = "dataset"
    UNKNOWN = "unknown"


class SignalStatus(StrEnum):
    COMPUTED = "computed"
    NOT_APPLICABLE = "not_applicable"
    UNAVAILABLE = "unavailable"


class VerificationStatus(StrEnum):
    """Seed 000 statuses, plus UNVERIFIED when a needed signal could not be computed."""

    VERIFIED = "VERIFIED"
    LOW_CONFIDENCE = "LOW_CONFIDENCE"
    REJECTED = "REJECTED"
    UNVERIFIED = "UNVERIFIED"


class RejectionReason(StrEnum):
    """Seed 000 reason codes (`RejectionReason`), plus the codes of the verified and unverified paths."""

    NO_EVIDENCE = "no_evidence"
    LOW_ENTAILMENT = "low_entailment"
    INSUFFICIENT_SOURCES = "insufficient_sources"
    HIGH_CONTRADICTION = "high_contradiction"
    CONFLICTING_VERDICTS = "conflicting_verdicts"
    SUFFICIENT_EVIDENCE = "sufficient_evidence"
    SIGNAL_UNAVAILABLE = "signal_unavailable"
    DANGLING_CITATION = "dangling_citation"
    NUMERIC_MISMATCH = "numeric_mismatch"
    EVIDENCE_CONFLICT = "evidence_conflict"
    FORMAL_MISMATCH = "formal_mismatch"  # units, dimensions, an equation or a complexity bound disagree
    OUT_OF_SCOPE = "out_of_scope"  # beyond the domain profile's scope
    DEPENDENCY_WARNING = "dependency_warning"  # uses a term before or without its definition (strict mode)
    SUPERSEDED_CITATION = "superseded_citation"  # cites a passage its document has since changed or removed


class ClaimType(StrEnum):
    DEFINITIONAL = "definitional"
    EQUATION = "equation"
    NUMERIC = "numeric"
    CONCEPTUAL = "conceptual"
    THEOREM = "theorem"
    PROOF_STEP = "proof_step"
    ALGORITHMIC = "algorithmic"
    COMPLEXITY = "complexity"
    FACTUAL = "factual"
    COMPARATIVE = "comparative"
    SCOPE = "scope"
    HISTORICAL = "historical"


class AnswerClaimClass(StrEnum):
    """Seed 003 §6.1 claim classes of a generated answer; scope and comparative claims are the higher risk."""

    FACTUAL = "factual_lit_claim"
    COMPARATIVE = "comparative_claim"
    SCOPE = "scope_claim"
    HISTORICAL = "historical_claim"


class AnswerConfidence(StrEnum):
    """Seed 003 §7 answer-level confidence labels."""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"
    INSUFFICIENT_EVIDENCE = "insufficient_evidence"
