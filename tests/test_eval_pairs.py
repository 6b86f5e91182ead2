"""`eval pairs` end to end on a tiny JSONL and a tiny corpus (lexical NLI), the prediction and probability rules,
bad input with messages naming file, line and field, and byte-identical JSON from run to run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import write_file
from veriground.backends.fakes import FailingNLIModel
from veriground.backends.lexical_nli import LexicalNLIModel
from veriground.cli import main
from veriground.config import load_config
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore
from veriground.errors import InputFileError, InputTextError, NotFoundError
from veriground.evaluation.pairs import evaluate_pairs, read_pairs
from veriground.schema import LabelledPair
from veriground.verdicts.aggregator import load_aggregator

KINETIC = "Kinetic energy is the energy of motion of a body. A body of mass m moving at speed v has KE = 1/2 m v^2."
SORTING = "Merge sort is a stable sorting algorithm. It runs in O(n log n) time in the worst case."
CONFIG = load_config(None, environ={})


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> tuple[Path, str]:
    """A two-document corpus and the passage id of the sorting passage."""
    root = tmp_path_factory.mktemp("eval-pairs")
    write_file(root / "lib", "energy.md", KINETIC)
    write_file(root / "lib", "sorting.md", SORTING)
    with CorpusStore(root / "corpus", create=True) as store:
        assert not ingest_paths([root / "lib"], store, CONFIG.ingest).failed
        sorting_id = next(pid for pid, text in store.iter_latest_texts() if text.startswith("Merge sort"))
    return root / "corpus", sorting_id


def rows_file(folder: Path, sorting_id: str) -> Path:
    rows = [
        {"id": "ke-ok", "text": "Kinetic energy is the energy of motion of a body.", "evidence": [KINETIC],
         "label": "supported", "group": "physics"},
        {"id": "ke-negated", "text": "Kinetic energy is not the energy of motion of a body.",
         "evidence": ["Kinetic energy is the energy of motion of a body."], "label": "contradicted",
         "group": "physics"},
        {"id": "ke-number", "text": "A body of mass m moving at speed v has KE = 2 m v^2.", "evidence": [KINETIC],
         "label": "contradicted", "group": "physics"},
        {"id": "off-topic", "text": "The Eiffel Tower stands in Paris.", "evidence": [SORTING], "label": "unsupported"},
        {"id": "sort-by-id", "text": "Merge sort is a stable sorting algorithm.", "evidence_ids": [sorting_id],
         "label": "supported", "group": "algorithms"},
        {"id": "sort-negated", "text": "Merge sort is an unstable sorting algorithm.", "evidence_ids": [sorting_id],
         "label": "contradicted", "group": "algorithms"},
    ]  # fmt: skip
    return write_file(folder, "rows.jsonl", "".join(json.dumps(row) + "\n" for row in rows))


def test_a_hard_rejections_probability_is_how_often_its_rule_rejected_a_supported_calibration_row():
    evidence = ("Objects near Earth fall with an acceleration of 9.8 m/s^2.",)
    row = LabelledPair(
        id="g-number",
        text="Objects near Earth fall with an acceleration of 98 m/s^2.",
        evidence=evidence,
        label="contradicted",
    )
    (prediction,) = evaluate_pairs([row], config=CONFIG, nli=LexicalNLIModel()).predictions
    rate = load_aggregator("lexical-nli.v1").hard_rejection_support["numeric-mismatch"]
    assert prediction.rules == ("numeric-mismatch",) and prediction.support_prob == rate
    assert 0 < rate < 0.2  # not "certainly wrong": the check was wrong about 5 of 64 calibration rows


def test_a_claim_joining_two_facts_of_one_passage_is_no_numeric_mismatch():
    """One claim (not split) aligns with the forecast sentence; its other value is in the sentence before
    (SummEdits)."""
    passage = (
        "Consolidated sales were $441 million, an increase from $437 million in the prior year. Our sales forecast "
        "for 2021 remains in the range of $1.7 billion to $1.8 billion compared with $1.67 billion in the prior year."
    )
    rows = [
        LabelledPair(id=name, text=text, evidence=(passage,), label=label)
        for name, text, label in (
            ("joined", "The company's consolidated sales gained to $441 million, with a projected sales forecast for "
             "2021 remaining within the range of $1.7 billion to $1.8 billion.", "supported"),
            ("edited", "The company's consolidated sales gained to $481 million, with a projected sales forecast for "
             "2021 remaining within the range of $1.7 billion to $1.8 billion.", "contradicted"),
        )
    ]  # fmt: skip
    result = evaluate_pairs(rows, config=CONFIG, nli=LexicalNLIModel())
    rules = {p.id: p.rules for p in result.predictions}
    assert "numeric-mismatch" not in rules["joined"]
    assert "numeric-mismatch" in rules["edited"]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_eval_pairs_json_scores_each_row_against_exactly_its_evidence(tmp_path, corpus, capsys):
    corpus_dir, sorting_id = corpus
    path = rows_file(tmp_path, sorting_id)
    code, out, err = run(capsys, "eval", "pairs", str(path), "--corpus", str(corpus_dir), "--json")
    assert code == 0, err
    assert err == ""  # no progress bar with --json
    data = json.loads(out)
    predictions = {p["id"]: p for p in data["predictions"]}
    assert {i for i, p in predictions.items() if p["predicted_hallucinated"]} == {
        "ke-negated", "ke-number", "off-topic", "sort-negated"
    }  # fmt: skip
    # the raw aggregator (pinned for unit tests) has no fitted hard-rejection rates: 0
    # "2 m v^2" multiplies symbols (m is the mass, not 2 metres): the equation check catches it, not the numbers
    assert predictions["ke-number"]["rules"] == ["formal-mismatch"] and predictions["ke-number"]["support_prob"] == 0
    assert predictions["off-topic"]["verdicts"] == ["Unsupported"] and predictions["off-topic"]["support_prob"] == 0
    assert predictions["sort-by-id"]["verdicts"] == ["Low Confidence"]  # one source: supported, not hallucinated
    assert predictions["sort-by-id"]["support_prob"] > 0.6
    overall = data["overall"]
    assert overall["rows"] == 6 and overall["detection"]["confusion"] == {"tp": 4, "fp": 0, "fn": 0, "tn": 2}
    assert overall["detection"]["balanced_accuracy"] == {"value": 1.0}
    assert overall["calibration"]["ece"]["value"] < 0.1 and len(overall["calibration"]["bins"]) == 10
    assert set(data["groups"]) == {"physics", "algorithms"}  # the row without a group is only in the overall
    assert data["groups"]["algorithms"]["rows"] == 2


def test_eval_pairs_json_is_byte_identical_from_run_to_run(tmp_path, corpus, capsys):
    corpus_dir, sorting_id = corpus
    path = rows_file(tmp_path, sorting_id)
    first = run(capsys, "eval", "pairs", str(path), "--corpus", str(corpus_dir), "--json")
    second = run(capsys, "eval", "pairs", str(path), "--corpus", str(corpus_dir), "--json")
    assert first == second and first[0] == 0


def test_eval_pairs_table_prints_scores_confusion_and_groups(tmp_path, corpus, capsys):
    corpus_dir, sorting_id = corpus
    path = rows_file(tmp_path, sorting_id)
    code, out, err = run(capsys, "eval", "pairs", str(path), "--corpus", str(corpus_dir), "--limit", "4")
    assert code == 0, err
    assert "4 rows" in out and "precision 1.000  recall 1.000  F1 1.000  balanced accuracy 1.000" in out
    assert "ECE" in out and "Brier" in out
    assert "  gold hallucinated                      3                 0" in out
    assert "physics                      3" in out and "algorithms" not in out  # --limit 4: the first four rows


def test_the_table_says_why_a_metric_is_undefined(tmp_path, capsys):
    path = write_file(tmp_path, "rows.jsonl", json.dumps(GOOD) + "\n")
    code, out, err = run(capsys, "eval", "pairs", str(path))
    assert code == 0, err
    assert "recall n/a" in out and "  recall: n/a, no gold positives\n" in out
    assert "  balanced_accuracy: n/a, needs both classes in gold labels: no gold positives\n" in out


def test_a_text_whose_nli_cannot_run_is_unverified_and_counted_hallucinated():
    rows = [LabelledPair(id="a", text="Merge sort is stable.", evidence=(SORTING,), label="supported")]
    result = evaluate_pairs(rows, config=CONFIG, nli=FailingNLIModel())
    prediction = result.predictions[0]
    assert prediction.verdicts == ("Unverified",) and prediction.hallucinated
    assert prediction.support_prob is None
    assert result.overall.unverified_rows == 1 and result.overall.without_probability == 1
    assert result.overall.calibration.ece.reason == "no probabilities to calibrate"


def test_progress_is_called_once_per_row():
    rows = [
        LabelledPair(id=str(n), text="Merge sort is stable.", evidence=(SORTING,), label="supported") for n in range(3)
    ]
    done: list[int] = []
    evaluate_pairs(rows, config=CONFIG, nli=LexicalNLIModel(), progress=done.append, batch_rows=2)
    assert done == [1, 2, 3]


class CountingNLIModel:
    def __init__(self) -> None:
        self.model = LexicalNLIModel()
        self.name, self.model_id, self.checksum = self.model.name, self.model.model_id, self.model.checksum
        self.calls = 0

    def predict(self, pairs):
        self.calls += 1
        return self.model.predict(pairs)


def test_rows_are_verified_in_batches_with_the_predictions_of_row_by_row(tmp_path, corpus):
    corpus_dir, sorting_id = corpus
    rows = read_pairs(rows_file(tmp_path, sorting_id))
    rows += [
        LabelledPair(
            id=f"extra-{n}", text=f"Merge sort sorts {n} items stably.", evidence=(SORTING,), label="supported"
        )
        for n in range(40)
    ]
    with CorpusStore(corpus_dir) as store:
        resolve = lambda passage_id: store.passage(passage_id).text  # noqa: E731
        model = CountingNLIModel()
        batched = evaluate_pairs(rows, config=CONFIG, nli=model, resolve=resolve)
        one_call_per_row = CountingNLIModel()
        by_row = evaluate_pairs(rows, config=CONFIG, nli=one_call_per_row, resolve=resolve, batch_rows=1)
        in_twos = evaluate_pairs(rows, config=CONFIG, nli=LexicalNLIModel(), resolve=resolve, batch_rows=2)
    assert batched.to_json() == by_row.to_json() == in_twos.to_json()
    assert model.calls == 1  # 46 rows: one default batch, no conflict check
    assert one_call_per_row.calls == len(rows) - 1  # the off-topic row retrieves no evidence: nothing to ask


# --- bad input: file, line number and field ------------------------------------------------------------------

GOOD = {"id": "a", "text": "Merge sort is stable.", "evidence": [SORTING], "label": "supported"}
BAD_ROWS = [
    pytest.param('{"id": "b",', "line 2: not valid JSON: Expecting property name", id="bad-json"),
    pytest.param("[1, 2]", "line 2: a row must be a JSON object, got list", id="not-an-object"),
    pytest.param(
        json.dumps({k: v for k, v in GOOD.items() if k != "label"} | {"id": "b"}),
        "line 2: missing field 'label'",
        id="missing-field",
    ),
    pytest.param(json.dumps(GOOD | {"id": "b", "label": "yes"}), None, id="bad-label"),
    pytest.param(
        json.dumps(GOOD | {"id": "b", "evidence_ids": ["lib/a#1"]}),
        "line 2: give exactly one of evidence (passage texts) or evidence_ids (corpus passage ids)",
        id="both-evidence-kinds",
    ),
    pytest.param(
        json.dumps({k: v for k, v in GOOD.items() if k != "evidence"} | {"id": "b"}),
        "line 2: give exactly one of evidence (passage texts) or evidence_ids (corpus passage ids)",
        id="neither-evidence-kind",
    ),
    pytest.param(json.dumps(GOOD | {"id": "b", "source": "x"}), "line 2: unknown field 'source'", id="unknown-field"),
    pytest.param(json.dumps(GOOD), "line 2: id 'a' repeats line 1", id="repeated-id"),
    pytest.param(json.dumps(GOOD | {"id": "b", "evidence": 3}), "line 2: evidence", id="not-list"),
    pytest.param(json.dumps(GOOD | {"id": "b", "evidence": ["  "]}), "line 2: evidence[0] is blank", id="blank"),
    pytest.param(json.dumps(GOOD | {"id": ""}), "line 2: id must not be empty", id="empty-id"),
]


@pytest.mark.parametrize(("line", "message"), BAD_ROWS)
def test_bad_rows_name_the_file_the_line_and_the_field(tmp_path, line, message):
    path = write_file(tmp_path, "rows.jsonl", json.dumps(GOOD) + "\n" + line + "\n")
    with pytest.raises(InputFileError) as caught:
        read_pairs(path)
    expected = message or "line 2: label must be supported|unsupported|contradicted, got 'yes'"
    assert str(caught.value).startswith(f"{path} {expected}"), str(caught.value)


def test_the_label_message_reads_as_the_issue_spells_it(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    lines = [json.dumps(GOOD | {"id": str(n)}) for n in range(6)] + [json.dumps(GOOD | {"id": "7", "label": "yes"})]
    write_file(tmp_path, "rows.jsonl", "\n".join(lines) + "\n")
    code, out, err = run(capsys, "eval", "pairs", "rows.jsonl")
    assert code == 1 and out == ""
    assert err == "error: rows.jsonl line 7: label must be supported|unsupported|contradicted, got 'yes'\n"


def test_empty_and_missing_files_are_one_line_errors(tmp_path, capsys):
    write_file(tmp_path, "empty.jsonl", "\n\n")
    with pytest.raises(InputFileError, match="empty.jsonl: no rows"):
        read_pairs(tmp_path / "empty.jsonl")
    code, _, err = run(capsys, "eval", "pairs", str(tmp_path / "nowhere.jsonl"))
    assert code == 1 and "nowhere.jsonl: cannot read the labelled pairs" in err and "Traceback" not in err


def test_an_unknown_passage_id_fails_before_any_row_is_verified(tmp_path, corpus, capsys):
    corpus_dir, sorting_id = corpus
    rows = [GOOD, GOOD | {"id": "b", "evidence": [], "evidence_ids": [sorting_id, "lib/energy#000000000000"]}]
    path = write_file(
        tmp_path, "rows.jsonl", "".join(json.dumps({k: v for k, v in r.items() if v}) + "\n" for r in rows)
    )
    code, out, err = run(capsys, "eval", "pairs", str(path), "--corpus", str(corpus_dir))
    assert code == 4 and out == ""
    assert err == (
        "error: row 2 (id 'b'): evidence id 'lib/energy#000000000000' is not in the corpus; check it with "
        "`veriground corpus passage lib/energy#000000000000`, or give the text in evidence\n"
    )


def test_evidence_ids_without_a_corpus_and_repeated_ids_in_the_api():
    by_id = LabelledPair(id="a", text="Merge sort is stable.", evidence_ids=("lib/sorting#1",), label="supported")
    with pytest.raises(NotFoundError, match="row 1 \\(id 'a'\\) gives evidence_ids but there is no corpus"):
        evaluate_pairs([by_id], config=CONFIG, nli=LexicalNLIModel())
    by_text = LabelledPair(id="a", text="Merge sort is stable.", evidence=(SORTING,), label="supported")
    with pytest.raises(InputTextError, match="row 2: id 'a' repeats row 1"):
        evaluate_pairs([by_text, by_text], config=CONFIG, nli=LexicalNLIModel())


def test_the_progress_bar_goes_to_stderr_and_not_with_json(tmp_path, corpus, capsys, monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich draws the bar as it would on a terminal
    corpus_dir, sorting_id = corpus
    path = rows_file(tmp_path, sorting_id)
    code, out, err = run(capsys, "eval", "pairs", str(path), "--corpus", str(corpus_dir))
    assert code == 0 and "6/6" in err and "6/6" not in out and out.startswith("eval pairs:")
    code, out, err = run(capsys, "eval", "pairs", str(path), "--corpus", str(corpus_dir), "--json")
    assert code == 0 and err == "" and json.loads(out)["overall"]["rows"] == 6


def test_evidence_ids_with_a_missing_corpus_name_the_corpus_folder(tmp_path, capsys):
    row = GOOD | {"evidence_ids": ["lib/sorting#1"]}
    path = write_file(tmp_path, "rows.jsonl", json.dumps({k: v for k, v in row.items() if k != "evidence"}) + "\n")
    code, out, err = run(capsys, "eval", "pairs", str(path), "--corpus", str(tmp_path / "nowhere"))
    assert code == 3 and out == "" and err.startswith(f"error: no corpus at {tmp_path / 'nowhere'}")


def test_a_row_citing_its_originals_sources_by_number_is_checked_on_its_evidence_not_rejected():
    """AttributionBench-style rows: the text keeps the "[3]" of the answer it came from, and the row's evidence is
    that cited source alone. A number past the row's evidence names nothing here, so it is left out of the claim's
    citations (not a dangling citation), while a number inside the evidence list still names that passage."""
    texts = {
        "past": "Merge sort is a stable sorting algorithm [3].",
        "inside": "Merge sort is a stable sorting algorithm [1].",
        "wrong": "The Eiffel Tower stands in Paris [3].",
    }
    rows = [
        LabelledPair(id=key, text=text, evidence=(SORTING,), label="unsupported" if key == "wrong" else "supported")
        for key, text in texts.items()
    ]
    predictions = {p.id: p for p in evaluate_pairs(rows, config=CONFIG, nli=LexicalNLIModel()).predictions}
    assert predictions["past"].rules == predictions["inside"].rules
    assert not predictions["past"].hallucinated and "dangling-citation" not in predictions["past"].rules
    assert predictions["wrong"].hallucinated and "dangling-citation" not in predictions["wrong"].rules


def test_in_a_users_pack_a_number_past_its_end_is_still_a_dangling_citation():
    from veriground.engine import verify_text
    from veriground.evidence.gather import PackEvidence
    from veriground.schema import EvidencePack, PackPassage

    pack = EvidencePack(passages=(PackPassage(passage_id="sorting", text=SORTING),))
    report = verify_text(
        "Merge sort is a stable sorting algorithm [3].",
        config=CONFIG,
        source=PackEvidence(pack, CONFIG.retrieval),
        nli=LexicalNLIModel(),
    )
    assert [claim.decision.rule for claim in report.claims] == ["dangling-citation"]
