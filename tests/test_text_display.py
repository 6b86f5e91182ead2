"""A value printed beside its threshold never reads as equal to a threshold it differs from."""

import pytest

from veriground.text.display import versus


@pytest.mark.parametrize(
    ("value", "threshold", "expected"),
    [
        (0.4981, 0.5, ("0.498", "0.50")),
        (0.42, 0.5, ("0.42", "0.50")),
        (0.5, 0.5, ("0.50", "0.50")),
        (0.49999, 0.5, ("0.5000", "0.50")),  # four decimals at most
        (0.751, 0.75, ("0.751", "0.75")),
    ],
)
def test_versus(value, threshold, expected):
    assert versus(value, threshold) == expected
