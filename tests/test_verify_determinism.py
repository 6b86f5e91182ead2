"""Same input and config give the same bytes: `verify --json` and the .json/.html/.md reports, across runs, across
two corpora ingested from the same files, and across interpreter hash seeds; the manifest says what produced them.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import veriground
from conftest import write_file
from veriground.cli import main

DEMO_DIR = Path(veriground.__file__).resolve().parent / "demo_corpus"
ANSWER = "answer.md"
CORPUS = "corpus"  # relative, so the resolved config (and so every report) is the same in both work dirs
# An ISO date or a clock time: no report may carry one.
TIMESTAMP = re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2})?|\b\d{1,2}:\d{2}:\d{2}\b")
TIMESTAMP_KEYS = re.compile(r"(?:^|_)(?:time|timestamp|date|datetime|created|generated|modified)(?:_|$)|_at$", re.I)


@pytest.fixture(scope="module")
def workdirs(tmp_path_factory) -> list[Path]:
    """Two work dirs, each with a fresh corpus ingested from the demo files and a copy of the example answer."""
    dirs = []
    for name in ("first", "second"):
        workdir = tmp_path_factory.mktemp(name)
        shutil.copyfile(DEMO_DIR / "EXAMPLE_ANSWER.md", workdir / ANSWER)
        with pytest.MonkeyPatch.context() as patch:
            patch.chdir(workdir)
            assert main(["ingest", str(DEMO_DIR), "--corpus", CORPUS, "--json"]) == 0
        dirs.append(workdir)
    return dirs


def verify_in(workdir: Path, capsys, monkeypatch, *extra: str) -> str:
    monkeypatch.chdir(workdir)
    capsys.readouterr()
    code = main(["verify", ANSWER, "--corpus", CORPUS, *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_json_output_is_byte_identical_across_runs_and_corpora(workdirs, capsys, monkeypatch):
    first = verify_in(workdirs[0], capsys, monkeypatch, "--json")
    again = verify_in(workdirs[0], capsys, monkeypatch, "--json")
    other_corpus = verify_in(workdirs[1], capsys, monkeypatch, "--json")
    assert first == again == other_corpus
    assert json.loads(first)["claims"]  # not trivially equal


@pytest.mark.parametrize("suffix", [".json", ".html", ".md"])
def test_reports_are_byte_identical_across_runs_and_corpora(workdirs, capsys, monkeypatch, suffix):
    written = []
    for workdir, name in ((workdirs[0], "one"), (workdirs[0], "two"), (workdirs[1], "three")):
        path = workdir / f"{name}{suffix}"
        verify_in(workdir, capsys, monkeypatch, "--report", str(path))
        written.append(path.read_bytes())
    assert written[0] == written[1] == written[2]
    assert b"c_0004.2" in written[0]


def test_json_report_is_the_json_output(workdirs, capsys, monkeypatch):
    path = workdirs[0] / "same.json"
    stdout = verify_in(workdirs[0], capsys, monkeypatch, "--json", "--report", str(path))
    assert path.read_text(encoding="utf-8") == stdout


def test_json_output_is_the_same_under_other_hash_seeds(workdirs):
    """Set and dict order must not leak into the output: separate processes with different PYTHONHASHSEEDs."""
    outputs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        result = subprocess.run(
            [sys.executable, "-m", "veriground.cli", "verify", ANSWER, "--corpus", CORPUS, "--json"],
            cwd=workdirs[0],
            env=env,
            capture_output=True,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        outputs.append(result.stdout)
    assert outputs[0] == outputs[1]


def test_manifest_names_version_config_backends_and_hashes(workdirs, capsys, monkeypatch):
    report = json.loads(verify_in(workdirs[0], capsys, monkeypatch, "--json"))
    manifest = report["manifest"]
    assert manifest["package_version"] == veriground.__version__
    assert manifest["evidence_mode"] == "corpus"
    assert manifest["config"]["corpus"]["dir"] == CORPUS
    assert manifest["config"]["verification"]["contradiction_policy"] == "surface"
    backends = {backend["role"]: backend for backend in manifest["backends"]}
    assert backends["nli"] == {
        "role": "nli",
        "name": "lexical-nli.v1",
        "model_id": "veriground/lexical-nli",
        "checksum": None,
    }
    assert backends["retriever"]["name"] == "bm25s.v1"
    assert manifest["input_sha256"] == hashlib.sha256((workdirs[0] / ANSWER).read_bytes()).hexdigest()


def test_manifest_records_the_flags_that_were_given(workdirs, capsys, monkeypatch):
    flags = ("-k", "3", "--min-entailment-prob", "0.55", "--contradiction-policy", "abstain_on_high")
    manifest = json.loads(verify_in(workdirs[0], capsys, monkeypatch, "--json", *flags))["manifest"]
    assert manifest["config"]["retrieval"]["top_k"] == 3
    assert manifest["config"]["verification"]["min_entailment_prob"] == 0.55
    assert manifest["config"]["verification"]["contradiction_policy"] == "abstain_on_high"


def test_every_passage_used_has_its_text_hash_in_the_manifest(workdirs, capsys, monkeypatch):
    report = json.loads(verify_in(workdirs[0], capsys, monkeypatch, "--json"))
    used = {chunk["passage_id"]: chunk["text"] for item in report["claims"] for chunk in item["evidence"]}
    hashes = report["manifest"]["evidence_sha256"]
    assert used and set(hashes) == set(used)
    for passage_id, text in used.items():
        assert hashes[passage_id] == hashlib.sha256(text.encode("utf-8")).hexdigest()
    # The hash is of the stored passage, as `corpus passage` prints it.
    primary = report["claims"][0]["decision"]["primary_evidence"]
    capsys.readouterr()
    assert main(["corpus", "passage", primary, "--corpus", CORPUS, "--json"]) == 0
    stored = json.loads(capsys.readouterr().out)["text"]
    assert hashes[primary] == hashlib.sha256(stored.encode("utf-8")).hexdigest()


def test_input_hash_is_of_the_bytes_as_given(workdirs, capsys, monkeypatch):
    raw = "Merge sort runs in O(n log n) time.\r\n\r\nA café graph is a pair of vertices and edges.\r\n".encode()
    path = write_file(workdirs[0], "crlf.md", raw)
    monkeypatch.chdir(workdirs[0])
    capsys.readouterr()
    assert main(["verify", str(path), "--corpus", CORPUS, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["manifest"]["input_sha256"] == hashlib.sha256(raw).hexdigest()
    assert report["annotated_answer"]["raw_answer"].encode() == raw


def all_keys_and_strings(value, keys: list[str], strings: list[str]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            keys.append(key)
            all_keys_and_strings(item, keys, strings)
    elif isinstance(value, list):
        for item in value:
            all_keys_and_strings(item, keys, strings)
    elif isinstance(value, str):
        strings.append(value)


def test_json_holds_no_timestamps(workdirs, capsys, monkeypatch):
    text = verify_in(workdirs[0], capsys, monkeypatch, "--json")
    keys: list[str] = []
    strings: list[str] = []
    all_keys_and_strings(json.loads(text), keys, strings)
    assert [key for key in keys if TIMESTAMP_KEYS.search(key)] == []
    assert [value for value in strings if TIMESTAMP.search(value)] == []


def test_timestamp_check_would_see_one():
    """The two patterns above catch the usual shapes, so the test before this one can fail."""
    assert TIMESTAMP.search("generated 2024-05-01T10:22")
    assert TIMESTAMP.search("at 10:22:33")
    assert TIMESTAMP_KEYS.search("created_at") and TIMESTAMP_KEYS.search("timestamp")
    assert not TIMESTAMP_KEYS.search("evidence_candidates")
