"""verify-batch: one record per JSONL row (the report `verify --json` prints), bad rows reported per row, output in
input order, resumable after a row budget or a kill, and the same bytes from one process, a pool and Ray."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import write_file
from veriground.batch import LocalPoolExecutor, RayExecutor, run_batch
from veriground.batch.row_verifier import RowVerifier
from veriground.cli import main
from veriground.config import load_config
from veriground.errors import BackendError, ConfigError, InputFileError, StoreError
from veriground.workspace import Workspace

CLAIMS = [
    "Kinetic energy is the energy an object has because of its motion.",
    "Kinetic energy does not depend on the speed of an object.",
    "A tree is a connected graph with no cycles.",
    "Merge sort runs in O(n log n) time.",
    "Quicksort has worst-case time complexity O(n^2).",
    "Travel must be approved by a manager before the trip.",
    "Water boils at 100 degrees Celsius at sea level.",
    "A graph is a set of vertices and a set of edges.",
]
PACK = [{"text": "The sky is blue on a clear day.", "source_id": "weather-notes"}]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("batch")
    lib = root / "lib"
    write_file(lib, "energy.md", "Kinetic energy is the energy an object has because of its motion, KE = 1/2 m v^2.")
    write_file(
        lib, "graphs.md", "A graph is a set of vertices and a set of edges. A tree is a connected acyclic graph."
    )
    write_file(lib, "sorting.md", "Merge sort runs in O(n log n) time. Quicksort's worst case is O(n^2).")
    write_file(lib, "travel.md", "Every trip must be approved by the traveller's manager before it is booked.")
    with Workspace.open(root / "corpus") as workspace:
        workspace.ingest([lib])
    return root / "corpus"


def rows_text(count: int) -> str:
    """`count` rows cycling through the claims; every 5th brings its own evidence, every 7th a question."""
    lines = []
    for number in range(count):
        row: dict[str, object] = {"id": f"row-{number:04d}", "text": CLAIMS[number % len(CLAIMS)]}
        if number % 5 == 4:
            row["evidence"] = PACK
        if number % 7 == 6:
            row["question"] = "What does the text claim?"
        lines.append(json.dumps(row))
    return "\n".join(lines) + "\n"


BAD_ROWS = (
    '{"id": "broken", "text": \n'  # line 3: not JSON
    '{"id": "row-0000", "text": "The same id again."}\n'  # line 4: a repeated id
    '{"id": "no-text"}\n'  # line 5
    '{"id": "extra", "text": "Fine text.", "score": 3}\n'  # line 6: an unknown field
    '{"id": "bad-pack", "text": "Fine text.", "evidence": {"passages": [{"txt": "typo"}]}}\n'  # line 7
    "[1, 2]\n"  # line 8: not an object
)


def run(path: Path, out: Path, corpus: Path, executor=None, **options) -> object:  # noqa: ANN001
    config = load_config(None, {"corpus.dir": corpus})
    return run_batch(path, out, config=config, executor=executor or LocalPoolExecutor(1), **options)


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


class RecordingExecutor:
    """Runs rows in this process and remembers which rows it was given."""

    name = "recording"

    def __init__(self, *, reverse: bool = False) -> None:
        self.given: list[str | int] = []
        self.reverse = reverse

    def run(self, config, tasks):  # noqa: ANN001, ANN201
        verifier = RowVerifier(config)
        tasks = list(tasks)
        self.given += [task.row_id for task in tasks]
        results = [(task.seq, verifier.verify(task)) for task in tasks]
        verifier.close()
        yield from reversed(results) if self.reverse else results


@pytest.fixture(scope="module")
def reference(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    """40 rows verified in one process: the bytes every other way of running them must give."""
    folder = tmp_path_factory.mktemp("reference")
    source = write_file(folder, "in.jsonl", rows_text(40))
    run(source, folder / "out.jsonl", corpus)
    return source, (folder / "out.jsonl").read_bytes()


def test_each_row_gets_the_report_verify_json_prints(corpus, tmp_path, capsys):
    rows = [
        {"id": "corpus-row", "text": CLAIMS[0]},
        {"id": 7, "text": "The sky is green.", "evidence": {"query": "What colour is the sky?", "passages": PACK}},
        {"id": "question-row", "text": CLAIMS[3], "question": "How fast is merge sort?"},
    ]
    source = write_file(tmp_path, "in.jsonl", "".join(json.dumps(row) + "\n" for row in rows))
    summary = run(source, tmp_path / "out.jsonl", corpus)
    assert (summary.verified, summary.failed, summary.skipped) == (3, 0, 0)
    got = records(tmp_path / "out.jsonl")
    assert [(record["id"], record["line"]) for record in got] == [("corpus-row", 1), (7, 2), ("question-row", 3)]

    text = write_file(tmp_path, "claim.txt", CLAIMS[0])
    assert main(["verify", str(text), "--corpus", str(corpus.absolute()), "--json"]) == 0
    assert got[0]["report"] == json.loads(capsys.readouterr().out)
    pack = write_file(tmp_path, "pack.json", json.dumps(rows[1]["evidence"]))
    text = write_file(tmp_path, "sky.txt", "The sky is green.")
    assert main(["verify", str(text), "--evidence", str(pack), "--corpus", str(corpus.absolute()), "--json"]) == 0
    assert got[1]["report"] == json.loads(capsys.readouterr().out)
    text = write_file(tmp_path, "merge.txt", CLAIMS[3])
    argv = ["verify", str(text), "--query", rows[2]["question"], "--corpus", str(corpus.absolute()), "--json"]
    assert main(argv) == 0
    assert got[2]["report"] == json.loads(capsys.readouterr().out)


def test_bad_rows_are_reported_by_line_and_the_rest_complete(corpus, tmp_path):
    good = rows_text(2)
    source = write_file(tmp_path, "in.jsonl", good + BAD_ROWS + '{"id": "last", "text": "A tree has no cycles."}\n')
    summary = run(source, tmp_path / "out.jsonl", corpus)
    assert (summary.rows, summary.verified, summary.failed) == (9, 3, 6)
    got = records(tmp_path / "out.jsonl")
    assert [record["line"] for record in got] == [1, 2, 3, 4, 5, 6, 7, 8, 9]
    errors = {record["line"]: record for record in got if "error" in record}
    assert "not valid JSON" in errors[3]["error"] and errors[3]["id"] is None
    assert "repeats the id of line 1" in errors[4]["error"] and errors[4]["id"] is None
    assert errors[5]["error"].startswith("no text") and errors[5]["id"] == "no-text"
    assert "unknown field score" in errors[6]["error"]
    assert errors[7]["error"].startswith("evidence at passages.0.txt: unknown field")
    assert "must be a JSON object, got list" in errors[8]["error"]
    assert all("\n" not in record["error"] for record in errors.values())
    assert all("report" in record for record in got if record["line"] in (1, 2, 9))


def test_records_are_written_in_input_order_whatever_order_they_finish_in(corpus, reference, tmp_path):
    source, expected = reference
    run(source, tmp_path / "out.jsonl", corpus, RecordingExecutor(reverse=True))
    assert (tmp_path / "out.jsonl").read_bytes() == expected


def test_a_process_pool_writes_the_same_bytes_as_one_process(corpus, reference, tmp_path):
    source, expected = reference
    summary = run(source, tmp_path / "out.jsonl", corpus, LocalPoolExecutor(2))
    assert summary.verified == 40
    assert (tmp_path / "out.jsonl").read_bytes() == expected


def test_a_row_budget_stops_and_the_next_run_does_only_the_rest(corpus, reference, tmp_path):
    source, expected = reference
    out = tmp_path / "out.jsonl"
    first = run(source, out, corpus, max_rows=15)
    assert (first.verified, first.remaining) == (15, 25)
    executor = RecordingExecutor()
    second = run(source, out, corpus, executor)
    assert (second.skipped, second.verified, second.remaining) == (15, 25, 0)
    assert executor.given == [f"row-{number:04d}" for number in range(15, 40)]
    assert out.read_bytes() == expected
    third = run(source, out, corpus, RecordingExecutor())
    assert (third.skipped, third.verified) == (40, 0)


def test_a_killed_run_resumes_where_it_stopped(corpus, tmp_path):
    rows = rows_text(300)
    source = write_file(tmp_path, "in.jsonl", rows)
    out = tmp_path / "out.jsonl"
    argv = ["verify-batch", str(source), "--out", str(out), "--corpus", str(corpus), "--workers", "1"]
    env = {**os.environ, "VERIGROUND_NO_PROGRESS": "1"}
    process = subprocess.Popen([sys.executable, "-m", "veriground.cli", *argv], env=env, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not out.exists() or out.read_bytes().count(b"\n") < 3):
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait()
    with out.open("ab") as handle:
        handle.write(b'{"id":"row-9999","line":9')  # the half line a kill mid-write leaves
    kept = out.read_bytes().count(b"\n")
    assert kept >= 3

    executor = RecordingExecutor()
    summary = run(source, out, corpus, executor)
    assert (summary.skipped, summary.verified) == (kept, 300 - kept)
    assert executor.given == [f"row-{number:04d}" for number in range(kept, 300)]
    fresh = tmp_path / "fresh.jsonl"
    run(source, fresh, corpus)
    assert out.read_bytes() == fresh.read_bytes()


def test_bad_paths_and_arguments_are_refused_before_any_work(corpus, tmp_path):
    source = write_file(tmp_path, "in.jsonl", rows_text(2))
    other = write_file(tmp_path, "notes.jsonl", '{"question": "q", "answer": "a"}\n')
    with pytest.raises(InputFileError, match="line 1 is not a verify-batch record"):
        run(source, other, corpus)
    with pytest.raises(InputFileError, match="--out is the input file"):
        run(source, source, corpus)
    with pytest.raises(InputFileError, match="no such batch input file"):
        run(tmp_path / "missing.jsonl", tmp_path / "out.jsonl", corpus)
    with pytest.raises(InputFileError, match="the folder .*missing does not exist"):
        run(source, tmp_path / "missing" / "out.jsonl", corpus)
    with pytest.raises(ConfigError, match="max_rows must be at least 1, got 0"):
        run(source, tmp_path / "out.jsonl", corpus, max_rows=0)


def test_rows_with_their_own_evidence_need_no_corpus_and_others_stop_the_batch(tmp_path):
    with_packs = "".join(json.dumps({"id": n, "text": "The sky is blue.", "evidence": PACK}) + "\n" for n in range(3))
    source = write_file(tmp_path, "packs.jsonl", with_packs)
    summary = run(source, tmp_path / "packs-out.jsonl", tmp_path / "no-corpus")
    assert (summary.verified, summary.failed) == (3, 0)
    source = write_file(tmp_path, "in.jsonl", with_packs + json.dumps({"id": "needs-corpus", "text": "Hi."}) + "\n")
    with pytest.raises(StoreError, match=r"no corpus at .*no-corpus, and row 'needs-corpus' \(line 4\)"):
        run(source, tmp_path / "out.jsonl", tmp_path / "no-corpus")


def test_the_command_prints_a_summary_and_errors_in_one_line(corpus, tmp_path, capsys):
    source = write_file(tmp_path, "in.jsonl", rows_text(3) + "not json\n")
    out = tmp_path / "out.jsonl"
    argv = ["verify-batch", str(source), "--out", str(out), "--corpus", str(corpus), "--workers", "1"]
    assert main(argv) == 0
    assert "4 rows: 0 already in" in capsys.readouterr().out
    assert main([*argv, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["skipped"], summary["verified"], summary["failed"]) == (4, 0, 0)
    code = main(["verify-batch", str(tmp_path / "nope.jsonl"), "--out", str(out), "--corpus", str(corpus)])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and "no such batch input file" in err


def test_ray_missing_names_the_extra_to_install(corpus, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now raises ImportError
    source = write_file(tmp_path, "in.jsonl", rows_text(1))
    with pytest.raises(BackendError, match=r"pip install 'veriground\[ray\]'"):
        run(source, tmp_path / "out.jsonl", corpus, RayExecutor("local", 1))


@pytest.fixture(scope="module")
def ray_on_loopback():
    """A one-CPU Ray head on this machine for the module; RayExecutor reuses it instead of starting its own."""
    ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'veriground[ray]')")
    pytest.importorskip("ray.data", reason="Ray Data is not installed (pip install 'veriground[ray]')")
    ray.init(address="local", include_dashboard=False, num_cpus=1, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # Ray Data's own settings, on pickling
def test_ray_writes_the_same_bytes_as_the_local_run(corpus, reference, tmp_path, ray_on_loopback):
    source, expected = reference
    with_bad_rows = write_file(tmp_path, "in.jsonl", source.read_text(encoding="utf-8") + BAD_ROWS)
    local_out, ray_out = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    run(with_bad_rows, local_out, corpus)
    summary = run(with_bad_rows, ray_out, corpus, RayExecutor(workers=1))
    assert (summary.executor, summary.verified, summary.failed) == ("ray", 40, 6)
    assert ray_out.read_bytes() == local_out.read_bytes()
    assert local_out.read_bytes().startswith(expected)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # Ray Data's own settings, on pickling
def test_the_command_runs_on_ray_and_resumes_there(corpus, reference, tmp_path, capsys, ray_on_loopback):
    source, expected = reference
    out = tmp_path / "out.jsonl"
    argv = ["verify-batch", str(source), "--out", str(out), "--corpus", str(corpus), "--ray", "local", "--workers", "1"]
    assert main([*argv, "--max-rows", "25"]) == 0
    assert "25 verified" in capsys.readouterr().out
    assert main([*argv, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["executor"], summary["skipped"], summary["verified"]) == ("ray", 25, 15)
    assert out.read_bytes() == expected
