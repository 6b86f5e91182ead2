"""text/changes.py: the rise or fall a sentence's own compared numbers show, and the one a claim names in words."""

from __future__ import annotations

import pytest

from veriground.text.changes import DOWN, UP, named_change, shown_change

NET_INCOME = (
    "And net income on a non-GAAP basis in the second quarter was $94.8 million or $0.91 per diluted share, that "
    "compares to $106.6 million or $1.04 per diluted share in Q2 of last year."
)


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        (NET_INCOME, DOWN),  # millions pair with millions, per-share figures with per-share figures: both down
        ("Revenue was 5 million units in 2020 compared to 4 million units in 2019.", UP),
        ("Sales were 12% of revenue versus 15% a year ago.", DOWN),
        ("Costs were $5 million against $5 million last year.", None),  # no change
        ("In 2020 compared to 2019 nothing changed.", None),  # years order dates, not amounts
        ("We spent $5 million compared to 10 employees.", None),  # not in the same role
        ("Sales were $5 million compared to $4 million, and costs were 10% versus 12%.", None),  # both ways
        ("Revenue grew to $5 million.", None),  # nothing compared: the words say it, not the numbers
        # two figures before the cue, one after: which answers which cannot be told
        ("Net income was $106.6 million, or $1.04 per share, compared to $94.8 million a year ago.", None),
        ("Revenue rose 5% to $4.1 billion, versus analyst estimates of $4.3 billion.", None),  # a forecast
    ],
)
def test_shown_change(sentence, expected):
    assert shown_change(sentence) == expected


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        ("The company had a decrease in net income compared to last year.", DOWN),
        ("Revenue grew in the third quarter.", UP),
        ("Revenue grew while costs fell.", None),
        ("Net income was $94.8 million.", None),
        ("Net income did not decrease.", None),  # negated
        ("Higher education spending reached a record.", None),  # "higher" names no change
    ],
)
def test_named_change(claim, expected):
    assert named_change(claim) == expected
