"""The corpus store's rows and records: what ingest hands the store to write, and SQLite rows -> Passage and
DocumentInfo records (corpus/store.py runs the queries)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from veriground.schema import DocumentInfo, Passage, PassageKind

# Passage rows: SELECT {PASSAGE_COLUMNS} FROM passages p JOIN passage_texts t ... JOIN versions v ...
PASSAGE_COLUMNS = """
    p.passage_id, p.doc_id, p.version, p.ordinal, t.text, p.char_start, p.char_end, p.page,
    v.source_id, v.source_type, p.kind, v.sha256
"""
_PASSAGE_FIELDS = (
    "passage_id", "doc_id", "version", "ordinal", "text", "char_start", "char_end", "page",
    "source_id", "source_type", "kind", "doc_sha256",
)  # fmt: skip
# The columns of a version row that DocumentInfo reads, in the order CorpusStore.document selects them.
_VERSION_FIELDS = (
    "sha256", "loader", "title", "source_id", "source_type", "metadata", "n_chars", "n_passages", "deleted"
)  # fmt: skip
# SQLite caps the parameters of one statement, so an `IN (...)` list is sent in chunks of this many values.
IN_LIST_CHUNK = 500


@dataclass(frozen=True)
class NewPassage:
    """A passage about to be written, with its BM25 tokens."""

    passage_id: str
    char_start: int
    char_end: int
    page: int | None
    tokens: str
    kind: PassageKind = "text"


@dataclass(frozen=True)
class StoredVersion:
    doc_id: str
    version: int
    sha256: str
    source_id: str
    source_type: str
    passage_ids: frozenset[str]


def passage_from_row(row: Sequence[Any]) -> Passage:
    """A row of PASSAGE_COLUMNS as a Passage."""
    return Passage(**dict(zip(_PASSAGE_FIELDS, row, strict=True)))


def document_from_row(doc_id: str, version: int, versions: int, source_key: str, row: Sequence[Any]) -> DocumentInfo:
    """A version row (sha256, loader, title, source_id, source_type, metadata, text length, passage count, deleted)
    as a DocumentInfo."""
    fields = dict(zip(_VERSION_FIELDS, row, strict=True))
    fields.update(metadata=json.loads(fields["metadata"]), deleted=bool(fields["deleted"]))
    return DocumentInfo(doc_id=doc_id, version=version, versions=versions, source_key=source_key, **fields)


def in_list_chunks(values: Sequence[str]) -> Iterator[tuple[list[str], str]]:
    """(chunk, "?,?,...") for each IN_LIST_CHUNK values: the parameters and placeholders of one `IN (...)` query."""
    for chunk_start in range(0, len(values), IN_LIST_CHUNK):
        chunk = list(values[chunk_start : chunk_start + IN_LIST_CHUNK])
        yield chunk, ",".join("?" * len(chunk))
