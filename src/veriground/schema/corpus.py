"""Corpus records: loaded documents, passages, document versions, ingest reports, retrieved evidence chunks and
user-given evidence packs."""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import Field

from veriground.schema.base import DocId, MetadataValue, PassageId, Record, SourceType

PassageKind = Literal["text", "heading", "exercise", "quiz", "glossary", "objectives"]
# Only `text` passages are evidence by default (config retrieval.evidence_kinds): exercises, quiz items and their
# multiple-choice options, glossary lists and bare headings state no facts a claim can rest on.


PASSAGE_KINDS: tuple[str, ...] = get_args(PassageKind)


class PageSpan(Record):
    """Where one PDF page lies in the normalised document text."""

    page: int = Field(ge=1)
    char_start: int = Field(ge=0)
    char_end: int = Field(ge=0)


class LoadedDocument(Record):
    """A loader's output: the normalised text of one document, its metadata and page map."""

    text: str
    loader: Literal["txt", "md", "html", "pdf", "tex", "ptx", "jsonl"]
    record_key: str | None = None  # the record id inside a multi-document file (JSONL)
    title: str | None = None
    metadata: dict[str, MetadataValue] = Field(default_factory=dict)
    pages: tuple[PageSpan, ...] = ()


class Passage(Record):
    """One paragraph of one document version; `text == document_text[char_start:char_end]`."""

    passage_id: PassageId
    doc_id: DocId
    version: int = Field(ge=1)
    ordinal: int = Field(ge=0)
    text: str
    char_start: int = Field(ge=0)
    char_end: int = Field(ge=0)
    page: int | None = None
    source_id: str
    source_type: SourceType
    kind: PassageKind = "text"  # what the block is (corpus/passage_kinds.py); only evidence kinds are retrieved
    doc_sha256: str | None = None  # SHA-256 of the document version's file bytes (of the record, for JSONL)


class DocumentInfo(Record):
    """One version of a document as the store holds it."""

    doc_id: DocId
    version: int = Field(ge=1)
    versions: int = Field(ge=1)  # how many versions the store holds
    source_key: str
    source_id: str
    source_type: SourceType
    loader: str
    title: str | None = None
    sha256: str
    n_passages: int = Field(ge=0)
    n_chars: int = Field(ge=0)
    metadata: dict[str, MetadataValue] = Field(default_factory=dict)
    # A tombstone: `corpus remove` or `ingest --prune` deleted the document in this version; it has no text or
    # passages, search and verification no longer see the document, and older versions stay readable.
    deleted: bool = False


# "removed": `ingest --prune` found the document's file gone and recorded a tombstone version.
IngestOutcome = Literal["added", "new_version", "unchanged", "skipped", "failed", "removed"]


class IngestItem(Record):
    """What happened to one document (or one failed file) during an ingest."""

    path: str
    outcome: IngestOutcome
    doc_id: DocId | None = None
    version: int | None = None
    n_passages: int = 0
    passages_changed: int = 0  # passage ids in this version that the previous version lacked
    problem: str | None = None


class IngestReport(Record):
    items: tuple[IngestItem, ...]
    added: int
    new_version: int
    unchanged: int
    skipped: int
    failed: int
    passages_indexed: int
    removed: int = 0  # documents `ingest --prune` marked deleted (a tombstone version each)


class EvidenceChunk(Record):
    """A retrieved passage; `sent_id` is the paragraph ordinal inside its document version."""

    doc_id: DocId
    sent_id: int
    passage_id: PassageId
    text: str
    char_start: int
    char_end: int
    score_bm25: float | None = None
    score_dense: float | None = None
    score_hybrid: float | None = None  # reciprocal-rank fusion of the bm25 and dense ranks
    score_rerank: float | None = None  # the cross-encoder's score, when a reranker ordered the list
    rank: int = Field(ge=1)
    source: str  # the source_id
    source_type: SourceType = SourceType.UNKNOWN
    version: str  # "<doc_id>@v<version>"
    page: int | None = None
    kind: PassageKind = "text"  # the passage's kind (text, heading, exercise, quiz, glossary)
    title: str | None = None  # the document version's title, when the evidence came from a corpus that knows it
    # SHA-256 of the document version's file bytes: byte-identical files ingested under two paths share it.
    doc_sha256: str | None = None


class PackPassage(Record):
    """One passage of a user-given evidence pack: its text, or the id of a corpus passage to read it from."""

    passage_id: PassageId | None = None
    text: str | None = None
    doc_id: DocId | None = None
    title: str | None = None
    source_id: str | None = None
    source_type: SourceType | None = None


class EvidencePack(Record):
    """`veriground verify --evidence PACK.json`: check against exactly these passages (seed 003 /qa/verify)."""

    query: str | None = None
    passages: tuple[PackPassage, ...] = Field(min_length=1)
