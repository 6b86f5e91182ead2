"""The corpus store's file: its tables, the cleanup of staging files a killed creation left, and the migration of
an older store to SCHEMA_VERSION. The migration runs inside the
caller's write transaction, so a second process opening the store meanwhile waits, then finds it done.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from veriground.corpus.passage_kinds import classify_passages

# 2: passages.kind (text, heading, exercise, quiz, glossary) and versions.deleted (tombstones). A version-1 store is
# migrated on open: the columns are added and every stored version's passages are classified from its stored text;
# ids and offsets stay.
SCHEMA_VERSION = "2"
_MIGRATABLE_SCHEMAS = ("1",)

_DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT PRIMARY KEY,
    source_key TEXT NOT NULL UNIQUE,
    latest_version INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS versions (
    doc_id TEXT NOT NULL REFERENCES documents(doc_id),
    version INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    loader TEXT NOT NULL,
    title TEXT,
    source_id TEXT NOT NULL,
    source_type TEXT NOT NULL,
    metadata TEXT NOT NULL,
    pages TEXT NOT NULL,
    text TEXT NOT NULL,
    deleted INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (doc_id, version)
);
CREATE TABLE IF NOT EXISTS passage_texts (
    passage_id TEXT PRIMARY KEY,
    text TEXT NOT NULL,
    tokens TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS passages (
    doc_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    ordinal INTEGER NOT NULL,
    passage_id TEXT NOT NULL REFERENCES passage_texts(passage_id),
    char_start INTEGER NOT NULL,
    char_end INTEGER NOT NULL,
    page INTEGER,
    kind TEXT NOT NULL DEFAULT 'text',
    PRIMARY KEY (doc_id, version, ordinal),
    FOREIGN KEY (doc_id, version) REFERENCES versions(doc_id, version)
);
CREATE INDEX IF NOT EXISTS passages_by_id ON passages(passage_id);
CREATE TABLE IF NOT EXISTS embeddings (
    model_key TEXT NOT NULL,
    text_sha256 TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (model_key, text_sha256)
);
"""


TABLES = ("meta", "documents", "versions", "passage_texts", "passages", "embeddings")


def has_all_tables(conn: sqlite3.Connection) -> bool:
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return names.issuperset(TABLES)


def create_tables(conn: sqlite3.Connection) -> None:
    """The tables a store needs (those missing), and its meta rows, inside the caller's write transaction: SQLite's
    DDL is transactional, so a kill part-way leaves none of it (executescript would commit statement by statement)."""
    for statement in _DDL.split(";"):
        if statement.strip():
            conn.execute(statement)
    conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
    conn.execute("INSERT OR IGNORE INTO meta VALUES ('generation', '0')")


def needs_migration(conn: sqlite3.Connection) -> bool:
    row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    return row is not None and row[0] in _MIGRATABLE_SCHEMAS


def migrate(conn: sqlite3.Connection) -> None:
    """Schema 1 -> 2 inside the caller's write transaction: add passages.kind (classified from each stored version's
    text; ids and offsets stay) and versions.deleted. Nothing when another process migrated it meanwhile."""
    if not needs_migration(conn):
        return
    columns = {row[1] for row in conn.execute("PRAGMA table_info(passages)")}
    if "kind" not in columns:
        conn.execute("ALTER TABLE passages ADD COLUMN kind TEXT NOT NULL DEFAULT 'text'")
    columns = {row[1] for row in conn.execute("PRAGMA table_info(versions)")}
    if "deleted" not in columns:
        conn.execute("ALTER TABLE versions ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0")
    versions = conn.execute("SELECT doc_id, version, text FROM versions ORDER BY doc_id, version")
    for doc_id, version, text in versions.fetchall():
        rows = conn.execute(
            "SELECT ordinal, char_start, char_end FROM passages WHERE doc_id = ? AND version = ? ORDER BY ordinal",
            (doc_id, version),
        ).fetchall()
        kinds = classify_passages(text, [(start, end) for _, start, end in rows])
        conn.executemany(
            "UPDATE passages SET kind = ? WHERE doc_id = ? AND version = ? AND ordinal = ?",
            [(kind, doc_id, version, ordinal) for (ordinal, _, _), kind in zip(rows, kinds, strict=True)],
        )
    conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (SCHEMA_VERSION,))
    conn.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'")


# A store being created is staged as corpus.sqlite3.new.<random> (corpus/store.py); a killed creation leaves it.
UNFINISHED_INFIX = ".new."


def remove_unfinished_store_files(db_path: Path) -> None:
    """Staging files (and their -wal/-shm) of store creations that were killed before they finished."""
    for leftover in db_path.parent.glob(f"{db_path.name}{UNFINISHED_INFIX}*"):
        unlink_quietly(leftover)


def unlink_quietly(path: Path) -> None:
    with contextlib.suppress(OSError):  # gone already, or still open on a system that cannot remove open files
        path.unlink()
