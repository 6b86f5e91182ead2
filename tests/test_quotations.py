"""Quotations are checked as words (text/quotations.py, rules misquoted and quotation-not-found): what a text puts in
quotation marks must stand in its evidence word for word, but for case, punctuation, contractions and filler words."""

from __future__ import annotations

import pytest

from veriground.backends.registry import build_nli
from veriground.config import load_config
from veriground.engine import verify_text
from veriground.evidence.gather import PackEvidence, with_quotation_sources
from veriground.evidence.pack import complete_pack, pack_chunks
from veriground.schema import ClaimDecision, EvidencePack, PackPassage
from veriground.text.quotations import find_quotation, quotations

NOTICE = (
    'Lordstown Motors said it would voluntarily recall 19 of its Endurance pickups due to a "specific electrical '
    'connection issue that could result in a loss of propulsion while driving." The company has 31 trucks on the road.'
)


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ('He said "a loss of propulsion while driving" today.', ["a loss of propulsion while driving"]),
        ("It is called “the energy of motion”.", ["the energy of motion"]),
        ("The motto ‘one two three four’ stands.", ["one two three four"]),
        ('A "black hole" is short.', []),  # fewer than four words: a term, not a quotation
        ('a tokenised " sweet child of mine " text', []),  # spaces inside the marks: no quotation
        ("It's the cat's toy, isn't it, and it's theirs.", []),  # apostrophes
        ('"Start here" and then "go on to the end" of it', ["go on to the end"]),  # not the stretch between two
        ("He said “it’s not within Facebook’s purview” then.", ["it’s not within Facebook’s purview"]),  # apostrophes
    ],
)
def test_quotations_are_what_stands_in_quotation_marks(text, quoted):
    assert [quotation.text for quotation in quotations(text)] == quoted


def test_an_ellipsis_or_an_insertion_splits_a_quotation_into_pieces_found_in_order():
    (quotation,) = quotations("He defined it as “the product of ... and [the] displacement of it”.")
    assert quotation.pieces == (("the", "product", "of"), ("and",), ("displacement", "of", "it"))
    match = find_quotation(quotation, "Work is the product of force and the displacement of it along a line.")
    assert match is not None and match.similarity == 1.0
    reordered = find_quotation(quotation, "and the displacement of it is the product of force")
    assert reordered is not None and reordered.similarity < 1.0


def test_a_near_match_is_the_sources_words_with_their_offsets():
    (quotation,) = quotations(
        'to address a "specific battery issue that could result in a loss of propulsion while driving."'
    )
    match = find_quotation(quotation, NOTICE)
    assert match is not None and not match.filler_only
    assert NOTICE[match.start : match.end] == (
        "specific electrical connection issue that could result in a loss of propulsion while driving"
    )
    assert 0.8 <= match.similarity < 1.0


@pytest.mark.parametrize(
    ("source", "filler_only"),
    [
        ("Officials said they're considered exceptional fighters by all.", True),  # contraction, "as" left out
        ("Officials said THEY ARE CONSIDERED, as exceptional fighters.", True),
        ("Officials said they aren't considered exceptional fighters.", False),  # a negation is no filler
        ("Officials said they are considered average fighters.", False),
    ],
)
def test_case_punctuation_contractions_and_filler_words_do_not_make_a_misquotation(source, filler_only):
    (quotation,) = quotations('They recruit them because "they are considered as exceptional fighters".')
    match = find_quotation(quotation, source)
    assert match is not None and match.filler_only is filler_only


def test_a_passage_past_the_top_k_that_holds_the_quotation_joins_the_evidence():
    claim = 'He would be regarded as "a marked man for life".'
    texts = [
        "He would be a marked man, he said.",
        "Collins feared he would be a marked man for life.",
        "a marked man for life",
    ]
    pack = EvidencePack(passages=tuple(PackPassage(passage_id=f"p{i}", text=t) for i, t in enumerate(texts, 1)))
    deeper = pack_chunks(complete_pack(pack))
    top = deeper[:1]
    assert [chunk.passage_id for chunk in with_quotation_sources(claim, top, deeper)] == ["p1", "p2"]
    assert with_quotation_sources("No quotation here at all.", top, deeper) == top


def _decide(text: str, passages: list[str], nli: str) -> list[ClaimDecision]:
    config = load_config(None, {"models.nli": nli}, environ={})
    pack = EvidencePack(passages=tuple(PackPassage(passage_id=f"p{i}", text=t) for i, t in enumerate(passages)))
    report = verify_text(text, config=config, source=PackEvidence(pack, config.retrieval), nli=build_nli(config.models))
    return [claim.decision for claim in report.claims]


@pytest.mark.parametrize("nli", ["veriground-nli", "lexical"])
def test_a_misquotation_is_contradictory_and_shows_the_sources_words(nli):
    # SummEdits news: the shipped model read this as weak support (0.58), the verdict Low Confidence
    (decision,) = _decide(
        'Lordstown will voluntarily recall 19 Endurance pickups to address a "specific battery issue that could '
        'result in a loss of propulsion while driving."',
        [NOTICE],
        nli,
    )
    assert (decision.status, decision.rule) == ("Contradictory", "misquoted")
    assert decision.primary_evidence == "p0"
    assert '"specific electrical connection issue that could result in a loss of propulsion while driving"' in (
        decision.explanation
    )


@pytest.mark.parametrize("nli", ["veriground-nli", "lexical"])
def test_a_quotation_no_passage_holds_is_unsupported_and_a_faithful_one_is_not_rejected_for_it(nli):
    (invented,) = _decide('The company called it "a minor glitch affecting only a handful of owners".', [NOTICE], nli)
    assert (invented.status, invented.rule) == ("Unsupported", "quotation-not-found")
    (faithful,) = _decide(
        'Lordstown recalled 19 Endurance pickups over a "specific electrical connection issue that could result in a '
        'loss of propulsion while driving".',
        [NOTICE],
        nli,
    )
    assert faithful.rule not in ("misquoted", "quotation-not-found")
