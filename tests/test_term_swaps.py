"""A claim that puts another term of the same kind where the evidence sentence about it has one (text/term_swaps.py,
rule swapped-term): another weekday, month, colour, ordinal, season or compass point, or another capitalised name in
a near copy. Words of one family, digit ordinals, "second" of time, converse family roles and headlines are not."""

from __future__ import annotations

import pytest

from veriground.backends.registry import build_nli
from veriground.config import load_config
from veriground.engine import verify_text
from veriground.evidence.gather import PackEvidence
from veriground.schema import EvidencePack, PackPassage
from veriground.text.term_swaps import swapped_term

SHOOTING = "Police said the gunman was caught and killed on Thursday. Nobody else was hurt."
PAINT = "Activists dumped yellow and blue paint outside the Russian embassy in London."


@pytest.mark.parametrize(
    ("claim", "evidence", "swap"),
    [
        ("The gunman was killed on Friday.", SHOOTING, ("Friday", "Thursday", "weekday")),
        ("Protesters dumped white paint outside the embassy.", PAINT, ("white", "yellow", "colour")),
        ("The bill passed in September 2019.", "The bill passed in August 2019 after a long debate.", None),
        ("He finished fifth in the final race.", "He finished second in the final race of the season.", None),
        ("The Star Trek film came out in 1977.", "The Star Wars film came out in 1977.", ("Trek", "Wars", "name")),
        ("The summit was held in Melbourne last year.", "The summit was held in Sydney last year.", None),
    ],
)
def test_a_term_of_the_same_kind_put_for_the_sentences_is_found(claim, evidence, swap):
    found = swapped_term(claim, [evidence])
    assert found is not None
    if swap:
        assert (found.claim_words, found.source_words, found.kind) == swap
    assert evidence[found.span[0] : found.span[1]].rstrip().endswith(".")


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("The gunman was killed on Thursday.", SHOOTING),  # the same day
        ("Winds blow from the northern hills.", "Winds blow from the north hills."),  # one family
        ("He was born in the fifth district.", "He was born in the 5th district."),  # a digit ordinal
        ("The car moves at 3 meters per second.", "The first car moves at 3 meters per second."),  # unused ordinal
        ("The car moves 3 meters in one second.", "The car moves 3 meters in the first lap."),  # "second" of time
        ("John is the son of Mary.", "Mary is the mother of John."),  # converse roles: no kind here
        ("President Biden said the deal was good.", "Joe Biden said the deal was good."),  # title before a surname
        ("The EU said the deal was good for trade.", "The European Union said the deal was good for trade."),
        ("A British team won on Friday.", "Officials met on Thursday to discuss the budget."),  # another matter
        ("Rain is likely in May.", "Farmers may plant corn in June."),  # "may": a month only with its capital
        ("Trump Says Deal Was Good For America.", "Biden Says Deal Was Good For America."),  # a headline
    ],
)
def test_no_swap_where_the_term_is_the_same_or_not_of_one_kind(claim, evidence):
    assert swapped_term(claim, [evidence]) is None


@pytest.mark.parametrize("nli", ["veriground-nli", "lexical"])
def test_the_claim_is_contradictory_and_the_report_names_both_terms_and_the_sentence(nli):
    config = load_config(None, {"models.nli": nli}, environ={})
    pack = EvidencePack(passages=(PackPassage(passage_id="p1", text=SHOOTING),))
    source = PackEvidence(pack, config.retrieval)
    report = verify_text("The gunman was killed on Friday.", config=config, source=source, nli=build_nli(config.models))
    (claim,) = report.claims
    assert (claim.decision.rule, str(claim.decision.status)) == ("swapped-term", "Contradictory")
    inputs = claim.inputs
    assert inputs.swapped_term == ("Friday", "Thursday") and inputs.swapped_term_kind == "weekday"
    start, end = inputs.swapped_term_span
    assert SHOOTING[start:end].startswith("Police said")
    assert "Friday" in claim.decision.rationale and "Thursday" in claim.decision.explanation
    assert claim.decision.primary_evidence == "p1"
