"""Ingestion: files and folders -> loaded documents -> passages with stable ids -> the corpus store.

Each document is written in its own transaction; a file that fails is reported and the batch goes on. With
`prune`, documents of an ingested folder whose files are gone get a tombstone version (`CorpusStore.remove_document`).
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from veriground.config import IngestConfig
from veriground.corpus.loaders import SUPPORTED_SUFFIXES, load_file
from veriground.corpus.passage_kinds import classify_passages
from veriground.corpus.passages import PassageSpan, make_doc_id, split_passages
from veriground.corpus.store import CorpusStore
from veriground.corpus.store_rows import NewPassage, StoredVersion
from veriground.errors import InputFileError, NothingToIngest
from veriground.schema import IngestItem, IngestReport, LoadedDocument, PageSpan, SourceType
from veriground.text.terms import tokenize

SOURCES_FILE_NAME = "SOURCES.toml"  # optional, in an ingest root: per-subfolder source_id/source_type
_BYTES_PER_MB = 1024 * 1024
# Files that describe a corpus rather than belong to it: a licence word in any case with a text extension
# (license.txt, License.md), or in capitals with any variant (LICENSE-MIT, COPYING.LESSER); NOTICE and provenance
# files in capitals only, as projects and datasets ship them: "notice.md" (a policy notice), "notice-of-meeting.md"
# and a lecture called "sources.md" are documents.
_TEXT_EXTENSION = r"(?:\.(?i:md|markdown|txt|rst|html?))?"
_META_FILE_NAME = re.compile(
    rf"(?i:licen[cs]e|copying){_TEXT_EXTENSION}"
    r"|(?:LICEN[CS]E|COPYING|NOTICE)[-_.][\w.-]+"
    rf"|(?:NOTICE|SOURCES?|ATTRIBUTIONS?){_TEXT_EXTENSION}"
)


@dataclass(frozen=True)
class SourcesTable:
    """SOURCES.toml: glob patterns to skip, and one table of source labels per top-level subfolder."""

    exclude: tuple[str, ...] = ()
    folders: dict[str, dict[str, object]] | None = None


@dataclass(frozen=True)
class SourceFile:
    """A file to ingest and the identity it is stored under."""

    path: Path
    source_key: str
    default_source_id: str
    sources_entry: dict[str, object]


def ingest_paths(
    paths: Sequence[Path],
    store: CorpusStore,
    config: IngestConfig,
    on_item: Callable[[IngestItem], None] | None = None,
    *,
    prune: bool = False,
    on_progress: Callable[[int, int], None] | None = None,
) -> IngestReport:
    """Ingest every supported file under `paths`; failures become items, never exceptions.

    Licence, NOTICE and SOURCE/ATTRIBUTION files found in a folder are skipped items (`is_meta_file`) unless
    `config.include_meta_files`. `on_progress(done, total)` counts the files of each path as they are read.

    `prune`: for each folder in `paths`, documents stored under that folder's name whose file the walk no longer
    finds (deleted, renamed, hidden or now excluded by SOURCES.toml) are removed with a tombstone version."""
    items: list[IngestItem] = []

    def record(item: IngestItem) -> None:
        items.append(item)
        if on_item is not None:
            on_item(item)

    for path in paths:
        try:
            files = list(discover_files(path))
        except InputFileError as err:
            record(IngestItem(path=err.path, outcome="failed", problem=str(err)))
            continue
        # A file named on the command line is ingested whatever its name; a folder's meta files are not.
        skip_meta = path.is_dir() and not config.include_meta_files
        for done, source in enumerate(files):
            if on_progress is not None:
                on_progress(done, len(files))
            if skip_meta and is_meta_file(source.path.name):
                record(IngestItem(path=str(source.path), outcome="skipped", problem=meta_file_problem(source.path)))
                continue
            for item in _ingest_file(source, store, config):
                record(item)
        if on_progress is not None:
            on_progress(len(files), len(files))
        if prune and path.is_dir():
            for item in _prune_missing(path, files, store):
                record(item)
    return IngestReport(
        items=tuple(items),
        added=sum(item.outcome == "added" for item in items),
        new_version=sum(item.outcome == "new_version" for item in items),
        unchanged=sum(item.outcome == "unchanged" for item in items),
        skipped=sum(item.outcome == "skipped" for item in items),
        failed=sum(item.outcome == "failed" for item in items),
        passages_indexed=store.latest_passage_count(),
        removed=sum(item.outcome == "removed" for item in items),
    )


def is_meta_file(name: str) -> bool:
    """Whether a file name is a licence, notice or provenance file (LICENSE-MIT, COPYING, NOTICE, SOURCE.md…)."""
    return _META_FILE_NAME.fullmatch(name) is not None


def meta_file_problem(path: Path) -> str:
    return f"{path}: a licence or provenance file, not a document (--include-meta-files ingests it)"


def _prune_missing(folder: Path, files: Sequence[SourceFile], store: CorpusStore) -> Iterator[IngestItem]:
    """Tombstones for documents under `folder`'s key prefix whose file (or JSONL file) was not found now."""
    present = {source.source_key for source in files}
    for doc_id, source_key in store.live_documents_under(f"{folder.resolve().name}/"):
        parts = source_key.split("/")
        # A JSONL record's key is <file key>/<record id>: it stays while its file is there.
        if any("/".join(parts[:end]) in present for end in range(1, len(parts) + 1)):
            continue
        version, written = store.remove_document(doc_id)
        if written:
            yield IngestItem(path=source_key, outcome="removed", doc_id=doc_id, version=version)


