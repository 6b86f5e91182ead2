"""Ingest: versions, stable ids, no-op re-ingest, bad input per file, atomic writes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from conftest import write_file
from veriground.config import IngestConfig
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import DB_FILE_NAME, CorpusStore

ENERGY = "Kinetic energy is the energy an object has because of its motion. It equals one half m v squared."
FORCE = "A net external force on a system causes an acceleration proportional to the force, F = ma."
GRAVITY = "Near the surface of Earth the acceleration due to gravity is about 9.80 m/s^2 downward."


def notes(folder: Path, middle: str = FORCE) -> Path:
    front_matter = "---\ntitle: Energy\nsource_type: textbook\n---\n\n"
    write_file(folder, "physics/energy.md", f"{front_matter}# Energy\n\n{ENERGY}\n\n{middle}\n\n{GRAVITY}\n")
    write_file(folder, "physics/extra.txt", f"{GRAVITY}\n\nSpeed is distance over time, measured in metres per second.")
    return folder


def ingest(paths: list[Path], corpus_dir: Path, **settings):
    """Ingest with short passages allowed, so each test paragraph is its own passage."""
    with CorpusStore(corpus_dir) as store:
        return ingest_paths(paths, store, IngestConfig(**{"min_passage_chars": 20, **settings}))


def dump(corpus_dir: Path) -> list[str]:
    connection = sqlite3.connect(corpus_dir / DB_FILE_NAME)
    try:
        return list(connection.iterdump())
    finally:
        connection.close()


def test_first_ingest_adds_documents_with_sha256_and_source_labels(tmp_path, corpus_dir):
    report = ingest([notes(tmp_path / "notes")], corpus_dir)
    assert (report.added, report.failed) == (2, 0)
    with CorpusStore(corpus_dir) as store:
        energy = store.document("notes/physics/energy")
    assert energy.source_id == "physics"  # the top-level subfolder counts as one source
    assert energy.source_type.value == "textbook"  # from the front matter
    assert energy.title == "Energy"
    import hashlib

    raw = (tmp_path / "notes/physics/energy.md").read_bytes()
    assert energy.sha256 == hashlib.sha256(raw).hexdigest()


def test_reingest_of_unchanged_files_is_a_no_op_and_keeps_ids(tmp_path, corpus_dir):
    folder = notes(tmp_path / "notes")
    ingest([folder], corpus_dir)
    before = dump(corpus_dir)
    report = ingest([folder], corpus_dir)
    assert (report.added, report.new_version, report.unchanged) == (0, 0, 2)
    assert dump(corpus_dir) == before


def test_editing_one_paragraph_changes_only_its_id_and_keeps_the_old_version(tmp_path, corpus_dir):
    folder = notes(tmp_path / "notes")
    ingest([folder], corpus_dir)
    with CorpusStore(corpus_dir) as store:
        old = [p.passage_id for p in store.passages_of("notes/physics/energy", 1)]
    edited = (folder / "physics/energy.md").read_text().replace("F = ma", "F = m a (Newton's second law)")
    write_file(folder, "physics/energy.md", edited)
    report = ingest([folder], corpus_dir)
    assert (report.new_version, report.unchanged) == (1, 1)
    changed = next(item for item in report.items if item.outcome == "new_version")
    assert (changed.version, changed.passages_changed) == (2, 1)
    with CorpusStore(corpus_dir) as store:
        new = [p.passage_id for p in store.passages_of("notes/physics/energy", 2)]
        assert [a == b for a, b in zip(old, new, strict=True)] == [True, False, True]
        assert "F = ma" in store.passages_of("notes/physics/energy", 1)[1].text  # old version retrievable
        assert store.document("notes/physics/energy").versions == 2
        assert store.passage(old[1]).version == 1  # the replaced passage still resolves


def test_bad_inputs_fail_one_by_one_and_the_rest_is_ingested(tmp_path, corpus_dir):
    folder = notes(tmp_path / "batch")
    write_file(folder, "empty.txt", "")
    write_file(folder, "binary.txt", b"\x00\x01\x02PNG\x00" * 100)
    write_file(folder, "latin1.txt", "caf\xe9 au lait".encode("latin-1"))
    write_file(folder, "broken.pdf", b"%PDF-1.4\n garbage that is not a pdf")
    write_file(folder, "fake.pdf", b"just text renamed")
    write_file(folder, "image.png", b"\x89PNG\r\n")
    with open(folder / "huge.txt", "wb") as handle:  # sparse: 200 MB on paper, nothing on disk
        handle.truncate(200 * 1024 * 1024)
    report = ingest([folder, tmp_path / "does-not-exist"], corpus_dir)
    problems = {Path(item.path).name: item.problem for item in report.items if item.outcome == "failed"}
    assert report.added == 2
    assert set(problems) == {
        "empty.txt",
        "binary.txt",
        "latin1.txt",
        "broken.pdf",
        "fake.pdf",
        "image.png",
        "huge.txt",
        "does-not-exist",
    }
    assert "empty" in problems["empty.txt"]
    assert "binary" in problems["binary.txt"]
    assert "UTF-8" in problems["latin1.txt"]
    assert "PDF" in problems["broken.pdf"] and "PDF" in problems["fake.pdf"]
    assert "unsupported file type '.png'" in problems["image.png"]
    assert "200.0 MB" in problems["huge.txt"]
    assert "no such file" in problems["does-not-exist"]
    for name, problem in problems.items():
        assert name in problem  # every line names its file


def test_failure_mid_document_leaves_the_store_exactly_as_before(tmp_path, corpus_dir, monkeypatch):
    folder = notes(tmp_path / "notes")
    ingest([folder], corpus_dir)
    extended = (folder / "physics/energy.md").read_text() + "\n\nA brand new closing paragraph about power and work.\n"
    write_file(folder, "physics/energy.md", extended)
    before = dump(corpus_dir)
    calls = []

    def crash_on_third(self, *args):
        calls.append(args)
        if len(calls) == 3:
            raise RuntimeError("disk unplugged")
        return original(self, *args)

    original = CorpusStore._insert_passage
    monkeypatch.setattr(CorpusStore, "_insert_passage", crash_on_third)
    with pytest.raises(RuntimeError, match="disk unplugged"):
        ingest([folder], corpus_dir)
    assert len(calls) == 3  # two passages of the new version were written before the crash...
    assert dump(corpus_dir) == before  # ...and rolled back with everything else of that document
    monkeypatch.setattr(CorpusStore, "_insert_passage", original)
    report = ingest([folder], corpus_dir)
    assert report.new_version == 1


def test_sources_file_labels_subfolders_and_excludes_files(tmp_path, corpus_dir):
    folder = notes(tmp_path / "notes")
    write_file(
        folder,
        "SOURCES.toml",
        'exclude = ["README.md"]\n[physics]\nsource_id = "openstax"\nsource_type = "lecture_notes"\n',
    )
    write_file(folder, "README.md", "About this folder: nothing to cite here at all, just housekeeping text.")
    report = ingest([folder], corpus_dir)
    assert report.added == 2
    with CorpusStore(corpus_dir) as store:
        extra = store.document("notes/physics/extra")
    assert (extra.source_id, extra.source_type.value) == ("openstax", "lecture_notes")


def test_invalid_source_type_is_reported_with_valid_values(tmp_path, corpus_dir):
    write_file(tmp_path, "n.md", f"---\nsource_type: blog\n---\n{ENERGY}")
    report = ingest([tmp_path / "n.md"], corpus_dir)
    assert report.failed == 1
    assert "source_type 'blog' is not one of: textbook" in report.items[0].problem


def test_jsonl_records_become_documents(tmp_path, corpus_dir):
    write_file(
        tmp_path,
        "facts.jsonl",
        f'{{"id": "a1", "text": "{ENERGY}", "metadata": {{"source_type": "paper"}}}}\n'
        f'{{"id": 2, "text": "{GRAVITY}"}}\n',
    )
    report = ingest([tmp_path / "facts.jsonl"], corpus_dir)
    assert report.added == 2
    with CorpusStore(corpus_dir) as store:
        ids = [doc.doc_id for doc in store.list_documents()]
        assert ids == ["facts.jsonl/2", "facts.jsonl/a1"]
        assert store.document("facts.jsonl/a1").source_type.value == "paper"


def _ingest_in_child(folder: str, corpus_dir: str) -> int:
    report = ingest([Path(folder)], Path(corpus_dir))
    return report.added


def test_two_processes_ingesting_at_once_both_land_intact(tmp_path, corpus_dir):
    import multiprocessing

    folders = []
    for name in ("left", "right"):
        folder = tmp_path / name
        for number in range(15):
            write_file(folder, f"doc{number}.txt", f"{name} document {number}. {ENERGY}\n\n{FORCE} {number}.")
        folders.append(str(folder))
    CorpusStore(corpus_dir).close()
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        added = pool.starmap(_ingest_in_child, [(folder, str(corpus_dir)) for folder in folders])
    assert added == [15, 15]
    connection = sqlite3.connect(corpus_dir / DB_FILE_NAME)
    try:
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert connection.execute("SELECT count(*) FROM documents").fetchone() == (30,)
    finally:
        connection.close()


def test_unchanged_files_are_not_parsed_again(tmp_path, corpus_dir, monkeypatch):
    folder = notes(tmp_path / "notes")
    ingest([folder], corpus_dir)

    def must_not_load(*_args, **_kwargs):
        raise AssertionError("an unchanged file was parsed again")

    monkeypatch.setattr("veriground.corpus.ingest.load_file", must_not_load)
    assert ingest([folder], corpus_dir).unchanged == 2


def test_relabelling_an_unchanged_file_makes_a_new_version_with_the_same_ids(tmp_path, corpus_dir):
    folder = notes(tmp_path / "notes")
    ingest([folder], corpus_dir)
    report = ingest([folder], corpus_dir, source_id="course-notes")
    assert (report.new_version, report.unchanged) == (2, 0)
    assert {item.passages_changed for item in report.items} == {0}
    with CorpusStore(corpus_dir) as store:
        assert store.document("notes/physics/extra").source_id == "course-notes"
    assert ingest([folder], corpus_dir, source_id="course-notes").unchanged == 2


def test_two_processes_ingesting_the_same_folder_give_one_version_per_document(tmp_path, corpus_dir):
    import multiprocessing

    folder = tmp_path / "shared"
    for number in range(30):
        write_file(folder, f"doc{number}.txt", f"Shared document {number}. {ENERGY}\n\n{FORCE} {number}.")
    CorpusStore(corpus_dir).close()
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        added = pool.starmap(_ingest_in_child, [(str(folder), str(corpus_dir))] * 2)
    assert sum(added) == 30  # each document added by exactly one of the two; the other found it unchanged
    connection = sqlite3.connect(corpus_dir / DB_FILE_NAME)
    try:
        assert connection.execute("SELECT count(*), max(latest_version) FROM documents").fetchone() == (30, 1)
        assert connection.execute("SELECT count(*) FROM versions").fetchone() == (30,)
    finally:
        connection.close()


def test_a_stale_check_never_writes_a_version_with_the_same_bytes(tmp_path, corpus_dir, monkeypatch):
    """What the second of two racing processes sees: its check ran before the first one's write committed."""
    write_file(tmp_path / "lib", "energy.txt", ENERGY)
    ingest([tmp_path / "lib"], corpus_dir)
    monkeypatch.setattr(CorpusStore, "latest_version", lambda self, source_key: None)
    report = ingest([tmp_path / "lib"], corpus_dir)
    assert [(item.outcome, item.version) for item in report.items] == [("unchanged", 1)]
    with CorpusStore(corpus_dir) as store:
        assert store.document("lib/energy").versions == 1


