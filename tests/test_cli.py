"""The CLI as a user runs it: commands, JSON output, exit codes, and one-line errors (no tracebacks)."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import write_file
from veriground.cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_demo_ingests_the_bundled_corpus_and_prints_search_results(tmp_path, capsys):
    code, out, err = run(capsys, "demo", "--corpus", str(tmp_path / "demo"))
    assert code == 0, err
    assert "0 failed" in out
    assert "search: kinetic energy" in out
    assert "physics/work-energy-theorem#" in out
    # It ends with three things to try next, each an exact command (tests/test_cli_first_run.py runs them).
    closing = out[out.index("Three things to try next") :].splitlines()[1:]
    assert [line.split()[0] for line in closing[0::2]] == ["1.", "2.", "3."]
    verify, ask, serve = (line.split() for line in closing[1:6:2])
    assert verify[0] == "echo" and ask[0] == serve[0] and ask[0].endswith("veriground")
    assert f"verify - --corpus {tmp_path / 'demo'}" in out and f"serve --corpus {tmp_path / 'demo'}" in out


def test_ingest_search_and_corpus_commands_round_trip(tmp_path, capsys):
    write_file(tmp_path / "lib", "energy.md", "Kinetic energy is the energy of motion of a body, KE = 1/2 m v^2.")
    corpus = str(tmp_path / "c")
    code, out, _ = run(capsys, "ingest", str(tmp_path / "lib"), "--corpus", corpus, "--source-type", "textbook")
    assert code == 0 and "1 added" in out
    code, out, _ = run(capsys, "search", "kinetic energy", "--corpus", corpus, "--json", "-k", "2")
    hits = json.loads(out)
    assert code == 0 and hits[0]["doc_id"] == "lib/energy" and hits[0]["source_type"] == "textbook"
    code, out, _ = run(capsys, "corpus", "passage", hits[0]["passage_id"], "--corpus", corpus, "--json")
    assert json.loads(out)["text"] == hits[0]["text"]
    code, out, _ = run(capsys, "corpus", "show", "lib/energy", "--corpus", corpus, "--json")
    assert json.loads(out)["document"]["versions"] == 1
    code, out, _ = run(capsys, "corpus", "list", "--corpus", corpus)
    assert code == 0 and "lib/energy" in out


def test_failed_files_set_exit_code_and_print_one_line_each(tmp_path, capsys):
    write_file(tmp_path / "lib", "good.txt", "A perfectly ordinary paragraph of text about forces and motion.")
    write_file(tmp_path / "lib", "empty.txt", "")
    code, out, err = run(capsys, "ingest", str(tmp_path / "lib"), "--corpus", str(tmp_path / "c"))
    assert code == 1
    assert "1 added" in out and "1 failed" in out
    assert err.count("\n") == 1 and "empty.txt" in err and "Traceback" not in err


def test_errors_are_one_line_messages_with_exit_codes(tmp_path, capsys, monkeypatch):
    code, _, err = run(capsys, "search", "energy", "--corpus", str(tmp_path / "nowhere"))
    assert code == 3 and err.startswith("error: no corpus at") and "veriground ingest" in err
    write_file(tmp_path / "lib", "a.txt", "Some text about sorting algorithms and their running times.")
    run(capsys, "ingest", str(tmp_path / "lib"), "--corpus", str(tmp_path / "c"))
    code, _, err = run(capsys, "corpus", "passage", "lib/a#000000000000", "--corpus", str(tmp_path / "c"))
    assert code == 4 and "no passage 'lib/a#000000000000'" in err
    monkeypatch.setenv("VERIGROUND_RETRIEVAL__TOP_K", "0")
    code, _, err = run(capsys, "search", "sorting", "--corpus", str(tmp_path / "c"))
    assert code == 2 and "retrieval.top_k" in err and "Traceback" not in err


def test_schema_command_exports_every_record(capsys):
    code, out, _ = run(capsys, "schema")
    schema = json.loads(out)
    assert code == 0
    for record in (
        "EvidenceChunk",
        "ClaimDecision",
        "AnnotatedAnswer",
        "GroundedAnswer",
        "DomainProfile",
        "DependencyWarning",
    ):
        assert record in schema["$defs"]
    assert "RejectionReason" in schema["$defs"]


def test_installed_entry_point_runs(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "veriground.cli", "search", "x", "--corpus", str(tmp_path / "none")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 3
    assert result.stderr.startswith("error: no corpus at")