def discover_files(path: Path) -> Iterator[SourceFile]:
    """The files under `path` in a stable order; hidden files and folders are skipped."""
    if not path.exists():
        raise InputFileError(path, "no such file or directory", "check the path")
    root = path.resolve()
    if root.is_file():
        yield SourceFile(path, root.name, root.stem, {})
        return
    sources = _read_sources_file(root / SOURCES_FILE_NAME)
    excluded = (SOURCES_FILE_NAME, *sources.exclude)
    for file in sorted(root.rglob("*")):
        relative = file.relative_to(root)
        if any(part.startswith(".") for part in relative.parts) or not file.is_file():
            continue
        if any(relative.match(pattern) for pattern in excluded):
            continue
        top = relative.parts[0] if len(relative.parts) > 1 else None
        default_source_id = top if top is not None else root.name
        entry = (sources.folders or {}).get(top or "", {})
        yield SourceFile(file, f"{root.name}/{relative.as_posix()}", default_source_id, entry)


def _read_sources_file(path: Path) -> SourcesTable:
    if not path.is_file():
        return SourcesTable()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise InputFileError(path, f"is not valid TOML: {err}", "fix the file or remove it") from None
    exclude = data.get("exclude", [])
    if not isinstance(exclude, list) or not all(isinstance(pattern, str) for pattern in exclude):
        raise InputFileError(path, "'exclude' must be a list of glob patterns", 'e.g. exclude = ["README.md"]')
    folders = {key: value for key, value in data.items() if isinstance(value, dict)}
    return SourcesTable(tuple(exclude), folders)


def _ingest_file(source: SourceFile, store: CorpusStore, config: IngestConfig) -> list[IngestItem]:
    shown = str(source.path)
    if source.path.suffix.lower() not in SUPPORTED_SUFFIXES:
        problem = (
            f"{shown}: unsupported file type '{source.path.suffix or '(none)'}' (supported: "
            + ", ".join(SUPPORTED_SUFFIXES)
            + ")"
        )
        return [IngestItem(path=shown, outcome="failed", problem=problem)]
    max_bytes = int(config.max_file_mb * _BYTES_PER_MB)
    raw_sha = None
    if source.path.suffix.lower() != ".jsonl":  # JSONL holds many documents, each hashed on its own
        raw_sha = _sha256_within_limit(source.path, max_bytes)
        unchanged = _unchanged_item(source, raw_sha, store, config, shown)
        if unchanged is not None:
            return [unchanged]
    try:
        documents = load_file(source.path, max_bytes=max_bytes)
    except NothingToIngest as err:
        return [IngestItem(path=shown, outcome="skipped", problem=str(err))]
    except InputFileError as err:
        return [IngestItem(path=shown, outcome="failed", problem=str(err))]
    items = []
    for loaded in documents:
        key = source.source_key if loaded.record_key is None else f"{source.source_key}/{loaded.record_key}"
        shown_key = shown if loaded.record_key is None else f"{shown}#{loaded.record_key}"
        try:
            sha256 = raw_sha or hashlib.sha256(_canonical_record(loaded)).hexdigest()
            items.append(_store_document(loaded, key, sha256, source, store, config, shown_key))
        except InputFileError as err:
            items.append(IngestItem(path=shown_key, outcome="failed", problem=str(err)))
    return items


def _unchanged_item(
    source: SourceFile, raw_sha: str | None, store: CorpusStore, config: IngestConfig, shown: str
) -> IngestItem | None:
    """The `unchanged` item when the file's bytes and labels match its latest version, without parsing it."""
    previous = store.latest_version(source.source_key)
    if previous is None or raw_sha is None or raw_sha != previous.sha256:
        return None
    # Same bytes, same front matter: resolve the labels from the metadata stored with that version.
    stored_metadata = store.document(previous.doc_id, previous.version).metadata
    try:
        source_id, source_type = _resolve_source(stored_metadata, source, config, shown)
    except InputFileError:
        return None
    if (source_id, source_type.value) != (previous.source_id, previous.source_type):
        return None
    return IngestItem(
        path=shown,
        outcome="unchanged",
        doc_id=previous.doc_id,
        version=previous.version,
        n_passages=len(previous.passage_ids),
    )


