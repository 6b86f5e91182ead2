"""A hypothesis's quantities restated in its premise's units (text/quantity_spans.restate_in_units_of), which every
transformer NLI backend reads instead of the hypothesis as written: a model cannot convert units."""

import pytest

from veriground.text.quantity_spans import restate_in_units_of

RESTATED = [
    # premise, hypothesis, what the model reads
    (
        "Objects near the surface fall with an acceleration of 9.8 m/s2.",
        "Objects near the surface fall with an acceleration of 980 cm/s2.",
        "Objects near the surface fall with an acceleration of 9.8 m/s2.",
    ),
    ("The package weighs 2.5 kg.", "The package weighs 2500 g.", "The package weighs 2.5 kg."),
    ("It is 9.8 m/s² fast.", "It is 980 cm/s2 fast.", "It is 9.8 m/s² fast."),  # as the premise writes it
    (
        "Light moves at 3.00×10⁸ m/s.",
        "Light moves at 300,000 km/s in a vacuum.",
        "Light moves at 3.00×10⁸ m/s in a vacuum.",
    ),
]
KEPT = [
    ("The package weighs 2.5 kg.", "The package weighs 2.5 g."),  # another value: the model and numeric check see it
    ("The package weighs 2.5 kg.", "The package weighs 2.5 kg."),  # same units: nothing to restate
    ("The bridge is long.", "The bridge is 320 m long."),  # nothing in the premise to restate it in
    ("Merge sort runs in O(n log n) time.", "Merge sort is stable."),
]


@pytest.mark.parametrize(("premise", "hypothesis", "read"), RESTATED)
def test_an_equal_quantity_in_other_units_is_written_as_the_premise_writes_it(premise, hypothesis, read):
    assert restate_in_units_of(premise, hypothesis) == read


@pytest.mark.parametrize(("premise", "hypothesis"), KEPT)
def test_other_values_and_same_units_are_left_as_written(premise, hypothesis):
    assert restate_in_units_of(premise, hypothesis) == hypothesis
