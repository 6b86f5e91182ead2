"""Claim extraction end to end: spans, Markdown, citations, ids, determinism and input limits (their cost:
test_claims_cost.py)."""

from __future__ import annotations

import pytest

from veriground.claims import EXTRACTION_METHOD, extract_claims, parse_citations
from veriground.errors import ConfigError, InputTextError


def without_citations(text: str) -> str:
    """`text` with citation markers (and the space before each) removed, whitespace collapsed."""
    for _, start, end in reversed(parse_citations(text)):
        while start > 0 and text[start - 1].isspace():
            start -= 1
        text = text[:start] + text[end:]
    return " ".join(text.split())


def test_sentence_claims_are_spans_of_the_input_in_document_order() -> None:
    text = (
        "Velocity is the rate of change of position.  It is measured in m/s [1].\n\n"
        "A set is a collection of distinct objects.\nIts members are called elements."
    )
    claims = extract_claims(text, answer_id="a1")
    assert [claim.claim_id for claim in claims] == ["c_0001", "c_0002", "c_0003", "c_0004"]
    assert [claim.text for claim in claims] == [
        "Velocity is the rate of change of position.",
        "It is measured in m/s.",
        "A set is a collection of distinct objects.",
        "Its members are called elements.",
    ]
    for claim in claims:
        start, end = claim.answer_char_span
        assert without_citations(text[start:end]) == claim.text
        assert claim.answer_id == "a1"
        assert claim.extraction_method == EXTRACTION_METHOD
        assert claim.parent_claim_id is None and claim.atomicity_rule is None


def test_citation_markers_at_the_end_are_outside_the_span() -> None:
    text = "Water boils at 100 °C at sea level. [1] Ice melts at 0 °C."
    first, second = extract_claims(text, answer_id="a")
    assert text[slice(*first.answer_char_span)] == "Water boils at 100 °C at sea level."
    assert first.cited_ids == ("1",)  # right after the final period: the sentence before it
    assert second.cited_ids == ()


def test_list_and_quote_markers_are_outside_the_span() -> None:
    text = "- Energy is conserved in a closed system.\n1. Momentum is conserved too.\n> Charge is conserved as well."
    claims = extract_claims(text, answer_id="a")
    assert [text[slice(*claim.answer_char_span)] for claim in claims] == [
        "Energy is conserved in a closed system.",
        "Momentum is conserved too.",
        "Charge is conserved as well.",
    ]


def test_each_list_item_is_a_claim_of_its_own_even_without_a_period() -> None:
    text = "* Heat flows from hot to cold\n* Entropy never decreases in an isolated system"
    assert [claim.text for claim in extract_claims(text, answer_id="a")] == [
        "Heat flows from hot to cold",
        "Entropy never decreases in an isolated system",
    ]


def test_a_sentence_wrapped_over_quoted_lines_is_one_claim() -> None:
    text = "> The work done on an object\n> equals its change in kinetic energy [2]."
    (claim,) = extract_claims(text, answer_id="a")
    assert claim.text == "The work done on an object equals its change in kinetic energy."
    assert claim.cited_ids == ("2",)


def test_emphasis_delimiters_are_dropped_from_the_claim_text() -> None:
    (claim,) = extract_claims("**Velocity** is the rate of change of *position*.", answer_id="a")
    assert claim.text == "Velocity is the rate of change of position."


@pytest.mark.parametrize(
    "markup",
    [
        "# Energy is a heading here",
        "## Energy is a heading here ##",
        "Energy is a heading here\n=========================",
        "```python\nEnergy is a heading here = 1\n```",
        "~~~\nEnergy is a heading here.\n~~~",
        "| Energy is a heading here | 1 |\n|---|---|",
        "[1]: https://example.org/energy-is-a-heading-here",
        "The quantities are:",
    ],
)
def test_headings_code_tables_and_lead_ins_make_no_claims(markup: str) -> None:
    text = f"{markup}\n\n---\n\nPower is the rate of doing work."
    claims = extract_claims(text, answer_id="a")
    assert [claim.text for claim in claims] == ["Power is the rate of doing work."]
    assert claims[0].claim_id == "c_0001"


def test_text_with_only_markup_gives_no_claims() -> None:
    assert extract_claims("# Title\n\n```\nx = 1\n```\n\n- \n", answer_id="a") == []


def test_windows_newlines_keep_spans_exact() -> None:
    text = "Force is mass times acceleration.\r\nIt is measured in newtons.\r\n\r\n- Work is force times distance."
    for claim in extract_claims(text, answer_id="a"):
        assert text[slice(*claim.answer_char_span)] == claim.text


def test_citations_of_each_format_attach_to_their_sentence() -> None:
    passage = "domain-corpora/openstax-physics/10_work-energy#3f52e5720dd5-2"
    text = (
        "Work is force times distance [1]. Power is work per unit time [1, 3][2]. "
        "Energy is conserved [CITATION: physics/ch7#energy.v2]. "
        f"Momentum is conserved in collisions [{passage}]. Heat is energy in transit."
    )
    assert [claim.cited_ids for claim in extract_claims(text, answer_id="a")] == [
        ("1",),
        ("1", "3", "2"),
        ("physics/ch7#energy.v2",),
        (passage,),
        (),
    ]