def ingest_pruning(folder: Path, corpus_dir: Path):
    with CorpusStore(corpus_dir) as store:
        return ingest_paths([folder], store, IngestConfig(min_passage_chars=20), prune=True)


def test_prune_tombstones_documents_whose_files_are_gone_and_history_stays(tmp_path, corpus_dir):
    from veriground.config import RetrievalConfig
    from veriground.retrieval.search import BM25Retriever

    notes(tmp_path / "lib")
    write_file(tmp_path / "lib", "records.jsonl", '{"id": "r1", "text": "Entropy never decreases in isolation."}\n')
    write_file(tmp_path / "other", "kept.txt", "Speed is distance over time, in metres per second.")
    ingest([tmp_path / "lib", tmp_path / "other"], corpus_dir)
    (tmp_path / "lib" / "physics" / "energy.md").unlink()
    report = ingest_pruning(tmp_path / "lib", corpus_dir)
    assert [(item.outcome, item.doc_id, item.version) for item in report.items if item.outcome == "removed"] == [
        ("removed", "lib/physics/energy", 2)
    ]
    assert report.removed == 1 and report.failed == 0
    with CorpusStore(corpus_dir) as store:
        assert store.document("lib/physics/energy").deleted
        assert store.document("lib/physics/energy", 1).n_passages == 3  # the old version is still readable
        assert {doc.doc_id for doc in store.list_documents()} == {
            "lib/physics/extra",
            "lib/records.jsonl/r1",
            "other/kept",
        }
        hits = BM25Retriever(store, RetrievalConfig()).retrieve("kinetic energy motion", top_k=10)
        assert all(hit.doc_id != "lib/physics/energy" for hit in hits)
    notes(tmp_path / "lib")  # the file comes back: a new version with the same passage ids as version 1
    item = next(i for i in ingest_pruning(tmp_path / "lib", corpus_dir).items if i.doc_id.endswith("energy"))
    assert (item.outcome, item.version) == ("new_version", 3)
    with CorpusStore(corpus_dir) as store:
        old, new = (store.passages_of("lib/physics/energy", version) for version in (1, 3))
    assert [p.passage_id for p in old] == [p.passage_id for p in new]


def test_corpus_remove_checks_every_id_first_and_search_stops_finding_it(tmp_path, capsys):
    import json

    from veriground.cli import main

    write_file(tmp_path / "lib", "energy.txt", ENERGY)
    corpus = str(tmp_path / "c")
    assert main(["ingest", str(tmp_path / "lib"), "--corpus", corpus]) == 0
    assert main(["corpus", "remove", "lib/energy", "lib/nope", "--corpus", corpus]) == 4
    assert "no document 'lib/nope'" in capsys.readouterr().err
    main(["search", "kinetic energy", "--corpus", corpus, "--json"])
    assert len(json.loads(capsys.readouterr().out)) == 1  # nothing was removed
    assert main(["corpus", "remove", "lib/energy", "--corpus", corpus]) == 0
    assert "v2 is a tombstone" in capsys.readouterr().out
    main(["search", "kinetic energy", "--corpus", corpus, "--json"])
    assert json.loads(capsys.readouterr().out) == []
    assert main(["corpus", "show", "lib/energy", "--version", "1", "--corpus", corpus]) == 0
    assert "Kinetic energy" in capsys.readouterr().out
