"""Citation markers: each form parsed with the span of its bracket; links and indexes are not citations."""

from __future__ import annotations

import pytest

from veriground.claims import parse_citations


def test_each_form_gives_its_ids_and_bracket_span() -> None:
    passage = "domain-corpora/openstax-physics/10_work-energy#3f52e5720dd5"
    text = f"a [1] b [1, 3][2] c [CITATION: notes/ch2#sec-3.v1_b] d [{passage}-2]"
    found = parse_citations(text)
    assert [cited_id for cited_id, _, _ in found] == ["1", "1", "3", "2", "notes/ch2#sec-3.v1_b", f"{passage}-2"]
    assert [text[start:end] for _, start, end in found] == [
        "[1]",
        "[1, 3]",
        "[1, 3]",
        "[2]",
        "[CITATION: notes/ch2#sec-3.v1_b]",
        f"[{passage}-2]",
    ]


def test_a_numeric_range_expands() -> None:
    assert [cited_id for cited_id, _, _ in parse_citations("as shown [2-4]")] == ["2", "3", "4"]


@pytest.mark.parametrize(
    "text",
    [
        "[the guide](https://example.org)",  # a Markdown link
        "[1](https://example.org)",  # a link whose text is a number
        "the element A[1] of the array",  # an index
        "a [note] in brackets",  # neither a number nor an id
        "an interval [0.5, 1]",
    ],
)
def test_brackets_that_are_not_citations(text: str) -> None:
    assert parse_citations(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "the vector [1, 1, 2] has norm √6",  # a number listed twice
        "the vector [1, 2] has norm √5",  # a math object, and the sentence goes on
        "The set [1, 2, 3] has three elements.",
        "the matrix [[1, 2], [3, 4]] is invertible",  # nested brackets
        "x = [1, 2]",  # a value after an operator
        "the unit interval [0, 1]",  # citation numbers start at 1
        "Its entries [3, 5] are odd.",
    ],
)
def test_number_lists_in_prose_are_not_citations(text: str) -> None:
    assert parse_citations(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Energy is conserved [1].", ["1"]),
        ("Energy is conserved [1, 2].", ["1", "2"]),
        ("Momentum is a vector [1, 2].", ["1", "2"]),  # a math word, but the citation closes the sentence
        ("Momentum is a vector [2] in three dimensions.", ["2"]),  # one number after a math word: a citation
        ("As shown in [1, 3], energy is conserved.", ["1", "3"]),
        ("Energy is conserved [CITATION: notes/ch2#sec-3].", ["notes/ch2#sec-3"]),
        ("Energy is conserved [doc/x#0123456789ab].", ["doc/x#0123456789ab"]),
        ("Energy is conserved (see [1]).", ["1"]),
        ("Energy is conserved ([1, 2]).", ["1", "2"]),
    ],
)
def test_citation_forms_still_parse_next_to_number_lists(text: str, expected: list[str]) -> None:
    assert [cited_id for cited_id, _, _ in parse_citations(text)] == expected


def test_a_citation_after_inline_html_or_emphasis_still_parses() -> None:
    text = "The moon is made of <b>rock</b> [9]. **Energy** [1, 2] is conserved."
    assert [cited_id for cited_id, _, _ in parse_citations(text)] == ["9", "1", "2"]
