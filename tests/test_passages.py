from __future__ import annotations

from veriground.corpus.normalize import normalize_text
from veriground.corpus.passages import make_doc_id, split_passages

PARAGRAPH = "Kinetic energy is the energy of motion. It equals one half of the mass times the speed squared."


def spans_of(text: str, *, min_chars: int = 20, max_chars: int = 400):
    return split_passages(text, "doc", min_chars=min_chars, max_chars=max_chars)


def test_doc_id_is_readable_path_without_extension():
    assert make_doc_id("physics/work-energy.md") == "physics/work-energy"


def test_doc_id_of_unsafe_key_carries_hash_so_keys_never_collide():
    first, second = make_doc_id("notes/week 1.md"), make_doc_id("notes/week-1.md")
    assert first != second
    assert first.startswith("notes/week-1-")
    assert " " not in first


def test_doc_id_of_very_long_key_is_bounded():
    assert len(make_doc_id("a" * 500 + ".txt")) <= 120


def test_each_passage_is_an_exact_slice_of_the_document_text():
    text = normalize_text(f"# Energy\n\n{PARAGRAPH}\n\n\n{PARAGRAPH} Again.\n")
    for span in spans_of(text):
        assert text[span.char_start : span.char_end].strip() == text[span.char_start : span.char_end]
        assert span.passage_id.startswith("doc#")


def test_short_heading_joins_the_paragraph_after_it():
    text = normalize_text(f"# Energy\n\n{PARAGRAPH}")
    spans = spans_of(text)
    assert len(spans) == 1
    assert text[spans[0].char_start : spans[0].char_end].startswith("# Energy\n\n")


def test_long_paragraph_is_cut_at_sentence_ends_within_the_limit():
    text = " ".join([PARAGRAPH] * 20)
    spans = spans_of(text, max_chars=300)
    assert len(spans) > 1
    for span in spans:
        piece = text[span.char_start : span.char_end]
        assert len(piece) <= 300
        assert piece.endswith(".")


def test_unchanged_paragraph_keeps_its_id_when_another_changes():
    before = spans_of(f"{PARAGRAPH}\n\nVelocity is the rate of change of position.\n\n{PARAGRAPH} Third.")
    after = spans_of(f"{PARAGRAPH}\n\nVelocity is the rate of change of displacement.\n\n{PARAGRAPH} Third.")
    assert before[0].passage_id == after[0].passage_id
    assert before[2].passage_id == after[2].passage_id
    assert before[1].passage_id != after[1].passage_id


def test_repeated_paragraph_gets_distinct_ids():
    spans = spans_of(f"{PARAGRAPH}\n\n{PARAGRAPH}")
    assert len({span.passage_id for span in spans}) == 2
    assert spans[1].passage_id == spans[0].passage_id + "-2"


def test_normalize_text_collapses_blank_lines_and_windows_newlines():
    assert normalize_text("a \r\n\r\n\r\n\tb  \n") == "a\n\n b"