def _store_document(
    loaded: LoadedDocument,
    source_key: str,
    sha256: str,
    source: SourceFile,
    store: CorpusStore,
    config: IngestConfig,
    shown: str,
) -> IngestItem:
    source_id, source_type = _resolve_source(loaded.metadata, source, config, shown)
    previous = store.latest_version(source_key)
    doc_id = previous.doc_id if previous else _unique_doc_id(store, source_key)
    # Relabelling a source (another source_id or source_type) makes a new version, as new content does.
    if previous is not None and (previous.sha256, previous.source_id, previous.source_type) == (
        sha256,
        source_id,
        source_type.value,
    ):
        return IngestItem(
            path=shown,
            outcome="unchanged",
            doc_id=doc_id,
            version=previous.version,
            n_passages=len(previous.passage_ids),
        )
    spans = split_passages(loaded.text, doc_id, min_chars=config.min_passage_chars, max_chars=config.max_passage_chars)
    if not spans:
        raise InputFileError(shown, "has no text to ingest", "check that the file is not empty")
    version, written = store.write_version(
        doc_id=doc_id,
        source_key=source_key,
        sha256=sha256,
        loaded=loaded,
        source_id=source_id,
        source_type=source_type,
        passages=_new_passages(loaded, spans, store),
    )
    if not written:  # another process stored these very bytes between our check and our write
        return IngestItem(path=shown, outcome="unchanged", doc_id=doc_id, version=version, n_passages=len(spans))
    return _stored_item(shown, doc_id, version, spans, previous)


def _new_passages(loaded: LoadedDocument, spans: Sequence[PassageSpan], store: CorpusStore) -> list[NewPassage]:
    """The passages to write, each with its kind and its BM25 tokens (reused from the store when it holds them)."""
    cached = store.cached_tokens(span.passage_id for span in spans)
    kinds = classify_passages(loaded.text, [(span.char_start, span.char_end) for span in spans])
    return [
        NewPassage(
            passage_id=span.passage_id,
            char_start=span.char_start,
            char_end=span.char_end,
            page=_page_at(loaded.pages, span.char_start),
            tokens=cached.get(span.passage_id) or " ".join(tokenize(loaded.text[span.char_start : span.char_end])),
            kind=kind,
        )
        for span, kind in zip(spans, kinds, strict=True)
    ]


def _stored_item(
    shown: str, doc_id: str, version: int, spans: Sequence[PassageSpan], previous: StoredVersion | None
) -> IngestItem:
    """The item of a version just written: added, or a new version with how many of its passages are new."""
    new_ids = {span.passage_id for span in spans}
    changed = len(new_ids - previous.passage_ids) if previous else len(new_ids)
    return IngestItem(
        path=shown,
        outcome="added" if previous is None else "new_version",
        doc_id=doc_id,
        version=version,
        n_passages=len(spans),
        passages_changed=changed,
    )


def _resolve_source(
    metadata: Mapping[str, object], source: SourceFile, config: IngestConfig, shown: str
) -> tuple[str, SourceType]:
    """Flag > the document's own metadata > SOURCES.toml > folder name; type defaults to unknown."""
    layers = (
        {"source_id": config.source_id, "source_type": config.source_type},
        metadata,
        source.sources_entry,
    )
    source_id = next((str(layer["source_id"]) for layer in layers if layer.get("source_id")), None)
    raw_type = next((layer["source_type"] for layer in layers if layer.get("source_type")), None)
    try:
        source_type = SourceType(str(raw_type)) if raw_type is not None else SourceType.UNKNOWN
    except ValueError:
        valid = ", ".join(member.value for member in SourceType)
        raise InputFileError(
            shown, f"source_type {raw_type!r} is not one of: {valid}", "fix the front matter or SOURCES.toml"
        ) from None
    return source_id or source.default_source_id, source_type


def _unique_doc_id(store: CorpusStore, source_key: str) -> str:
    doc_id = make_doc_id(source_key)
    owner = store.doc_id_owner(doc_id)
    if owner is None or owner == source_key:
        return doc_id
    # Two keys that slug alike ("a b.md" and "a-b.md"): the later one gets a hash-qualified id.
    return f"{doc_id}-{hashlib.sha256(source_key.encode()).hexdigest()[:8]}"


def _page_at(pages: tuple[PageSpan, ...], offset: int) -> int | None:
    for span in pages:
        if span.char_start <= offset < span.char_end:
            return span.page
    return None


def _sha256_within_limit(path: Path, max_bytes: int) -> str | None:
    """The file's SHA-256, or None when it cannot be read or is over the limit (the loader then says why)."""
    try:
        if path.stat().st_size > max_bytes:
            return None
        return _file_sha256(path)
    except OSError:
        return None


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _canonical_record(loaded: LoadedDocument) -> bytes:
    payload = {"text": loaded.text, "metadata": loaded.metadata, "title": loaded.title}
    return json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()
