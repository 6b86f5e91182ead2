"""Evidence packs: a JSON file -> a validated EvidencePack whose passages all have text and a unique id.

A pack is `{"query": ..., "passages": [{"text": ..., "passage_id": ..., ...}]}` or just the list of passages.
A passage given only by `passage_id` is read from the corpus; one the corpus lacks is an error naming it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from veriground.errors import InputFileError, NotFoundError
from veriground.schema import EvidenceChunk, EvidencePack, PackPassage, SourceType
from veriground.text_input import parse_json, read_utf8_file

PACK_DOC_ID = "pack"
PACK_SOURCE_ID = "evidence-pack"  # passages with no source_id count as one source, never as many
_ALLOWED = ", ".join(PackPassage.model_fields)
_PACK_FIELDS = ", ".join(EvidencePack.model_fields)


def read_pack(path: Path, resolve: Callable[[str], str] | None = None) -> EvidencePack:
    """Parse and validate a pack file; `resolve` reads a passage's text by id from the corpus."""
    text = read_utf8_file(path, "the evidence pack", "pass an existing JSON file to --evidence")
    try:
        data = parse_json(text)
    except json.JSONDecodeError as err:
        raise InputFileError(path, f"not valid JSON: {err.msg} at line {err.lineno} column {err.colno}") from None
    except ValueError as err:
        raise InputFileError(path, f"cannot be read: {err}", "fix the evidence pack's JSON") from None
    try:
        pack = pack_from_data(data)
    except ValidationError as err:
        raise InputFileError(path, *_describe(err)) from None
    if pack is None:
        raise InputFileError(path, "the evidence pack has no passages", 'add a "passages" list with at least one')
    return complete_pack(pack, resolve, origin=str(path))


def pack_from_data(data: Any) -> EvidencePack | None:
    """A pack as JSON data (the pack, or just the list of its passages) -> the validated EvidencePack, not yet a
    `complete_pack`; None when it holds no passages. A bad or unknown field raises pydantic's ValidationError."""
    if isinstance(data, list):
        data = {"passages": data}
    if isinstance(data, dict) and not data.get("passages"):
        return None
    return EvidencePack.model_validate(data)


def pack_chunks(pack: EvidencePack) -> list[EvidenceChunk]:
    """The pack's passages as evidence chunks, in pack order (rank = position); the pack is a `complete_pack`."""
    chunks = []
    for index, passage in enumerate(pack.passages):
        assert passage.text is not None  # complete_pack gives every passage its text
        doc_id = passage.doc_id or PACK_DOC_ID
        chunks.append(
            EvidenceChunk(
                doc_id=doc_id,
                sent_id=index,
                passage_id=passage.passage_id,
                text=passage.text,
                char_start=0,
                char_end=len(passage.text),
                rank=index + 1,
                source=passage.source_id or passage.doc_id or PACK_SOURCE_ID,
                source_type=passage.source_type or SourceType.UNKNOWN,
                version=f"{doc_id}@pack",
            )
        )
    return chunks


def complete_pack(
    pack: EvidencePack, resolve: Callable[[str], str] | None = None, *, origin: str = "evidence pack"
) -> EvidencePack:
    """Every passage with its text (read by id through `resolve` when missing) and a unique passage id
    (`pack#<sha256 of the text, 12 hex>` when none is given); `origin` names the pack in errors."""
    path = origin
    passages, seen = [], set()
    for number, passage in enumerate(pack.passages, start=1):
        text = passage.text
        if text is None or not text.strip():
            if passage.passage_id is None:
                raise InputFileError(path, f"passage {number} has neither text nor passage_id", "give it a text")
            text = _read_from_corpus(passage.passage_id, number, path, resolve)
        passage_id = passage.passage_id or f"{PACK_DOC_ID}#{hashlib.sha256(text.encode()).hexdigest()[:12]}"
        if passage_id in seen:
            raise InputFileError(
                path, f"passage {number} repeats passage_id {passage_id!r}", "give each passage its own id"
            )
        seen.add(passage_id)
        passages.append(passage.model_copy(update={"text": text, "passage_id": passage_id}))
    return pack.model_copy(update={"passages": tuple(passages)})


def _read_from_corpus(passage_id: str, number: int, path: str, resolve: Callable[[str], str] | None) -> str:
    problem = f"passage {number} gives only passage_id {passage_id!r}"
    if resolve is None:
        raise InputFileError(path, f"{problem} and there is no corpus to read it from", "give its text in the pack")
    try:
        return resolve(passage_id)
    except NotFoundError:
        raise InputFileError(
            path, f"{problem}, which the corpus does not hold (a dangling id)", "give its text or fix the id"
        ) from None


def _describe(err: ValidationError) -> tuple[str, str]:
    """The first problem, and the fix that fits where it is (a passage field or the top level)."""
    first = err.errors()[0]
    location = [str(part) for part in first["loc"]]
    where = ".".join(location) or "the top level"
    in_passage = location[:1] == ["passages"] and len(location) > 2
    fix = f"a pack passage may have: {_ALLOWED}" if in_passage else f"a pack may have: {_PACK_FIELDS}"
    if first["type"] == "extra_forbidden":
        return f"unknown field {where!r} in the evidence pack", fix
    return f"bad evidence pack at {where}: {first['msg']}", fix
