"""A passage that opens with a pronoun is read by the NLI with the claim's named subject in its place
(text/pronoun_referent.py, verdicts/support.py), only where the passage names nobody before it; the report keeps the
passage as written."""

from __future__ import annotations

import pytest

from veriground.backends.fakes import FakeNLIModel
from veriground.schema import Claim, EvidenceChunk, NLIScores
from veriground.text.pronoun_referent import name_the_pronoun
from veriground.verdicts.aggregator import raw_aggregator
from veriground.verdicts.support import judge_evidence

STARRED = "She also starred in the films The Cat in the Hat, Old Dogs, and Broken Bridges."


@pytest.mark.parametrize(
    ("unit", "claim", "read"),
    [
        (STARRED, "Kelly Preston starred in the film Broken Bridges.", "Kelly Preston also starred in the films"),
        ("His nickname is Lamp.", "James Jones 's nickname is not Champ.", "James Jones's nickname is Lamp."),
        ("It was written by Siva Reddy.", "Goosebumps ( film ) is penned by Siva Reddy.", "Goosebumps ( film ) was"),
        ("They are identified by the red color.", "The Bloods wear red.", "The Bloods are identified"),
    ],
)
def test_the_opening_pronoun_is_read_as_the_claims_name(unit, claim, read):
    assert (name_the_pronoun(unit, claim, at_passage_start=True) or "").startswith(read)


@pytest.mark.parametrize(
    ("unit", "claim", "at_start"),
    [
        (STARRED, "Kelly Preston starred in the film Broken Bridges.", False),  # the passage may name her before
        ("She starred with Kelly Preston in Old Dogs.", "Kelly Preston starred in Old Dogs.", True),  # named: no need
        ("It divides the array into halves.", "merge sort divides the array into halves.", True),  # no name
        ("They are identified by the red color.", "Several gangs wear red.", True),  # a quantifier, not a name
        ("They are identified by the red color.", "In 2010 the gangs wore red.", True),
        ("The band is identified by the red color.", "The Bloods wear red.", True),  # no pronoun
    ],
)
def test_no_reading_without_a_lone_pronoun_and_a_name_the_unit_lacks(unit, claim, at_start):
    assert name_the_pronoun(unit, claim, at_passage_start=at_start) is None


def _chunk(text: str) -> EvidenceChunk:
    return EvidenceChunk(
        doc_id="d1", sent_id=0, passage_id="p1", text=text, char_start=0, char_end=len(text), rank=1,
        source="wiki", version="d1@v1",
    )  # fmt: skip


def test_the_model_reads_the_name_and_the_signal_keeps_the_passage_as_written():
    claim_text = "Kelly Preston starred in the film Broken Bridges."
    claim = Claim(
        claim_id="c1", answer_id="a1", text=claim_text, answer_char_span=(0, 49), extraction_method="sentence"
    )
    named = name_the_pronoun(STARRED, claim_text, at_passage_start=True)
    entails = NLIScores(entail=0.9, neutral=0.05, contradict=0.05)
    model = FakeNLIModel({(named, claim_text): entails}, NLIScores(entail=0.1, neutral=0.3, contradict=0.6))
    (signal,) = judge_evidence([claim], {"c1": [_chunk(STARRED)]}, model, raw_aggregator(model.name))["c1"]
    assert model.calls[0][0] == (named, claim_text)
    assert signal.entailment_prob == pytest.approx(0.9)
    (unit,) = signal.units[:1]
    assert STARRED[unit.char_start : unit.char_end] == STARRED
