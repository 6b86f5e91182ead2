"""training/targeted_pairs.py: every quantity and comparative of the corpora gives balanced pairs against one
premise, the rescaled number is written as the text writes numbers, and the pass is deterministic and capped."""

from __future__ import annotations

from collections import Counter

import pytest

from veriground.training.targeted_pairs import rescale, targeted_pairs


@pytest.mark.parametrize(
    ("sentence", "either"),
    [
        ("The bridge is 320 meters long.", ("The bridge is 32 meters long.", "The bridge is 3200 meters long.")),
        ("It falls at 9.8 m/s2 here.", ("It falls at 0.98 m/s2 here.", "It falls at 98 m/s2 here.")),
        ("The box weighs 2.5 kg in total.", ("The box weighs 0.25 kg in total.", "The box weighs 25 kg in total.")),
    ],
)  # fmt: skip
def test_a_rescaled_value_is_ten_times_off_and_never_gains_a_trailing_zero(sentence, either):
    assert rescale(sentence) in either
    assert ".0 " not in rescale(sentence)


def test_no_quantity_or_a_zero_value_is_not_rescaled():
    assert rescale("Merge sort runs in O(n log n) time.") is None
    assert rescale("It takes 0 s to start.") is None


DOCUMENT = (
    "physics/ch1.md",
    [
        [
            "The bridge across the wide river is 320 meters long and very old.",
            "A cart rolls faster down a steep slope than down a gentle one.",
            "Nothing in this sentence has a number or a comparative at all.",
        ]
    ],
)


def test_each_quantity_and_comparative_gives_as_many_entailed_as_contradicted_pairs():
    pairs = targeted_pairs([DOCUMENT], per_document=10)
    labels = Counter(pair.label for pair in pairs)
    assert labels == {"entailment": 3, "contradiction": 3}
    by_source = {pair.source: pair for pair in pairs}
    converted = by_source["targeted:unit-conversion"].hypothesis
    assert converted.startswith("The bridge across the wide river is 32,000 centimeters")
    assert "slower" in by_source["targeted:comparative-antonym"].hypothesis
    quantity = {pair.premise for pair in pairs if "quantity" in pair.source or "unit" in pair.source}
    quantity |= {pair.premise for pair in pairs if "number" in pair.source}
    assert len(quantity) == 1  # every pair of one sentence has the same premise
    assert not any("Nothing in this" in pair.hypothesis for pair in pairs)


def test_the_pass_is_deterministic_and_capped_per_document_and_kind():
    assert targeted_pairs([DOCUMENT], per_document=10) == targeted_pairs([DOCUMENT], per_document=10)
    capped = targeted_pairs([DOCUMENT], per_document=0)
    assert capped == []
