"""A contradiction the NLI also reads against the claim negated is no refutation (text/negated_claim.py,
verdicts/aggregator.py NEGATION_READS_ALIKE, verdicts/support.py): the shipped model read "It was named after General
Leclerc" against "It was named in honour of General Leclerc" as 0.79 contradiction, and its negation as 0.93."""

from __future__ import annotations

import pytest

from veriground.backends.fakes import FakeNLIModel
from veriground.schema import Claim, EvidenceChunk, NLIScores
from veriground.text.negated_claim import negated
from veriground.verdicts.aggregator import NEGATION_READS_ALIKE, raw_aggregator
from veriground.verdicts.support import judge_evidence


@pytest.mark.parametrize(
    ("claim", "negation"),
    [
        ("Exercise is good for heart health.", "Exercise is not good for heart health."),
        ("Halsey did not sign her first contract in 2018.", "Halsey did sign her first contract in 2018."),
        ("Tom DeLonge did n't finish middle school .", "Tom DeLonge did finish middle school ."),
        ("A.J. Styles never won a WWE Championship.", "A.J. Styles won a WWE Championship."),
        ("Light cannot travel in a vacuum.", "Light can travel in a vacuum."),
        ("Birds can fly.", "Birds cannot fly."),
        (
            "The bank, which is its largest investor, has ruled out aid.",
            "The bank, which is its largest investor, has not ruled out aid.",
        ),
        ("The bank, which is its largest investor, ruled out aid.", None),  # no auxiliary in the main clause
        ("The authorities have found no proof.", None),  # a negation of another kind
    ],
)
def test_the_main_clause_is_negated_where_that_is_plain(claim, negation):
    assert negated(claim) == negation


CLAIM = "It was named after General Philippe Leclerc."
UNIT = "It was named in honour of General Philippe Leclerc, who led the drive towards Paris."
CONTRADICTS = NLIScores(entail=0.19, neutral=0.02, contradict=0.79)


def _signal(table):
    claim = Claim(claim_id="c1", answer_id="a1", text=CLAIM, answer_char_span=(0, len(CLAIM)), extraction_method="s")
    chunk = EvidenceChunk(
        doc_id="d1", sent_id=0, passage_id="p1", text=UNIT, char_start=0, char_end=len(UNIT), rank=1, source="wiki",
        version="d1@v1",
    )  # fmt: skip
    model = FakeNLIModel(table, NLIScores(entail=0.1, neutral=0.8, contradict=0.1))
    (signal,) = judge_evidence([claim], {"c1": [chunk]}, model, raw_aggregator(model.name))["c1"]
    return signal, model


def test_a_contradiction_read_against_the_negation_too_refutes_nothing():
    negation = NLIScores(entail=0.03, neutral=0.04, contradict=0.93)
    signal, model = _signal({(UNIT, CLAIM): CONTRADICTS, (UNIT, negated(CLAIM)): negation})
    assert model.calls[1] == [(UNIT, "It was not named after General Philippe Leclerc.")]
    (unit,) = signal.units
    assert unit.refute_prob == 0.0 and unit.features[NEGATION_READS_ALIKE] == 1.0
    assert unit.support_prob == pytest.approx(0.19)  # support is read as before


def test_a_contradiction_the_negation_escapes_still_refutes():
    entailed = NLIScores(entail=0.9, neutral=0.05, contradict=0.05)
    signal, model = _signal({(UNIT, CLAIM): CONTRADICTS, (UNIT, negated(CLAIM)): entailed})
    (unit,) = signal.units
    assert len(model.calls) == 2 and unit.refute_prob == pytest.approx(0.79)
    assert NEGATION_READS_ALIKE not in unit.features


def test_no_second_call_without_a_refuting_unit():
    _, model = _signal({(UNIT, CLAIM): NLIScores(entail=0.9, neutral=0.05, contradict=0.05)})
    assert len(model.calls) == 1
