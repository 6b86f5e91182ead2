"""The cheap checks that let a reader skip a scan (a character every match must hold) change nothing: with the check
switched off, or against the reading written out in full, every line of the domain corpora reads the same."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from veriground.claims import defined_terms, equations
from veriground.claims.defined_terms import defines_term, plain_text
from veriground.signals import complexity, coverage
from veriground.text import terms
from veriground.text.cues import extract_equations

TRICKY = [
    "Let x = 3 and y = x^2 + 1, where v is the speed.",
    "The running time is O(n log n) and Θ(n^2) in the worst case.",
    "E = mc^2 relates energy and mass; Δx = v·t.",
    "The angle θ and the constant π are Greek; so is the name alpha.",
    "A self-balancing binary-search tree, a well-known AVL tree and mergeSort.",
    "It's the object's speed; snake_case_names and a_1 are symbols.",
    "$a \\le b$ and \\(x\\) hold; f(x) ≤ g(x) ≈ 2.",
    "Near Earth's surface, objects fall with an acceleration of about 9.80 m/s2.",
    "The density ρ is defined as mass per unit volume. We call v the velocity.",
    "",
]


def corpus_lines(root: Path, limit: int = 6000) -> list[str]:
    lines: list[str] = []
    for path in sorted(root.rglob("*.md")):
        lines.extend(line for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
        if len(lines) >= limit:
            break
    return TRICKY + lines[:limit]


@pytest.fixture(scope="module")
def lines() -> list[str]:
    root = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "domain-corpora"
    return corpus_lines(root) if root.is_dir() else TRICKY


def test_entity_patterns_read_the_same_without_their_character_checks(lines, monkeypatch):
    checked = [coverage._entities_of.__wrapped__(line) for line in lines]
    unchecked = tuple((pattern, None) for pattern, _ in coverage._ENTITY_PATTERNS)
    monkeypatch.setattr(coverage, "_ENTITY_PATTERNS", unchecked)
    assert [coverage._entities_of.__wrapped__(line) for line in lines] == checked
    assert any(checked)


def test_equations_read_the_same_without_the_character_check(lines, monkeypatch):
    checked = [equations.find_equations(line) for line in lines]
    monkeypatch.setattr(equations, "_MAY_HOLD_EQUATION", re.compile(""))  # matches every text
    assert [equations.find_equations(line) for line in lines] == checked
    assert any(checked)


def test_symbolic_equations_are_still_found():
    assert extract_equations("so that v = d/t holds") == [("v", "d/t")]
    assert extract_equations("no relation sign here") == []


def _words_in_full(text: str) -> tuple[str, ...]:
    lowered = terms.normalise_text(text).lower()
    words = (word[:-2] if word.endswith("'s") else word for word in terms._NORMALISED_WORD.findall(lowered))
    return tuple(word for word in words if word)


def test_words_read_the_same_as_the_full_word_pattern(lines):
    assert [terms._words_of.__wrapped__(line) for line in lines] == [_words_in_full(line) for line in lines]


def _defines_in_full(text: str, term: str) -> bool:
    plain = plain_text(text)
    if term not in plain:
        return False
    return any(
        term in defined_terms._defined_symbols(sentence) or term in defined_terms._defined_phrases(sentence)
        for sentence in plain.split(". ")
    )


def test_corpus_definitions_read_the_same_as_reading_every_sentence(lines):
    asked = ["v", "x", "ρ", "density", "velocity", "binary search tree", "Re", "KE", "n", "G", "set"]
    passages = [" ".join(lines[start : start + 8]) for start in range(0, len(lines), 8)]
    found = [[defines_term(passage, term) for term in asked] for passage in passages]
    assert found == [[_defines_in_full(passage, term) for term in asked] for passage in passages]
    assert any(any(row) for row in found)


def test_a_capitalised_definition_defines_the_lower_case_term():
    passage = "Density is defined as mass per unit volume. The density of water is 1 g/cm3."
    assert defines_term(passage, "density") and _defines_in_full(passage, "density")
    # a capital sigma lowers to a final sigma alone but not before ":d" (a reviewer's case)
    sigma = "abcς is here. It is called abcΣ:d"
    assert defines_term(sigma, "abcς") == _defines_in_full(sigma, "abcς")


def test_the_order_word_check_is_the_case_blind_patterns(lines):
    odd = ["LİNEAR TİME", "a lineaſ ſpace", "quadratıc tıme", "Linear TIME", "log n steps", "LOG-LINEAR Cost"]
    for text in odd + lines:
        hints = (complexity._ORDER_HINT, complexity._RESOURCE_HINT)
        expected = all(hint.search(text) is not None for hint in hints)
        assert complexity._may_name_order(text) == expected, text
    assert any(complexity._may_name_order(text) for text in lines)
