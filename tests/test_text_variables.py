"""A claim's one-letter variables read as its evidence names them (text/variables.py), and only then."""

from __future__ import annotations

import pytest

from veriground.text.variables import rename_variables_as

TREES = "Let $T$ be a tree with $v$ vertices and $e$ edges. Then $e = v-1$."


@pytest.mark.parametrize(
    ("premise", "hypothesis", "expected"),
    [
        # n stands where the theorem has v: renamed, wherever it occurs
        (TREES, "Every tree with n vertices has n - 1 edges.", "Every tree with v vertices has v - 1 edges."),
        (
            "The graph $K_n$ has $n(n-1)/2$ edges.",
            "A complete graph has $m(m-1)/2$ edges.",
            "A complete graph has $n(n-1)/2$ edges.",
        ),
        # already the premise's names: as written
        (TREES, "A tree with v vertices has v - 1 edges.", "A tree with v vertices has v - 1 edges."),
        # n is never in math here, so it is a word as far as renaming goes
        (TREES, "Every tree with n vertices has n edges.", "Every tree with n vertices has n edges."),
        # no variable, or no premise variable the hypothesis does not use already
        (TREES, "A tree has one edge fewer than vertices.", "A tree has one edge fewer than vertices."),
        ("In 2019 a survey of 500 people found that $x = 3$.", "A survey found $y = 4$.", "A survey found $y = 4$."),
        # "a" is an article, and a renaming that places the variable nowhere is not made
        (TREES, "Let a be 2 and b - 1 be odd.", "Let a be 2 and b - 1 be odd."),
    ],
)
def test_variables_are_renamed_only_where_the_renaming_places_them(premise, hypothesis, expected):
    assert rename_variables_as(premise, hypothesis) == expected


def test_latex_commands_are_not_variables():
    premise = "The height $h$ satisfies $h \\le \\log n$."
    assert rename_variables_as(premise, "The height $k$ satisfies $k \\le \\log n$.") == (
        "The height $h$ satisfies $h \\le \\log n$."
    )