@pytest.mark.parametrize(
    ("text", "claims"),
    [
        # AttributionBench answers end with a model's end-of-sequence token: "</s>" was a claim of its own
        ("The larger the photo, the larger the file.</s>", ["The larger the photo, the larger the file."]),
        ("<s> Water boils. [SEP] Ice melts.<|endoftext|>", ["Water boils.", "Ice melts."]),
        ("The <s> tag marks struck-out text.", ["The <s> tag marks struck-out text."]),  # prose about HTML
    ],
)
def test_a_models_special_tokens_are_no_prose(text: str, claims: list[str]) -> None:
    found = extract_claims(text, answer_id="a")
    assert [claim.text for claim in found] == claims
    assert all(text[c.answer_char_span[0] : c.answer_char_span[1]] == c.text for c in found)  # offsets hold


def test_markdown_links_are_not_citations() -> None:
    text = "See [the guide](https://example.org/guide?page=2) for the derivation [4]."
    (claim,) = extract_claims(text, answer_id="a")
    assert claim.cited_ids == ("4",)
    assert claim.text == "See [the guide](https://example.org/guide?page=2) for the derivation."


def test_citations_inside_code_blocks_are_ignored() -> None:
    text = "```\nitems[1] = x [2]\n```\n\nArrays are indexed from zero [3]."
    (claim,) = extract_claims(text, answer_id="a")
    assert claim.cited_ids == ("3",)


def test_a_split_sentence_shares_citations_that_close_it() -> None:
    text = "Merge sort has O(n log n) complexity and is stable [1][2]."
    claims = extract_claims(text, answer_id="a")
    assert [claim.cited_ids for claim in claims] == [("1", "2"), ("1", "2")]


def test_a_split_sentence_gives_inline_citations_to_their_own_piece() -> None:
    text = "Energy is conserved in closed systems [1]; momentum is conserved in collisions [2]."
    claims = extract_claims(text, answer_id="a")
    assert [(claim.text, claim.cited_ids) for claim in claims] == [
        ("Energy is conserved in closed systems.", ("1",)),
        ("momentum is conserved in collisions.", ("2",)),
    ]


def test_split_pieces_get_child_ids_and_the_parent_is_not_returned() -> None:
    text = "Heat flows from hot to cold. Merge sort has O(n log n) complexity and is stable. Sound is a wave."
    claims = extract_claims(text, answer_id="a")
    assert [(claim.claim_id, claim.parent_claim_id) for claim in claims] == [
        ("c_0001", None),
        ("c_0002.1", "c_0002"),
        ("c_0002.2", "c_0002"),
        ("c_0003", None),
    ]


def test_the_same_input_gives_the_same_claims() -> None:
    text = (
        "# Notes\n\nMerge sort has O(n log n) complexity and is stable [1]. Energy is conserved; "
        "momentum is conserved too [2].\n\n- Kinetic energy is $KE = mv^2/2$ and momentum is $p = mv$."
    )
    assert extract_claims(text, answer_id="a") == extract_claims(text, answer_id="a")


@pytest.mark.parametrize("text", ["", "   \n\t  \n"])
def test_empty_text_is_rejected(text: str) -> None:
    with pytest.raises(InputTextError, match="the text to verify is empty"):
        extract_claims(text, answer_id="a")


def test_more_claims_than_max_claims_is_rejected() -> None:
    text = "Heat flows from hot to cold. " * 4
    with pytest.raises(InputTextError, match=r"more than verification\.max_claims=3 claims \(about 4 sentences\)"):
        extract_claims(text, answer_id="a", max_claims=3)
    assert len(extract_claims(text, answer_id="a", max_claims=4)) == 4


def test_max_claims_below_one_is_rejected() -> None:
    with pytest.raises(ConfigError, match="verification.max_claims must be at least 1, got 0"):
        extract_claims("Heat flows from hot to cold.", answer_id="a", max_claims=0)


def test_number_lists_in_prose_stay_in_the_claim_text() -> None:
    text = "The vector [1, 1, 2] has norm equal to the square root of 6 [1]. The set [1, 2, 3] has three elements."
    claims = extract_claims(text, answer_id="a")
    assert [(claim.text, claim.cited_ids) for claim in claims] == [
        ("The vector [1, 1, 2] has norm equal to the square root of 6.", ("1",)),
        ("The set [1, 2, 3] has three elements.", ()),
    ]


def test_initials_a_tokeniser_split_keep_their_sentence_whole() -> None:
    """FEVER writes "A.J . Styles": pysbd ended a sentence there and the claim was "A.J ." alone."""
    for text in ("A.J . Styles won a WWE Championship .", "West Ham United F.C . has long worn claret ."):
        assert [claim.text for claim in extract_claims(text, answer_id="a")] == [text]
