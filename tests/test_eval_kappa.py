"""`eval kappa`: two raters' rubric files (seed 004 §3.8) -> Cohen's kappa, items rated and percent agreement per
rubric item; bad files are one-line errors naming the file, the line and the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import REPO_ROOT, write_file
from veriground.cli import main
from veriground.errors import InputFileError
from veriground.evaluation.metrics import RUBRIC_DIMENSIONS
from veriground.evaluation.rubric import (
    RUBRIC_SCALES,
    bin_five_point,
    bin_support_ratio,
    read_rubric,
    rubric_agreement,
)

EXAMPLE_A = REPO_ROOT / "tests" / "data" / "rubric_rater_a.jsonl"
EXAMPLE_B = REPO_ROOT / "tests" / "data" / "rubric_rater_b.jsonl"
GOOD = {"id": "g001", "G0": 1, "G1": 0.75, "G2": 2, "U1": 4, "U2": 3}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def rubric_file(folder: Path, name: str, rows: list[dict]) -> Path:
    return write_file(folder, name, "".join(json.dumps(row) + "\n" for row in rows))


def test_the_scales_are_the_rubric_items_of_the_metrics():
    assert tuple(scale.item for scale in RUBRIC_SCALES) == RUBRIC_DIMENSIONS


def test_the_example_files_give_hand_computed_kappas():
    result = {item.item: item for item in rubric_agreement(EXAMPLE_A, EXAMPLE_B).items}
    assert list(result) == ["G0", "G1", "G2", "U1", "U1 binned", "U2"]
    # G0: 11 of 12 agree; A says 1 nine times, B ten times: p_e = (9*10 + 3*2) / 144, kappa = (11/12 - p_e) / (1 - p_e)
    g0 = result["G0"]
    assert (g0.rated, g0.agreement.value) == (12, pytest.approx(11 / 12))
    assert g0.kappa.value == pytest.approx((11 / 12 - 96 / 144) / (1 - 96 / 144))
    # G1 and G2 are null for the two abstentions, so 10 answers count; G1 compares bins (0.5 and 0.67 agree)
    assert (result["G1"].rated, result["G2"].rated) == (10, 10)
    assert result["G1"].agreement.value == pytest.approx(0.8)
    assert result["U1"].agreement.value == pytest.approx(7 / 12)
    assert result["U1 binned"].agreement.value == pytest.approx(9 / 12)  # 4 vs 5 and 1 vs 2 agree when binned


def test_kappa_prints_a_table_with_rated_agreement_and_kappa(capsys):
    code, out, err = run(capsys, "eval", "kappa", str(EXAMPLE_A), str(EXAMPLE_B))
    assert code == 0, err
    assert out.startswith(f"eval kappa: 12 answers rated in {EXAMPLE_A} and {EXAMPLE_B}")
    assert "G0         grounded (0/1)                              12     91.7%  0.750\n" in out
    assert "U1 binned  clarity (bins 1-2, 3, 4-5)" in out


def test_kappa_json_is_stable_and_says_why_a_kappa_is_undefined(tmp_path, capsys):
    same = [GOOD | {"id": f"a{n}"} for n in range(3)]
    first, second = rubric_file(tmp_path, "a.jsonl", same), rubric_file(tmp_path, "b.jsonl", same[::-1])
    code, out, err = run(capsys, "eval", "kappa", str(first), str(second), "--json")
    assert code == 0, err
    assert run(capsys, "eval", "kappa", str(first), str(second), "--json")[1] == out
    data = json.loads(out)
    assert data["answers"] == 3 and data["items"]["G0"]["agreement"] == {"value": 1.0}
    assert data["items"]["G0"]["kappa"]["reason"].startswith("both raters gave every item the same single label")
    code, out, _ = run(capsys, "eval", "kappa", str(first), str(second))
    assert "  G0: kappa n/a, both raters gave every item the same single label" in out


def test_an_item_nobody_rated_has_no_agreement(tmp_path):
    rows = [GOOD | {"id": f"a{n}", "G2": None, "U1": 1 + n} for n in range(3)]
    result = {item.item: item for item in rubric_agreement(*(rubric_file(tmp_path, n, rows) for n in "ab")).items}
    assert result["G2"].rated == 0
    assert result["G2"].agreement.reason == "no answer rated by both raters"
    assert result["G2"].kappa.reason == "no items rated by both raters"
    assert result["U1"].kappa.value == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("ratio", "bin_name"), [(0, "0"), (0.0, "0"), (0.2, "<0.5"), (0.5, ">=0.5"), (0.99, ">=0.5"), (1, "1")]
)
def test_support_ratio_bins(ratio, bin_name):
    assert bin_support_ratio(ratio) == bin_name


def test_five_point_bins():
    assert [bin_five_point(score) for score in range(1, 6)] == ["low", "low", "mid", "high", "high"]


def test_integral_floats_count_as_integers_and_notes_are_kept_out(tmp_path):
    path = rubric_file(tmp_path, "a.jsonl", [GOOD | {"G2": 2.0, "note": "fine"}])
    (rating,) = read_rubric(path)
    assert rating.scores == {"G0": 1, "G1": 0.75, "G2": 2, "U1": 4, "U2": 3} and isinstance(rating.scores["G2"], int)


# --- bad input: file, line and field ---------------------------------------------------------------------------

BAD_LINES = [
    pytest.param('{"id": "x",', "line 2: not valid JSON: Expecting property name", id="bad-json"),
    pytest.param("[1, 2]", "line 2: a rating must be a JSON object, got list", id="not-an-object"),
    pytest.param(json.dumps(GOOD | {"id": "x", "G3": 1}), "line 2: unknown field 'G3'", id="unknown-field"),
    pytest.param(json.dumps({k: v for k, v in GOOD.items() if k != "id"}), "line 2: id must be", id="no-id"),
    pytest.param(json.dumps(GOOD | {"id": "  "}), "line 2: id must be a non-empty string, got", id="blank-id"),
    pytest.param(json.dumps(GOOD), "line 2: id 'g001' repeats line 1", id="repeated-id"),
    pytest.param(
        json.dumps({k: v for k, v in GOOD.items() if k != "G2"} | {"id": "x"}),
        "line 2: missing field 'G2' (write null where the answer was not rated on it)",
        id="missing-item",
    ),
    pytest.param(
        json.dumps(GOOD | {"id": "x", "G0": True}),
        "line 2: G0 (grounded) must be 0 or 1, or null when not rated; got true",
        id="boolean",
    ),
    pytest.param(
        json.dumps(GOOD | {"id": "x", "G1": 1.5}),
        "line 2: G1 (support ratio) must be a number from 0 to 1, or null when not rated; got 1.5",
        id="ratio-above-1",
    ),
    pytest.param(
        json.dumps(GOOD | {"id": "x", "G2": 3}),
        "line 2: G2 (citation correctness) must be 0, 1 or 2, or null when not rated; got 3",
        id="g2-out-of-range",
    ),
    pytest.param(
        json.dumps(GOOD | {"id": "x", "U1": 0}),
        "line 2: U1 (clarity) must be 1, 2, 3, 4 or 5, or null when not rated; got 0",
        id="u1-out-of-range",
    ),
    pytest.param(
        json.dumps(GOOD | {"id": "x", "U2": "4"}),
        'line 2: U2 (actionability) must be 1, 2, 3, 4 or 5, or null when not rated; got "4"',
        id="string-score",
    ),
    pytest.param(json.dumps(GOOD | {"id": "x", "U2": 3.5}), "line 2: U2 (actionability) must be", id="half-point"),
    pytest.param(json.dumps(GOOD | {"id": "x", "note": 3}), "line 2: note must be a string, got 3", id="note"),
]


@pytest.mark.parametrize(("line", "message"), BAD_LINES)
def test_bad_lines_name_the_file_the_line_and_the_field(tmp_path, line, message):
    path = write_file(tmp_path, "a.jsonl", json.dumps(GOOD) + "\n" + line + "\n")
    with pytest.raises(InputFileError) as caught:
        read_rubric(path)
    assert str(caught.value).startswith(f"{path} {message}"), str(caught.value)


def test_missing_ids_are_named_for_each_file(tmp_path, capsys):
    first = rubric_file(tmp_path, "a.jsonl", [GOOD | {"id": i} for i in ("g1", "g2", "g3")])
    second = rubric_file(tmp_path, "b.jsonl", [GOOD | {"id": i} for i in ("g1", "g4")])
    code, out, err = run(capsys, "eval", "kappa", str(first), str(second))
    assert code == 1 and out == ""
    assert err == (
        f"error: {second}: lacks 2 ids ('g2', 'g3') that {first} rates; {first} lacks 1 id ('g4') that {second} "
        "rates (both raters must rate the same answers, by id)\n"
    )


def test_a_long_list_of_missing_ids_is_cut(tmp_path):
    first = rubric_file(tmp_path, "a.jsonl", [GOOD | {"id": f"g{n:02}"} for n in range(25)])
    second = rubric_file(tmp_path, "b.jsonl", [GOOD | {"id": "g00"}])
    with pytest.raises(InputFileError, match=r"lacks 24 ids \('g01', .*'g10' and 14 more\) that"):
        rubric_agreement(first, second)


def test_empty_missing_and_non_utf8_files_are_one_line_errors(tmp_path, capsys):
    empty = write_file(tmp_path, "empty.jsonl", "\n\n")
    code, _, err = run(capsys, "eval", "kappa", str(empty), str(EXAMPLE_B))
    assert code == 1 and err == (
        f"error: {empty}: no ratings (write one JSON object per line with id, G0, G1, G2, U1, U2, note)\n"
    )
    code, _, err = run(capsys, "eval", "kappa", str(EXAMPLE_A), str(tmp_path / "nowhere.jsonl"))
    assert code == 1 and "nowhere.jsonl: cannot read the rubric file" in err and "Traceback" not in err
    latin = write_file(tmp_path, "latin.jsonl", b'{"id": "caf\xe9"}\n')
    code, _, err = run(capsys, "eval", "kappa", str(latin), str(EXAMPLE_B))
    assert code == 1 and err == f"error: {latin}: not UTF-8 (byte 0xe9 at offset 11) (save it as UTF-8)\n"
