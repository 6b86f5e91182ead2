"""Evidence units: the sentences and short windows of a passage that carry the claim, with exact offsets."""

from __future__ import annotations

from veriground.evidence.units import MAX_UNIT_CHARS, claim_content, select_units
from veriground.schema import EvidenceChunk

PASSAGE = (
    "Gravity pulls objects toward the ground. "
    "Near Earth's surface, all objects fall with an acceleration of about 9.80 m/s2. "
    "Air resistance is ignored here. "
    "The acceleration is called g."
)


def chunk(text: str) -> EvidenceChunk:
    return EvidenceChunk(
        doc_id="d", sent_id=0, passage_id="d#000000000001", text=text, char_start=0, char_end=len(text),
        rank=1, source="s", version="d@v1",
    )  # fmt: skip


def test_the_sentence_that_states_the_claim_is_the_best_unit_and_its_offsets_are_exact():
    claim = "Near Earth's surface, objects fall with an acceleration of about 9.80 m/s2."
    [best, *_] = select_units(claim_content(claim), chunk(PASSAGE))
    assert best.text == "Near Earth's surface, all objects fall with an acceleration of about 9.80 m/s2."
    assert PASSAGE[best.char_start : best.char_end] == best.text
    assert best.sentences == 1
    assert best.alignment == 1.0


def test_a_window_wins_only_when_it_adds_content_the_sentence_lacks():
    claim = "Objects fall with an acceleration called g."
    [best, *_] = select_units(claim_content(claim), chunk(PASSAGE))
    assert best.sentences > 1  # "fall … acceleration" and "called g" sit in two sentences
    assert "called g" in best.text and "fall with an acceleration" in best.text


def test_an_off_topic_claim_still_gets_one_unit_with_zero_alignment():
    units = select_units(claim_content("The Treaty of Westphalia was signed in 1648."), chunk(PASSAGE))
    assert len(units) == 1
    assert units[0].alignment == 0.0


def test_a_sentence_longer_than_a_unit_is_sliced_within_the_limit():
    long_sentence = "word " * 400 + "acceleration appears at the end."
    units = select_units(claim_content("acceleration appears at the end"), chunk(long_sentence))
    assert all(unit.char_end - unit.char_start <= MAX_UNIT_CHARS for unit in units)
    assert "acceleration appears at the end" in units[0].text


def test_a_unit_that_is_a_list_counts_its_items_as_sentences_so_it_never_refutes_alone():
    notation = (
        "- $K_n$: The complete graph on $n$ vertices.\n"
        "- $P_n$: The path on $n+1$ vertices (so $n$ edges), just one long path."
    )
    (unit,) = select_units(claim_content("The complement of a complete graph has no edges."), chunk(notation), 1)
    assert unit.sentences == 2  # one PROSE sentence, two list items
    prose = chunk("A complete graph has all possible edges.")
    (single,) = select_units(claim_content("The complement of a complete graph has no edges."), prose, 1)
    assert single.sentences == 1


def test_a_unit_that_is_a_table_counts_its_rows_so_it_never_refutes_alone():
    table = (
        "SSet implementations\n| find(x) | add(x)/remove(x) |\n"
        "SkiplistSSet | $O(\\log n)$ | $O(\\log n)$ |\nBinaryHeap | $O(n)$ | $O(\\log n)$ |"
    )
    claim = "A BinaryHeap supports remove() in O(log n) time."
    (unit,) = select_units(claim_content(claim), chunk(table), 1)
    assert unit.sentences == 3  # one PROSE sentence, three table rows


def test_a_question_lends_its_words_to_alignment_but_not_its_numbers():
    quiz = "Could a tree with 7 vertices have only 5 edges? A tree with $v$ vertices has $v-1$ edges."
    (unit,) = select_units(claim_content("A tree with 7 vertices has 5 edges."), chunk(quiz), 1)
    assert unit.alignment < 1.0  # the question's 7 and 5 are no hits; its words are


def test_each_list_item_is_a_unit_of_its_own_so_the_item_that_states_the_fact_can_refute():
    schedule = "You work 5 days a week.\n- The maximum number of hours you can work in a single day is 12."
    claim = "The maximum number of hours you can work in a single day is 10."
    (unit,) = select_units(claim_content(claim), chunk(schedule), 1)
    assert unit.text == "- The maximum number of hours you can work in a single day is 12."
    assert unit.sentences == 1


CREDIT = (
    "* You can have up to 24 credit hours accrued, at any given time.\n\n"
    "* The hours will rollover from one pay period to the next, and they never expire.\n\n"
    "* Credit hours cannot be converted to cash, unless you leave GSA (then they will be paid out)."
)


def test_the_sentence_that_says_most_of_the_claim_is_read_beside_the_window_that_wins():
    units = select_units(claim_content("Credit hours can be converted to cash at any time."), chunk(CREDIT), 1)
    assert [unit.sentences for unit in units] == [3, 1]  # the window adds "time"; the item says the rest
    assert units[1].text.startswith("* Credit hours cannot be converted to cash")


def test_a_best_single_sentence_is_read_alone():
    units = select_units(claim_content("Credit hours cannot be converted to cash."), chunk(CREDIT), 1)
    assert [unit.sentences for unit in units] == [1]
