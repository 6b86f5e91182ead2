"""Paragraph splitting and stable ids: normalised document text -> passage spans with content-hash ids.

A passage id is `<doc_id>#<hash>`; the hash covers only the passage's own text, so an unchanged
paragraph keeps its id when other paragraphs of the document change.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass

from veriground.text.sentences import sentence_cut_offsets

PASSAGE_HASH_CHARS = 12  # 48 bits: collisions inside one document are negligible
MAX_DOC_ID_CHARS = 120
_BLOCK_SEPARATOR = re.compile(r"\n\n+")
_DOC_ID_UNSAFE = re.compile(r"[^a-z0-9._/-]+")


@dataclass(frozen=True)
class PassageSpan:
    char_start: int
    char_end: int
    passage_id: str


def make_doc_id(source_key: str) -> str:
    """A readable, URL-safe id from the source identity (a path relative to the ingest root)."""
    key = unicodedata.normalize("NFKD", source_key).encode("ascii", "ignore").decode().lower()
    stem, dot, suffix = key.rpartition(".")
    if dot and "/" not in suffix and stem:
        key = stem
    slug = _DOC_ID_UNSAFE.sub("-", key).strip("-/.") or "document"
    if slug != key.strip("-/.") or len(slug) > MAX_DOC_ID_CHARS:
        # Lossy slugs and truncations get a hash of the full key so two sources never share an id.
        digest = hashlib.sha256(source_key.encode()).hexdigest()[:8]
        slug = f"{slug[: MAX_DOC_ID_CHARS - 9]}-{digest}"
    return slug


def hash_passage(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:PASSAGE_HASH_CHARS]


def split_passages(text: str, doc_id: str, *, min_chars: int, max_chars: int) -> list[PassageSpan]:
    """Blank-line blocks; short blocks join the next one; long blocks are cut at sentence ends."""
    spans: list[tuple[int, int]] = []
    pending_start: int | None = None
    for start, end in _blocks(text):
        if pending_start is not None:
            start = pending_start
        if end - start < min_chars:
            pending_start = start
            continue
        pending_start = None
        spans.extend(_cut_long(text, start, end, max_chars))
    if pending_start is not None:
        if spans and len(text) - pending_start < min_chars:
            spans[-1] = (spans[-1][0], len(text))  # a short tail joins the passage before it
        else:
            spans.append((pending_start, len(text)))
    return _assign_ids(text, doc_id, spans)


def _blocks(text: str) -> list[tuple[int, int]]:
    blocks, position = [], 0
    for separator in _BLOCK_SEPARATOR.finditer(text):
        if separator.start() > position:
            blocks.append((position, separator.start()))
        position = separator.end()
    if position < len(text):
        blocks.append((position, len(text)))
    return blocks


def _cut_long(text: str, start: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    pieces = []
    while end - start > max_chars:
        window = text[start : start + max_chars]
        cuts = [offset for offset in sentence_cut_offsets(window) if offset > max_chars // 3]
        if not cuts:
            space = window.rfind(" ", max_chars // 2)
            cuts = [space + 1] if space > 0 else [max_chars]
        cut = start + cuts[-1]
        pieces.append((start, _rstrip(text, start, cut)))
        start = cut
    pieces.append((start, end))
    return pieces


def _rstrip(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


def _assign_ids(text: str, doc_id: str, spans: list[tuple[int, int]]) -> list[PassageSpan]:
    seen: dict[str, int] = {}
    result = []
    for start, end in spans:
        digest = hash_passage(text[start:end])
        seen[digest] = seen.get(digest, 0) + 1
        # A paragraph repeated inside one document gets its occurrence number, keeping ids unique.
        suffix = f"-{seen[digest]}" if seen[digest] > 1 else ""
        result.append(PassageSpan(start, end, f"{doc_id}#{digest}{suffix}"))
    return result
