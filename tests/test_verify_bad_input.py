"""`veriground verify` on bad input: one line on stderr naming the problem and the fix, the right exit code, no
traceback; and citations that point nowhere, which are a per-claim verdict, not an error.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import write_file
from veriground.cli import main

SORTING = (
    "Merge sort is a stable sorting algorithm. It splits the array in half, sorts both halves and merges them, "
    "so it runs in O(n log n) time in the worst case."
)
GRAPHS = "A graph is a pair consisting of a set of vertices and a set of edges. Edges join two vertices."
GOOD_TEXT = "Merge sort is a stable sorting algorithm.\n"
INPUT_ERROR, CONFIG_ERROR = 1, 2


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("bad-input")
    write_file(root / "lib", "sorting.md", SORTING)
    write_file(root / "lib", "graphs.md", GRAPHS)
    corpus = root / "corpus"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("sys.stdout", io.StringIO())
        assert main(["ingest", str(root / "lib"), "--corpus", str(corpus), "--json"]) == 0
    return corpus


def verify(capsys, corpus: Path, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["verify", *argv, "--corpus", str(corpus)])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(err: str, *needles: str) -> None:
    assert err.startswith("error: ") and err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, (needle, err)


# --- the text to verify ---------------------------------------------------------------------------------


@pytest.mark.parametrize("content", ["", "  \n\t\n  "], ids=["empty", "whitespace-only"])
def test_empty_text_is_refused(tmp_path, corpus, capsys, content):
    path = write_file(tmp_path, "notes.md", content)
    code, out, err = verify(capsys, corpus, str(path))
    assert code == INPUT_ERROR and out == ""
    assert_one_line_error(err, "the text to verify is empty", "at least one sentence")


def test_invalid_utf8_names_the_byte_and_its_offset(tmp_path, corpus, capsys):
    path = write_file(tmp_path, "notes.md", b"Merge sort is stable.\n\xff caf\xc3\xa9")
    code, _, err = verify(capsys, corpus, str(path))
    assert code == INPUT_ERROR
    assert_one_line_error(err, str(path), "not UTF-8", "byte 0xff at offset 22", "save it as UTF-8")


def test_missing_file_is_named_with_the_fix(tmp_path, corpus, capsys):
    path = tmp_path / "nope.md"
    code, _, err = verify(capsys, corpus, str(path))
    assert code == INPUT_ERROR
    assert_one_line_error(err, f"cannot read {path}", "pass an existing file or - for stdin")


def fake_stdin(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr("sys.stdin", SimpleNamespace(buffer=io.BytesIO(data)))


def test_stdin_dash_is_verified(corpus, capsys, monkeypatch):
    fake_stdin(monkeypatch, GOOD_TEXT.encode())
    code, out, err = verify(capsys, corpus, "-", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["annotated_answer"]["raw_answer"] == GOOD_TEXT
    assert [item["claim"]["text"] for item in report["claims"]] == ["Merge sort is a stable sorting algorithm."]


def test_stdin_that_is_not_utf8_names_standard_input(corpus, capsys, monkeypatch):
    fake_stdin(monkeypatch, b"caf\xe9 au lait.")
    code, _, err = verify(capsys, corpus, "-")
    assert code == INPUT_ERROR
    assert_one_line_error(err, "standard input is not UTF-8", "byte 0xe9 at offset 3")


@pytest.mark.parametrize("separator", [" ", "\n"], ids=["one-paragraph", "one-per-line"])
def test_fifty_thousand_sentences_are_refused_by_max_claims(tmp_path, corpus, capsys, separator):
    path = write_file(tmp_path, "long.md", separator.join("Cats purr." for _ in range(50_000)))
    code, out, err = verify(capsys, corpus, str(path))
    assert code == INPUT_ERROR and out == ""
    assert_one_line_error(err, "verification.max_claims=2000", "about 50000 sentences", "--max-claims")


def test_max_claims_flag_sets_the_limit(tmp_path, corpus, capsys):
    path = write_file(tmp_path, "short.md", "Cats purr. Dogs bark. Cows moo.")
    code, _, err = verify(capsys, corpus, str(path), "--max-claims", "2")
    assert code == INPUT_ERROR
    assert_one_line_error(err, "verification.max_claims=2", "--max-claims")
    code, _, err = verify(capsys, corpus, str(path), "--max-claims", "0")
    assert code == CONFIG_ERROR
    assert_one_line_error(err, "verification.max_claims", "got 0", "--max-claims")


def test_text_over_max_input_chars_is_refused(tmp_path, corpus, capsys):
    path = write_file(tmp_path, "notes.md", GOOD_TEXT)  # 42 characters
    code, _, err = verify(capsys, corpus, str(path), "--max-input-chars", "20")
    assert code == INPUT_ERROR
    assert_one_line_error(err, "42 characters", "verification.max_input_chars=20", "--max-input-chars")


def test_text_far_over_max_input_chars_is_refused_before_decoding(tmp_path, corpus, capsys):
    path = write_file(tmp_path, "notes.md", GOOD_TEXT * 10)  # 420 bytes > 4 bytes x 20 characters
    code, _, err = verify(capsys, corpus, str(path), "--max-input-chars", "20")
    assert code == INPUT_ERROR
    assert_one_line_error(err, "420 bytes", "verification.max_input_chars=20", "--max-input-chars")


def test_byte_order_mark_does_not_change_the_claims(tmp_path, corpus, capsys):
    path = write_file(tmp_path, "notes.md", b"\xef\xbb\xbf# Sorting notes\n\n" + GOOD_TEXT.encode())
    code, out, err = verify(capsys, corpus, str(path), "--json")
    assert code == 0, err
    claims = [item["claim"]["text"] for item in json.loads(out)["claims"]]
    assert claims == ["Merge sort is a stable sorting algorithm."]


# --- flags ------------------------------------------------------------------------------------------------


def test_report_with_an_unknown_suffix_is_refused_before_any_work(tmp_path, corpus, capsys):
    text = write_file(tmp_path, "notes.md", GOOD_TEXT)
    target = tmp_path / "out.pdf"
    code, out, err = verify(capsys, corpus, str(text), "--report", str(target))
    assert code == CONFIG_ERROR and out == ""
    assert_one_line_error(err, f"--report {target}", "unknown report type", ".md, .html, .json")
    assert not target.exists()


def test_bad_contradiction_policy_lists_the_valid_ones(tmp_path, corpus, capsys):
    text = write_file(tmp_path, "notes.md", GOOD_TEXT)
    code, _, err = verify(capsys, corpus, str(text), "--contradiction-policy", "maybe")
    assert code == CONFIG_ERROR
    assert_one_line_error(
        err, "verification.contradiction_policy", "'surface'", "'abstain_on_high'", "'maybe'", "--contradiction-policy"
    )


def test_a_bad_value_names_the_flag_this_command_has_for_the_key(tmp_path, corpus, capsys):
    # retrieval.mode is --retrieval on verify (a flag named after the key's field, --mode, is ask's answer.mode).
    text = write_file(tmp_path, "notes.md", GOOD_TEXT)
    code, _, err = verify(capsys, corpus, str(text), "--retrieval", "bogus")
    assert code == CONFIG_ERROR
    assert_one_line_error(err, "retrieval.mode", "'bogus'", "--retrieval", "VERIGROUND_RETRIEVAL__MODE")
    assert "--mode" not in err


# --- evidence packs ---------------------------------------------------------------------------------------


def verify_pack(tmp_path: Path, capsys, corpus: Path, pack: str | bytes, *extra: str) -> tuple[int, str, str]:
    text = write_file(tmp_path, "notes.md", GOOD_TEXT)
    pack_path = write_file(tmp_path, "pack.json", pack)
    return verify(capsys, corpus, str(text), "--evidence", str(pack_path), *extra)


def test_pack_with_an_unknown_field_names_its_path(tmp_path, corpus, capsys):
    pack = json.dumps({"passages": [{"text": "Merge sort is stable.", "colour": "red"}]})
    code, _, err = verify_pack(tmp_path, capsys, corpus, pack)
    assert code == INPUT_ERROR
    assert_one_line_error(err, "pack.json", "unknown field 'passages.0.colour'", "a pack passage may have:", "text")


def test_pack_that_is_not_json_names_line_and_column(tmp_path, corpus, capsys):
    code, _, err = verify_pack(tmp_path, capsys, corpus, '{"passages": [\n  {"text": "x",}\n]}')
    assert code == INPUT_ERROR
    assert_one_line_error(err, "pack.json", "not valid JSON", "line 2 column 16")
    code, _, err = verify_pack(tmp_path, capsys, corpus, "Merge sort is stable.")
    assert code == INPUT_ERROR
    assert_one_line_error(err, "not valid JSON", "line 1 column 1")


def test_pack_passage_with_only_an_id_the_corpus_lacks_is_dangling(tmp_path, corpus, capsys):
    pack = json.dumps({"passages": [{"passage_id": "lib/sorting#000000000000"}]})
    code, _, err = verify_pack(tmp_path, capsys, corpus, pack)
    assert code == INPUT_ERROR
    assert_one_line_error(err, "passage 1", "'lib/sorting#000000000000'", "dangling", "give its text or fix the id")


def test_pack_passage_with_only_an_id_and_no_corpus_asks_for_its_text(tmp_path, capsys):
    pack = json.dumps({"passages": [{"passage_id": "lib/sorting#000000000000"}]})
    code, _, err = verify_pack(tmp_path, capsys, tmp_path / "no-corpus", pack)
    assert code == INPUT_ERROR
    assert_one_line_error(err, "no corpus to read it from", "give its text in the pack")


def test_pack_passage_with_only_an_id_is_read_from_the_corpus(tmp_path, corpus, capsys):
    capsys.readouterr()
    assert main(["search", "merge sort stable", "--corpus", str(corpus), "--json", "-k", "1"]) == 0
    passage_id = json.loads(capsys.readouterr().out)[0]["passage_id"]
    code, out, err = verify_pack(tmp_path, capsys, corpus, json.dumps([{"passage_id": passage_id}]), "--json")
    assert code == 0, err
    evidence = json.loads(out)["claims"][0]["evidence"]
    assert [(chunk["passage_id"], chunk["text"]) for chunk in evidence] == [(passage_id, SORTING)]


def test_pack_repeating_a_passage_id_is_refused(tmp_path, corpus, capsys):
    pack = json.dumps({"passages": [{"passage_id": "a", "text": "one"}, {"passage_id": "a", "text": "two"}]})
    code, _, err = verify_pack(tmp_path, capsys, corpus, pack)
    assert code == INPUT_ERROR
    assert_one_line_error(err, "passage 2 repeats passage_id 'a'", "give each passage its own id")


@pytest.mark.parametrize("pack", ['{"passages": []}', "[]"], ids=["object", "bare-list"])
def test_pack_with_no_passages_is_refused(tmp_path, corpus, capsys, pack):
    code, _, err = verify_pack(tmp_path, capsys, corpus, pack)
    assert code == INPUT_ERROR
    assert_one_line_error(err, "pack.json", "has no passages", 'add a "passages" list with at least one')


def test_missing_pack_file_names_the_flag_to_fix(tmp_path, corpus, capsys):
    text = write_file(tmp_path, "notes.md", GOOD_TEXT)
    code, _, err = verify(capsys, corpus, str(text), "--evidence", str(tmp_path / "missing.json"))
    assert code == INPUT_ERROR
    assert_one_line_error(err, "missing.json", "cannot read the evidence pack", "--evidence")


# --- citations that point nowhere: a verdict for the claim, not an error ------------------------------------


def claims_of(out: str) -> dict[str, dict]:
    return {item["claim"]["claim_id"]: item for item in json.loads(out)["claims"]}


def test_citation_of_a_passage_that_does_not_exist_makes_the_claim_unsupported(tmp_path, corpus, capsys):
    text = write_file(
        tmp_path,
        "notes.md",
        "A graph is a pair consisting of a set of vertices and a set of edges. [CITATION: nope/doc#000000000000]\n\n"
        "Merge sort is a stable sorting algorithm.\n",
    )
    code, out, err = verify(capsys, corpus, str(text), "--json")
    assert code == 0, err
    claims = claims_of(out)
    graph, sorting = claims["c_0001"], claims["c_0002"]
    assert (graph["decision"]["status"], graph["decision"]["reason"]) == ("Unsupported", "dangling_citation")
    assert graph["decision"]["rule"] == "dangling-citation"
    assert graph["signals"]["citation"]["dangling_ids"] == ["nope/doc#000000000000"]
    assert "nope/doc#000000000000" in graph["decision"]["rationale"]
    assert sorting["decision"]["reason"] != "dangling_citation"  # only the citing claim is affected


def test_numbered_citation_over_a_corpus_is_not_dangling(tmp_path, corpus, capsys):
    text = write_file(tmp_path, "notes.md", "Merge sort is a stable sorting algorithm. [1]\n")
    code, out, err = verify(capsys, corpus, str(text), "--json")
    assert code == 0, err
    claim = claims_of(out)["c_0001"]
    citation = claim["signals"]["citation"]
    assert claim["claim"]["cited_ids"] == ["1"]
    assert citation["status"] == "not_applicable" and "--evidence" in citation["reason"]
    assert citation["dangling_ids"] == []
    assert claim["decision"]["reason"] != "dangling_citation"
    assert claim["inputs"]["dangling_citations"] == []


PACK = {
    "query": "sorting",
    "passages": [
        {"passage_id": "notes/quick#1", "text": "Quicksort picks a pivot and partitions the array.", "source_id": "a"},
        {"passage_id": "notes/merge#2", "text": "Merge sort is a stable sorting algorithm.", "source_id": "b"},
    ],
}


def test_numbered_citation_in_pack_mode_is_the_pack_passage_at_that_position(tmp_path, corpus, capsys):
    text = write_file(tmp_path, "notes.md", "Quicksort picks a pivot. [2]\n\nQuicksort partitions the array. [9]\n")
    pack = write_file(tmp_path, "pack.json", json.dumps(PACK))
    code, out, err = verify(capsys, corpus, str(text), "--evidence", str(pack), "--json")
    assert code == 0, err
    claims = claims_of(out)
    second, ninth = claims["c_0001"], claims["c_0002"]
    # "[2]" is the second pack passage, put first as cited evidence although BM25 prefers the first.
    assert second["signals"]["citation"]["cited_ids"] == ["notes/merge#2"]
    assert second["signals"]["citation"]["dangling_ids"] == []
    assert second["evidence"][0]["passage_id"] == "notes/merge#2"
    assert second["decision"]["reason"] != "dangling_citation"
    # "[9]" in a two-passage pack points nowhere.
    assert ninth["signals"]["citation"]["dangling_ids"] == ["9"]
    assert (ninth["decision"]["status"], ninth["decision"]["reason"]) == ("Unsupported", "dangling_citation")
    assert json.loads(out)["manifest"]["evidence_mode"] == "pack"
