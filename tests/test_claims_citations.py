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
