"""training/passage_swaps.py: a sentence with one word put for another word of its own passage (not entailed),
beside its unswapped twin against the same premise; clauses, word forms and the pass's determinism and cap."""

from __future__ import annotations

from collections import Counter

from veriground.training.passage_swaps import passage_swaps, swap_in_passage

CHARGES = "Like charges repel each other, whereas unlike charges attract."


def test_a_clause_takes_the_verb_of_the_other_clause():
    assert swap_in_passage(CHARGES, CHARGES) == ("Like charges repel each other.", "Like charges attract each other.")


def test_every_word_of_a_swapped_sentence_is_in_its_premise_and_in_a_place_of_its_kind():
    premise = "The force on the cart pulls it forward. The mass of the cart stays the same."
    kept, swapped = swap_in_passage("The force on the cart pulls it forward.", premise)
    assert kept == "The force on the cart pulls it forward."
    assert swapped != kept and set(swapped.rstrip(".").split()) <= set(premise.replace(".", "").split())
    assert swapped.split()[:2] != ["The", "pulls"]  # a noun after "the" is swapped for a noun after "the"


def test_no_partner_of_the_same_form_means_no_swap():
    assert swap_in_passage("Velocity changes quickly.", "Velocity changes quickly.") is None


DOCUMENT = ("physics/ch2.md", [[CHARGES, "The charged rod pulls the paper while the paper holds the dust."]])


def test_each_target_gives_one_entailed_and_one_not_entailed_pair_and_the_pass_is_deterministic():
    pairs = passage_swaps([DOCUMENT], per_document=5)
    assert Counter(pair.label for pair in pairs) == {"entailment": 2, "not_entailment": 2}
    for kept, swapped in zip(pairs[::2], pairs[1::2], strict=True):
        assert kept.premise == swapped.premise and kept.hypothesis != swapped.hypothesis
    assert passage_swaps([DOCUMENT], per_document=5) == pairs
    assert len(passage_swaps([DOCUMENT], per_document=1)) == 2
