"""judge_evidence (verdicts/support.py): one batched predict call over evidence units, per-chunk signals, and
visible degradation."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from veriground.backends.fakes import FailingNLIModel, FakeNLIModel
from veriground.backends.lexical_nli import LexicalNLIModel
from veriground.backends.protocols import NLIModel
from veriground.schema import Claim, EvidenceChunk, NLIScores, SignalStatus
from veriground.verdicts.aggregator import raw_aggregator
from veriground.verdicts.support import judge_evidence

NEUTRAL = NLIScores(entail=0.1, neutral=0.8, contradict=0.1)
ENTAILS = NLIScores(entail=0.9, neutral=0.05, contradict=0.05)
CONTRADICTS = NLIScores(entail=0.02, neutral=0.08, contradict=0.9)


def make_claim(claim_id: str, text: str) -> Claim:
    return Claim(
        claim_id=claim_id, answer_id="a1", text=text, answer_char_span=(0, len(text)), extraction_method="sentence"
    )


def make_chunk(passage_id: str, text: str, rank: int = 1) -> EvidenceChunk:
    return EvidenceChunk(
        doc_id="d1",
        sent_id=rank - 1,
        passage_id=passage_id,
        text=text,
        char_start=0,
        char_end=len(text),
        rank=rank,
        source="physics-notes",
        version="d1@v1",
    )


LIGHT_CLAIM = make_claim("c1", "The speed of light in vacuum is 3.0 × 10⁹ m/s.")
G_CLAIM = make_claim("c2", "Near Earth's surface, g is about 9.8 m/s².")
ORPHAN = make_claim("c3", "Quicksort is stable.")
LIGHT_PASSAGE = make_chunk("p-light", "The speed of light in vacuum is 3.0 × 10⁸ m/s.")
G_PASSAGE = make_chunk("p-g", "Free-fall acceleration near Earth's surface is g = 9.8 m/s².", rank=2)
EVIDENCE = {"c1": [LIGHT_PASSAGE, G_PASSAGE], "c2": [G_PASSAGE]}


def compute_nli(claims, evidence, model):
    return judge_evidence(claims, evidence, model, raw_aggregator(model.name))


def test_one_batched_call_for_all_pairs_in_evidence_order():
    model = FakeNLIModel(
        {(LIGHT_PASSAGE.text, LIGHT_CLAIM.text): CONTRADICTS, (G_PASSAGE.text, G_CLAIM.text): ENTAILS}, NEUTRAL
    )
    signals = compute_nli([LIGHT_CLAIM, G_CLAIM], EVIDENCE, model)
    assert len(model.calls) == 1
    assert model.calls[0] == [
        (LIGHT_PASSAGE.text, LIGHT_CLAIM.text),
        (G_PASSAGE.text, LIGHT_CLAIM.text),
        (G_PASSAGE.text, G_CLAIM.text),
    ]
    assert [signal.passage_id for signal in signals["c1"]] == ["p-light", "p-g"]
    assert [signal.contradiction_prob for signal in signals["c1"]] == [0.9, 0.1]
    [g_signal] = signals["c2"]
    assert g_signal.status == SignalStatus.COMPUTED
    assert (g_signal.entailment_prob, g_signal.neutral_prob, g_signal.model) == (0.9, 0.05, "fake-nli.v1")


def test_claim_without_evidence_is_not_applicable_and_not_sent_to_the_model():
    model = FakeNLIModel({}, NEUTRAL)
    signals = compute_nli([ORPHAN, G_CLAIM], {"c2": [G_PASSAGE], "c3": []}, model)
    [orphan] = signals["c3"]
    assert (orphan.status, orphan.reason, orphan.model) == (SignalStatus.NOT_APPLICABLE, "no evidence", "fake-nli.v1")
    assert orphan.entailment_prob is None
    assert model.calls == [[(G_PASSAGE.text, G_CLAIM.text)]]


def test_no_pairs_means_no_model_call():
    model = FakeNLIModel({}, NEUTRAL)
    signals = compute_nli([ORPHAN], {}, model)
    assert model.calls == [] and signals["c3"][0].status == SignalStatus.NOT_APPLICABLE


def test_failing_backend_makes_every_signal_unavailable_with_the_reason():
    signals = compute_nli([LIGHT_CLAIM, G_CLAIM, ORPHAN], EVIDENCE, FailingNLIModel("weights missing at /models/nli"))
    unavailable = signals["c1"] + signals["c2"]
    assert len(unavailable) == 3
    for signal in unavailable:
        assert signal.status == SignalStatus.UNAVAILABLE
        assert signal.reason == "failing-nli.v1: weights missing at /models/nli"
        assert signal.entailment_prob is None and signal.contradiction_prob is None
    assert [signal.passage_id for signal in signals["c1"]] == ["p-light", "p-g"]
    assert signals["c3"][0].status == SignalStatus.NOT_APPLICABLE


class ShortAnswerNLIModel:
    """Returns one score too few: a broken backend must not shift scores onto the wrong passages."""

    name = "short-nli.v1"
    model_id = "test/short"
    checksum = None

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        return [ENTAILS] * (len(pairs) - 1)


def test_wrong_number_of_scores_is_unavailable():
    signals = compute_nli([LIGHT_CLAIM], EVIDENCE, ShortAnswerNLIModel())
    assert {signal.status for signal in signals["c1"]} == {SignalStatus.UNAVAILABLE}
    assert signals["c1"][0].reason == "short-nli.v1: returned 1 scores for 2 pairs"


def test_a_long_passage_is_read_through_its_best_aligned_units_not_whole():
    filler = " ".join(f"Sentence {index} is about kinematics and free fall near the ground." for index in range(60))
    long_chunk = make_chunk("p-long", filler + " " + LIGHT_PASSAGE.text)
    model = FakeNLIModel({(LIGHT_PASSAGE.text, LIGHT_CLAIM.text): CONTRADICTS}, NEUTRAL)
    [signal] = compute_nli([LIGHT_CLAIM], {"c1": [long_chunk]}, model)["c1"]
    assert len(model.calls) == 1 and len(model.calls[0]) <= 2  # units, never the whole passage
    read = [long_chunk.text[unit.char_start : unit.char_end] for unit in signal.units]
    assert LIGHT_PASSAGE.text in read  # the sentence about the claim, with exact offsets
    assert signal.refute_prob == 0.9  # refuted by that one sentence, not by the window around it


def test_lexical_backend_end_to_end_flags_seed_t1():
    [light, g_passage] = compute_nli([LIGHT_CLAIM], EVIDENCE, LexicalNLIModel())["c1"]
    assert light.contradiction_prob > 0.9 and light.model == "lexical-nli.v1"
    assert g_passage.contradiction_prob < light.contradiction_prob


@pytest.mark.parametrize("model", [LexicalNLIModel(), FakeNLIModel({}, NEUTRAL)], ids=lambda model: model.name)
def test_every_nli_backend_keeps_the_protocol_contract(model: NLIModel):
    assert isinstance(model, NLIModel)
    pairs = [(LIGHT_PASSAGE.text, LIGHT_CLAIM.text), ("", ""), (G_PASSAGE.text, G_CLAIM.text)]
    scores = model.predict(pairs)
    assert len(scores) == len(pairs) and all(isinstance(score, NLIScores) for score in scores)
    assert model.predict(pairs) == scores
    assert model.predict([]) == []


class TooLongNLIModel:
    """Refuses any batch holding a hypothesis longer than it can read, as a sequence-pair model does."""

    name = "too-long-nli.v1"
    model_id = "test/too-long"
    checksum = None

    def __init__(self) -> None:
        self.calls: list[int] = []

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        self.calls.append(len(pairs))
        if any(len(hypothesis) > 60 for _, hypothesis in pairs):
            raise ValueError("the claim leaves no tokens for evidence")
        return [ENTAILS] * len(pairs)


def test_one_claim_the_model_cannot_read_leaves_the_other_claims_computed():
    long_claim = make_claim("c9", "Near Earth's surface, g is about 9.8 m/s², " + "and so on " * 10)
    model = TooLongNLIModel()
    signals = compute_nli([G_CLAIM, long_claim], {"c2": [G_PASSAGE], "c9": [G_PASSAGE]}, model)
    assert model.calls == [2, 1, 1]  # the batch, then each claim on its own
    assert signals["c2"][0].status == SignalStatus.COMPUTED and signals["c2"][0].entailment_prob == 0.9
    assert signals["c9"][0].status == SignalStatus.UNAVAILABLE
    assert signals["c9"][0].reason == "too-long-nli.v1: the claim leaves no tokens for evidence"
