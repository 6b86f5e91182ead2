"""The base of every record, the id aliases and the corpus and claim vocabularies (source types, claim types,
seed 003 claim classes); the verdict vocabulary is in `vocabulary`."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from veriground.schema.vocabulary import (  # noqa: F401  (re-exported: the vocabulary's old home)
    AnswerConfidence,
    RejectionReason,
    SignalStatus,
    VerificationStatus,
)

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
