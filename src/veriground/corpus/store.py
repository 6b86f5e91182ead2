"""The corpus store: one SQLite database (WAL) holding versioned documents and their passages.

Writes go one document per transaction, so an error mid-document leaves the store as it was before it.
Every write bumps `generation`, which indexes compare against to know they are stale. A new store's file appears
with all its tables or not at all."""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from veriground.corpus.store_rows import (
    PASSAGE_COLUMNS,
    NewPassage,
    StoredVersion,
    document_from_row,
    in_list_chunks,
    passage_from_row,
)
from veriground.corpus.store_schema import (
    SCHEMA_VERSION,
    UNFINISHED_INFIX,
    create_tables,
    has_all_tables,
    migrate,
    needs_migration,
    remove_unfinished_store_files,
    unlink_quietly,
)
from veriground.errors import NotFoundError, StoreError
from veriground.schema import DocumentInfo, LoadedDocument, Passage, SourceType

DB_FILE_NAME = "corpus.sqlite3"
BUSY_TIMEOUT_MS = 10_000
_LATEST_ONLY = "JOIN documents d ON d.doc_id = p.doc_id AND d.latest_version = p.version"


class CorpusStore:
    """SQLite-backed corpus; use as a context manager or call `close()`."""

    def __init__(self, corpus_dir: Path, *, create: bool = True) -> None:
        self.corpus_dir = corpus_dir
        db_path = corpus_dir / DB_FILE_NAME
        if not db_path.exists() and not create:
            raise StoreError(
                f"no corpus at {corpus_dir} (no {DB_FILE_NAME}); "
                "run `veriground ingest PATH --corpus DIR` first or point --corpus at an existing corpus"
            )
        try:
            if not db_path.exists():
                corpus_dir.mkdir(parents=True, exist_ok=True)
                _create_store_file(db_path)
            self._conn = sqlite3.connect(db_path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
            self._conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA foreign_keys = ON")
            if not has_all_tables(self._conn):  # a file an older veriground left table-less when it was killed
                with self._transaction():
                    create_tables(self._conn)
            remove_unfinished_store_files(db_path)
            if needs_migration(self._conn):
                with self._transaction():
                    migrate(self._conn)
        except (sqlite3.Error, OSError) as err:
            raise StoreError(f"cannot open the corpus store at {db_path}: {err}") from None
        found = self._meta("schema_version")
        if found != SCHEMA_VERSION:
            raise StoreError(
                f"corpus at {corpus_dir} has store schema {found}, this veriground reads {SCHEMA_VERSION}; "
                "re-ingest into a new --corpus directory"
            )

    def __enter__(self) -> CorpusStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._conn.close()

    # --- reads --------------------------------------------------------------------------------

    @property
    def generation(self) -> int:
        return int(self._meta("generation"))

    def latest_version(self, source_key: str) -> StoredVersion | None:
        row = self._conn.execute(
            "SELECT d.doc_id, d.latest_version, v.sha256, v.source_id, v.source_type FROM documents d "
            "JOIN versions v ON v.doc_id = d.doc_id AND v.version = d.latest_version "
            "WHERE d.source_key = ?",
            (source_key,),
        ).fetchone()
        if row is None:
            return None
        ids = self._conn.execute(
            "SELECT passage_id FROM passages WHERE doc_id = ? AND version = ?", (row[0], row[1])
        ).fetchall()
        doc_id, version, sha256, source_id, source_type = row
        return StoredVersion(doc_id, version, sha256, source_id, source_type, frozenset(pid for (pid,) in ids))

    def doc_id_owner(self, doc_id: str) -> str | None:
        row = self._conn.execute("SELECT source_key FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
        return None if row is None else row[0]

    def list_documents(self, *, include_deleted: bool = False) -> list[DocumentInfo]:
        """Every document at its latest version; removed ones (a tombstone latest) only when asked."""
        rows = self._conn.execute(
            "SELECT d.doc_id, d.latest_version FROM documents d "
            "JOIN versions v ON v.doc_id = d.doc_id AND v.version = d.latest_version "
            "WHERE ? OR v.deleted = 0 ORDER BY d.doc_id",
            (include_deleted,),
        ).fetchall()
        return [self.document(doc_id, version) for doc_id, version in rows]

    def live_documents_under(self, key_prefix: str) -> list[tuple[str, str]]:
        """(doc_id, source_key) of documents not removed whose source key starts with `key_prefix`."""
        rows = self._conn.execute(
            "SELECT d.doc_id, d.source_key FROM documents d "
            "JOIN versions v ON v.doc_id = d.doc_id AND v.version = d.latest_version "
            "WHERE v.deleted = 0 AND substr(d.source_key, 1, ?) = ? ORDER BY d.doc_id",
            (len(key_prefix), key_prefix),
        ).fetchall()
        return [(doc_id, source_key) for doc_id, source_key in rows]

    def document(self, doc_id: str, version: int | None = None) -> DocumentInfo:
        head = self._conn.execute(
            "SELECT source_key, latest_version FROM documents WHERE doc_id = ?", (doc_id,)
        ).fetchone()
        if head is None:
            raise NotFoundError(f"no document {doc_id!r} in this corpus; `veriground corpus list` shows the ids")
        source_key, latest = head
        wanted = latest if version is None else version
        row = self._conn.execute(
            "SELECT sha256, loader, title, source_id, source_type, metadata, length(text), "
            "(SELECT count(*) FROM passages p WHERE p.doc_id = v.doc_id AND p.version = v.version), deleted "
            "FROM versions v WHERE doc_id = ? AND version = ?",
            (doc_id, wanted),
        ).fetchone()
        if row is None:
            raise NotFoundError(f"document {doc_id!r} has versions 1..{latest}, not {wanted}")
        return document_from_row(doc_id, wanted, latest, source_key, row)

    def document_text(self, doc_id: str, version: int) -> str:
        row = self._conn.execute(
            "SELECT text FROM versions WHERE doc_id = ? AND version = ?", (doc_id, version)
        ).fetchone()
        if row is None:
            raise NotFoundError(f"no version {version} of document {doc_id!r}")
        return row[0]

    def passages_of(self, doc_id: str, version: int) -> list[Passage]:
        rows = self._conn.execute(
            f"SELECT {PASSAGE_COLUMNS} FROM passages p JOIN passage_texts t USING (passage_id) "
            "JOIN versions v ON v.doc_id = p.doc_id AND v.version = p.version "
            "WHERE p.doc_id = ? AND p.version = ? ORDER BY p.ordinal",
            (doc_id, version),
        ).fetchall()
        return [passage_from_row(row) for row in rows]

    def passage(self, passage_id: str) -> Passage:
        """The passage in the newest version of its document that still holds it."""
        row = self._conn.execute(
            f"SELECT {PASSAGE_COLUMNS} FROM passages p JOIN passage_texts t USING (passage_id) "
            "JOIN versions v ON v.doc_id = p.doc_id AND v.version = p.version "
            "WHERE p.passage_id = ? ORDER BY p.version DESC LIMIT 1",
            (passage_id,),
        ).fetchone()
        if row is None:
            raise NotFoundError(
                f"no passage {passage_id!r} in this corpus; ids look like <doc_id>#<12 hex digits>, "
                "as `veriground search` prints them"
            )
        return passage_from_row(row)

    def latest_passages(self, passage_ids: Sequence[str]) -> dict[str, Passage]:
        """Passages of the latest document versions, by id (ids of older versions are left out)."""
        found: dict[str, Passage] = {}
        for chunk, marks in in_list_chunks(passage_ids):
            rows = self._conn.execute(
                f"SELECT {PASSAGE_COLUMNS} FROM passages p JOIN passage_texts t USING (passage_id) "
                "JOIN documents d ON d.doc_id = p.doc_id AND d.latest_version = p.version "
                "JOIN versions v ON v.doc_id = p.doc_id AND v.version = p.version "
                f"WHERE p.passage_id IN ({marks})",
                chunk,
            ).fetchall()
            found.update((row[0], passage_from_row(row)) for row in rows)
        return found

    def latest_passage_kinds(self, excluded_kinds: Iterable[str]) -> dict[str, str]:
        """passage_id -> kind for the passages of latest versions whose kind is one of `excluded_kinds`."""
        kinds = sorted(set(excluded_kinds))
        if not kinds:
            return {}
        marks = ",".join("?" * len(kinds))
        return dict(
            self._conn.execute(
                "SELECT p.passage_id, p.kind FROM passages p "
                "JOIN documents d ON d.doc_id = p.doc_id AND d.latest_version = p.version "
                f"WHERE p.kind IN ({marks})",
                kinds,
            ).fetchall()
        )

    def iter_index_tokens(self) -> Iterator[tuple[str, str]]:
        """(passage_id, tokens) for every passage of every latest version, in a stable order."""
        yield from self._iter_latest("tokens")

    def iter_latest_texts(self) -> Iterator[tuple[str, str]]:
        """(passage_id, text) for every passage of every latest version, in the index's order."""
        yield from self._iter_latest("text")

    def latest_passage_count(self) -> int:
        """How many passages the latest versions hold: what search indexes."""
        return int(self._conn.execute(f"SELECT COUNT(*) FROM passages p {_LATEST_ONLY}").fetchone()[0])

    def _iter_latest(self, column: str) -> Iterator[tuple[str, str]]:
        yield from self._conn.execute(
            f"SELECT p.passage_id, t.{column} FROM passages p JOIN passage_texts t USING (passage_id) "
            f"{_LATEST_ONLY} ORDER BY p.doc_id, p.ordinal"
        )

    def cached_embeddings(self, model_key: str, text_hashes: Sequence[str]) -> dict[str, bytes]:
        """Stored vectors (float32 bytes) by text SHA-256, for one embedding model."""
        found: dict[str, bytes] = {}
        for chunk, marks in in_list_chunks(text_hashes):
            found.update(
                self._conn.execute(
                    f"SELECT text_sha256, vector FROM embeddings WHERE model_key = ? AND text_sha256 IN ({marks})",
                    [model_key, *chunk],
                ).fetchall()
            )
        return found

    def save_embeddings(self, model_key: str, vectors: Iterable[tuple[str, bytes]]) -> None:
        """Store vectors by text SHA-256; embeddings are a cache, so this does not move the generation."""
        with self._transaction():
            self._conn.executemany(
                "INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?)",
                [(model_key, text_hash, vector) for text_hash, vector in vectors],
            )

    def cached_tokens(self, passage_ids: Iterable[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        for chunk, marks in in_list_chunks(list(passage_ids)):
            found.update(
                self._conn.execute(
                    f"SELECT passage_id, tokens FROM passage_texts WHERE passage_id IN ({marks})", chunk
                ).fetchall()
            )
        return found

    # --- writes -------------------------------------------------------------------------------

    def write_version(
        self,
        *,
        doc_id: str,
        source_key: str,
        sha256: str,
        loaded: LoadedDocument,
        source_id: str,
        source_type: SourceType,
        passages: Sequence[NewPassage],
    ) -> tuple[int, bool]:
        """Store a new version of a document (version 1 for a new one) in one transaction: (version, written).

        The check against the latest version happens inside the write transaction, so two processes ingesting
        the same file never both add a version: the second finds the first one's and writes nothing.
        """
        with self._transaction():
            row = self._conn.execute(
                "SELECT d.latest_version, v.sha256, v.source_id, v.source_type FROM documents d "
                "JOIN versions v ON v.doc_id = d.doc_id AND v.version = d.latest_version WHERE d.doc_id = ?",
                (doc_id,),
            ).fetchone()
            if row is not None and tuple(row[1:]) == (sha256, source_id, source_type.value):
                return row[0], False
            version = 1 if row is None else row[0] + 1
            if row is None:
                self._conn.execute("INSERT INTO documents VALUES (?, ?, ?)", (doc_id, source_key, version))
            else:
                self._conn.execute("UPDATE documents SET latest_version = ? WHERE doc_id = ?", (version, doc_id))
            self._conn.execute(
                "INSERT INTO versions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)",
                (
                    doc_id,
                    version,
                    sha256,
                    loaded.loader,
                    loaded.title,
                    source_id,
                    source_type.value,
                    json.dumps(loaded.metadata, sort_keys=True, ensure_ascii=False),
                    json.dumps([page.model_dump() for page in loaded.pages]),
                    loaded.text,
                ),
            )
            for ordinal, passage in enumerate(passages):
                self._insert_passage(doc_id, version, ordinal, passage, loaded.text)
            self._conn.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'")
        return version, True

    def remove_document(self, doc_id: str) -> tuple[int, bool]:
        """Record a tombstone version (no text, no passages) in one transaction: (version, written).

        Search and verification read latest versions only, so they stop seeing the document; older versions stay
        readable by number. Removing a removed document writes nothing and returns its tombstone's version.
        """
        with self._transaction():
            row = self._conn.execute(
                "SELECT d.latest_version, v.loader, v.title, v.source_id, v.source_type, v.metadata, v.deleted "
                "FROM documents d JOIN versions v ON v.doc_id = d.doc_id AND v.version = d.latest_version "
                "WHERE d.doc_id = ?",
                (doc_id,),
            ).fetchone()
            if row is None:
                raise NotFoundError(f"no document {doc_id!r} in this corpus; `veriground corpus list` shows the ids")
            latest, loader, title, source_id, source_type, metadata, deleted = row
            if deleted:
                return latest, False
            version = latest + 1
            self._conn.execute(
                "INSERT INTO versions VALUES (?, ?, '', ?, ?, ?, ?, ?, '[]', '', 1)",
                (doc_id, version, loader, title, source_id, source_type, metadata),
            )
            self._conn.execute("UPDATE documents SET latest_version = ? WHERE doc_id = ?", (version, doc_id))
            self._conn.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'")
        return version, True

    def _insert_passage(self, doc_id: str, version: int, ordinal: int, passage: NewPassage, text: str) -> None:
        self._conn.execute(
            "INSERT OR IGNORE INTO passage_texts VALUES (?, ?, ?)",
            (passage.passage_id, text[passage.char_start : passage.char_end], passage.tokens),
        )
        self._conn.execute(
            "INSERT INTO passages (doc_id, version, ordinal, passage_id, char_start, char_end, page, kind) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                doc_id,
                version,
                ordinal,
                passage.passage_id,
                passage.char_start,
                passage.char_end,
                passage.page,
                passage.kind,
            ),
        )

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        try:
            self._conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as err:
            raise StoreError(f"corpus store at {self.corpus_dir} is busy or read-only: {err}") from None
        try:
            yield
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    def _meta(self, key: str) -> str:
        row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return "" if row is None else row[0]


def _create_store_file(db_path: Path) -> None:
    """A new store appears complete or not at all: its tables are made in a temporary file (WAL mode, one
    transaction), which is then hard-linked to `db_path`; a process killed meanwhile leaves only the temporary file,
    removed on the next open. When another process created the store first, its file is kept."""
    handle, name = tempfile.mkstemp(prefix=f"{db_path.name}{UNFINISHED_INFIX}", dir=db_path.parent)
    os.close(handle)
    staging = Path(name)
    try:
        conn = sqlite3.connect(staging, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("BEGIN IMMEDIATE")
            create_tables(conn)
            conn.execute("COMMIT")
        finally:
            conn.close()  # checkpoints the WAL into the file and removes it
        try:
            os.link(staging, db_path)  # unlike a rename, never replaces a store another process made meanwhile
        except FileExistsError:
            pass
        except OSError:
            if not db_path.exists():  # a file system without hard links, or our staging file was cleaned away
                os.rename(staging, db_path)
    finally:
        unlink_quietly(staging)
