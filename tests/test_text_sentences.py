"""The regular-expression sentence splitter of text/sentences.py: each `SentenceBoundary` reading splits where the
records that depend on it expect, and `sentence_cut_offsets` gives the passage cut points ingest has always used."""

from __future__ import annotations

import re

import pytest

from veriground.corpus.passages import split_passages
from veriground.text.sentences import SentenceBoundary, sentence_cut_offsets, sentence_spans, split_sentences

TEXT = 'He said "Stop." Then 3.0 m, e.g. the rod. (A note.) 42 is it? yes! Ω is ohm.\n\nnext block. $x$ is. [1] cite.'

EXPECTED = {
    SentenceBoundary.PROSE: [
        'He said "Stop." Then 3.0 m, e.g. the rod.',
        "(A note.) 42 is it? yes!",
        "Ω is ohm.",
        "next block. $x$ is.",
        "[1] cite.",
    ],
    SentenceBoundary.PASSAGE: [
        'He said "Stop."',
        "Then 3.0 m, e.g. the rod.",
        "(A note.)",
        "42 is it? yes! Ω is ohm.\n\nnext block.",
        "$x$ is.",
        "[1] cite.",
    ],
    # PROSE's cuts, for text with no list: see test_items_are_list_lines_read_one_by_one
    SentenceBoundary.ITEMS: [
        'He said "Stop." Then 3.0 m, e.g. the rod.',
        "(A note.) 42 is it? yes!",
        "Ω is ohm.",
        "next block. $x$ is.",
        "[1] cite.",
    ],
    SentenceBoundary.CAPITALISED: [TEXT],
    SentenceBoundary.ANY_SPACE: [
        'He said "Stop." Then 3.0 m, e.g.',
        "the rod.",
        "(A note.) 42 is it?",
        "yes!",
        "Ω is ohm.",
        "next block.",
        "$x$ is.",
        "[1] cite.",
    ],
}

# The passage cut reading as corpus/passages.py wrote it before text/ owned it: passage ids depend on it.
PASSAGE_CUT_BEFORE = re.compile(r"[.!?][\"')\]]?\s+(?=[A-Z0-9$\\(\[])")


@pytest.mark.parametrize("boundary", list(SentenceBoundary))
def test_each_reading_splits_where_its_records_expect(boundary: SentenceBoundary) -> None:
    assert split_sentences(TEXT, boundary) == EXPECTED[boundary]


def test_prose_is_the_default_reading() -> None:
    assert split_sentences(TEXT) == EXPECTED[SentenceBoundary.PROSE]


def test_spans_are_stripped_slices_of_the_text() -> None:
    text = "  First one.   Second one.\n\n\n  Third  "
    spans = sentence_spans(text)
    assert [text[start:end] for start, end in spans] == ["First one.", "Second one.", "Third"]
    assert sentence_spans("   ") == []


@pytest.mark.parametrize(
    "text",
    [
        TEXT,
        'A quote ends." Then a sentence. (Bracketed.) [2] And $x$ follows. \\alpha too! 3 more? yes.',
        'Closers stack.") Not a cut. Two  spaces.   Three. a lower-case start. Ω is not a cut either.',
    ],
)
def test_passage_cut_offsets_are_the_ends_of_the_former_passage_regex(text: str) -> None:
    assert sentence_cut_offsets(text) == [match.end() for match in PASSAGE_CUT_BEFORE.finditer(text)]


def test_a_long_paragraph_is_cut_after_a_closing_quote() -> None:
    sentence = 'The teacher said "energy is conserved." '
    text = (sentence * 12).strip()
    spans = split_passages(text, "doc", min_chars=20, max_chars=200)
    assert len(spans) > 1
    for span in spans:
        assert text[span.char_start : span.char_end].endswith('conserved."')


def test_items_are_list_lines_read_one_by_one() -> None:
    listed = "Summary:\n- Speed is a scalar.\n- velocity is a vector\n* a bullet\n1. first\n2) second\nx - y is 3."
    assert split_sentences(listed, SentenceBoundary.ITEMS) == [
        "Summary:",
        "- Speed is a scalar.",
        "- velocity is a vector",
        "* a bullet",
        "1. first",
        "2) second\nx - y is 3.",  # a minus inside a line starts nothing
    ]
    assert split_sentences(listed) == [listed]  # evidence units read a list whole (see SentenceBoundary.ITEMS)


def test_a_one_letter_unit_before_a_full_stop_ends_the_sentence():
    from veriground.claims.extract import extract_claims

    text = "A 2 kg ball at 3 m/s has 9 J. A 1000 kg car at 20 m/s has 200,000 J. It weighs 686 N. J. Smith agreed."
    claims = [claim.text for claim in extract_claims(text, answer_id="a")]
    assert claims == [
        "A 2 kg ball at 3 m/s has 9 J.",
        "A 1000 kg car at 20 m/s has 200,000 J.",
        "It weighs 686 N.",
        "J. Smith agreed.",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Yields rose over the medium term.The Bank of Japan said so.",
         ["Yields rose over the medium term.", "The Bank of Japan said so."]),
        ('Analysts wrote in a note."It concerns the market," he said.',
         ['Analysts wrote in a note."', 'It concerns the market," he said.']),
        ("The index fell 0.45%.Spot gold added 0.1%.", ["The index fell 0.45%.", "Spot gold added 0.1%."]),
        # abbreviations, decimals and code stay whole
        ("The U.S.Army and Ph.D. students met.", ["The U.S.Army and Ph.D. students met."]),
        ("Call Math.Sqrt(x) or java.util.ArrayList here.", ["Call Math.Sqrt(x) or java.util.ArrayList here."]),
        ("It is 3.5 m long.", ["It is 3.5 m long."]),
    ],
)  # fmt: skip
def test_prose_ends_a_sentence_where_scraped_text_lost_the_space_after_it(text: str, expected: list[str]) -> None:
    """SummEdits' news documents glue sentences ("term.The"): read as one, a claim copying the second was scored
    against both and called Contradictory."""
    assert split_sentences(text) == expected
    assert split_sentences(text, SentenceBoundary.ITEMS) == expected
    assert split_sentences(text, SentenceBoundary.PASSAGE) == [text]  # passage ids do not move


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("It reached the highest level since Jan. 18. Japan fell.",
         ["It reached the highest level since Jan. 18.", "Japan fell."]),
        ("See Fig. 3 for it. Dr. Smith said so. Smith et al. (2019) found it.",
         ["See Fig. 3 for it.", "Dr. Smith said so.", "Smith et al. (2019) found it."]),
        ("He left in Dec. Then he came back.", ["He left in Dec.", "Then he came back."]),  # no number after it
        ("It was built by Dr.\n\nThe next part.", ["It was built by Dr.", "The next part."]),  # a blank line ends one
    ],
)  # fmt: skip
def test_prose_does_not_end_a_sentence_after_an_abbreviation_a_number_or_name_follows(text, expected) -> None:
    assert split_sentences(text) == expected
    assert split_sentences(text, SentenceBoundary.ITEMS) == expected
