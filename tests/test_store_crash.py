"""A corpus killed at the wrong moment (issue 22): a store being created appears with all its tables or not at all,
and index folders left by a swap that never finished are removed on the next open."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from contextlib import closing
from pathlib import Path

import pytest

from conftest import write_file
from veriground.config import IngestConfig, RetrievalConfig
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import DB_FILE_NAME, CorpusStore
from veriground.corpus.store_schema import TABLES
from veriground.errors import StoreError
from veriground.retrieval import index_folders
from veriground.retrieval.search import BM25Retriever

KILLED = 9

# Each runs in a child process that creates a store and dies (os._exit, no clean-up) at one point of the creation.
KILL_POINTS = {
    "after the WAL pragma": "os._exit(KILLED)",
    "after half the tables": textwrap.dedent(
        """
        for statement in store_schema._DDL.split(";")[:3]:
            conn.execute(statement)
        os._exit(KILLED)
        """
    ),
}


def create_store_and_die(corpus_dir: Path, kill_point: str) -> int:
    body = textwrap.indent(KILL_POINTS[kill_point], "    ")
    script = f"""
import os, sys
from pathlib import Path
from veriground.corpus import store, store_schema
KILLED = {KILLED}
def create_tables(conn):
{body}
store.create_tables = create_tables
store.CorpusStore(Path(sys.argv[1]))
"""
    return subprocess.run([sys.executable, "-c", script, str(corpus_dir)], check=False).returncode


def table_names(db_path: Path) -> set[str]:
    with closing(sqlite3.connect(db_path)) as conn:
        return {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


@pytest.mark.parametrize("kill_point", sorted(KILL_POINTS))
def test_a_store_killed_while_it_is_created_leaves_no_table_less_file(tmp_path, kill_point):
    corpus_dir = tmp_path / "corpus"
    assert create_store_and_die(corpus_dir, kill_point) == KILLED
    assert not (corpus_dir / DB_FILE_NAME).exists()
    assert list(corpus_dir.glob(f"{DB_FILE_NAME}.new.*"))  # the staging file it died writing
    with pytest.raises(StoreError, match="no corpus at"):
        CorpusStore(corpus_dir, create=False)
    with CorpusStore(corpus_dir) as store:  # the next ingest creates it whole and removes the killed one's file
        assert store.generation == 0 and store.list_documents() == []
    assert table_names(corpus_dir / DB_FILE_NAME) >= set(TABLES)
    assert not list(corpus_dir.glob(f"{DB_FILE_NAME}.new.*"))


def test_a_table_less_file_from_an_older_version_gets_its_tables(tmp_path):
    corpus_dir = tmp_path / "corpus"
    corpus_dir.mkdir()
    with closing(sqlite3.connect(corpus_dir / DB_FILE_NAME)) as conn:  # a kill after the WAL pragma used to leave this
        conn.execute("PRAGMA journal_mode = WAL")
    assert table_names(corpus_dir / DB_FILE_NAME) == set()
    with CorpusStore(corpus_dir, create=False) as store:
        assert store.generation == 0
    assert table_names(corpus_dir / DB_FILE_NAME) >= set(TABLES)


def index_after_a_killed_swap(tmp_path: Path) -> tuple[CorpusStore, Path]:
    """A corpus whose `bm25` folder was renamed away by a swap that died before renaming the new one in."""
    write_file(tmp_path / "lib", "energy.md", "# Energy\n\nKinetic energy is the energy of motion.")
    store = CorpusStore(tmp_path / "corpus")
    ingest_paths([tmp_path / "lib"], store, IngestConfig())
    BM25Retriever(store, RetrievalConfig()).refresh()  # builds and saves the index
    corpus_dir = store.corpus_dir
    old_parent = corpus_dir / "bm25.old.k1ll3d"
    old_parent.mkdir()
    (corpus_dir / "bm25").rename(old_parent / "bm25")
    write_file(corpus_dir / "bm25.new.k1ll3d", "manifest.json", "{}")
    return store, corpus_dir


def test_folders_of_a_killed_index_swap_are_removed_on_open(tmp_path):
    store, corpus_dir = index_after_a_killed_swap(tmp_path)
    with store:
        hits = BM25Retriever(store, RetrievalConfig()).retrieve("kinetic energy")
    assert [hit.doc_id for hit in hits] == ["lib/energy"]
    leftovers = sorted(path.name for path in corpus_dir.iterdir() if path.name.startswith("bm25."))
    assert leftovers == ["bm25.lock"]


def test_folders_of_a_swap_in_progress_are_kept(tmp_path):
    store, corpus_dir = index_after_a_killed_swap(tmp_path)
    store.close()
    (corpus_dir / "dense-minilm.new.k1ll3d").mkdir()  # a dense matrix's staging folder, killed likewise
    with index_folders.swap_lock(corpus_dir, wait=True):  # another process is swapping its index in right now
        assert index_folders.remove_orphaned_folders(corpus_dir) == []
    assert (corpus_dir / "bm25.new.k1ll3d").is_dir() and (corpus_dir / "bm25.old.k1ll3d").is_dir()
    removed = index_folders.remove_orphaned_folders(corpus_dir)
    assert [path.name for path in removed] == ["bm25.new.k1ll3d", "bm25.old.k1ll3d", "dense-minilm.new.k1ll3d"]


def test_a_failed_swap_keeps_the_index_in_use(tmp_path, monkeypatch):
    """When the new folder cannot be renamed into place, the previous index is put back, not deleted."""
    target = tmp_path / "bm25"
    target.mkdir()
    (target / "manifest.json").write_text("previous", encoding="utf-8")
    real_rename = Path.rename

    def failing_rename(self, destination):
        if self.name.startswith("bm25.new."):
            raise OSError("disk full")
        return real_rename(self, destination)

    monkeypatch.setattr(Path, "rename", failing_rename)
    with index_folders.index_swap(target) as staging:
        (staging / "manifest.json").write_text("new", encoding="utf-8")
    assert (target / "manifest.json").read_text(encoding="utf-8") == "previous"
    assert sorted(path.name for path in tmp_path.iterdir() if not path.name.endswith(".lock")) == ["bm25"]
