"""A claim's one-letter variables renamed as its evidence names them: "Every tree with n vertices has n - 1 edges."
read against "Let $T$ be a tree with $v$ vertices and $e$ edges. Then $e = v-1$." is the same statement with v for n.

An NLI model reads a variable as a word, so a renamed variable looks like a changed fact: the shipped model gave "A
tree with n vertices has n - 1 edges." 0.04 entailment against its own textbook's theorem, and 0.89 once n read v. A
letter is a variable when some occurrence stands in math (between $ signs) or next to an operator or a digit ("n -
1", "2n"); "a", "A" and "I" are words. Each of the hypothesis's variables that the premise lacks is renamed to the
premise variable (not already in the hypothesis) whose renaming turns the most of the hypothesis's word pairs into
pairs of the premise, when it places each renamed variable beside a content word it stands beside in the premise ("n
vertices" as "v vertices") or in three shared pairs; otherwise, and when the premise already uses the hypothesis's
variables, it is left as written.
"""

from __future__ import annotations

import re
from itertools import permutations

from veriground.text.memo import text_memo
from veriground.text.quantity_spans import restate_in_units_of
from veriground.text.terms import STOPWORDS

_TOKEN = re.compile(r"\\[A-Za-z]+|[A-Za-z]+|\d+(?:\.\d+)?|[^\sA-Za-z\d]")
_MATH = re.compile(r"\$[^$]*\$")
_OPERATOR = frozenset("=+-−*/^()×·<>≤≥_")
_WORDS = frozenset({"a", "A", "I"})
# Renamings tried at most: a claim with more unknown variables than this is left as written.
MAX_RENAMED = 2
# A renamed variable must sit beside the same content word as in the premise ("n vertices"), or in this many of the
# premise's pairs ("m(m-1)/2" as "n(n-1)/2"): "y = 4" is not "x = 3" with x renamed, because both say "= ".
MIN_PAIRS_WITHOUT_WORD = 3


def restate_as_premise_writes(premise: str, hypothesis: str) -> str:
    """The hypothesis with its quantities in the premise's units (text/quantity_spans.py) and its variables renamed as
    the premise names them: what a model, or a word-by-word comparison, should read against the premise."""
    return rename_variables_as(premise, restate_in_units_of(premise, hypothesis))


def rename_variables_as(premise: str, hypothesis: str) -> str:
    """The hypothesis with its variables renamed as the premise names them (see the module), or as written."""
    if not premise or not hypothesis:
        return hypothesis
    return _renamed(premise, hypothesis)


@text_memo(maxsize=4096)
def _renamed(premise: str, hypothesis: str) -> str:
    premise_tokens, hypothesis_tokens = _tokens(premise), _tokens(hypothesis)
    premise_variables = _variables(premise, premise_tokens)
    hypothesis_variables = _variables(hypothesis, hypothesis_tokens)
    unknown = sorted(hypothesis_variables - set(premise_tokens))
    letters_used = {token for token in hypothesis_tokens if len(token) == 1}
    targets = sorted(premise_variables - letters_used)
    if not unknown or not targets or len(unknown) > MAX_RENAMED:
        return hypothesis
    premise_pairs = set(zip(premise_tokens, premise_tokens[1:], strict=False))
    best: tuple[int, dict[str, str]] = (0, {})
    for chosen in permutations(targets, len(unknown)):
        mapping = dict(zip(unknown, chosen, strict=True))
        renamed = [mapping.get(token, token) for token in hypothesis_tokens]
        shared = [pair for pair in zip(renamed, renamed[1:], strict=False) if pair in premise_pairs]
        placed = {token: [pair for pair in shared if token in pair] for token in chosen}
        if all(_placed(pairs) for pairs in placed.values()) and len(shared) > best[0]:
            best = (len(shared), mapping)
    if not best[1]:
        return hypothesis
    mapping = best[1]
    pattern = re.compile(r"(?<![A-Za-z\\])(" + "|".join(map(re.escape, mapping)) + r")(?![A-Za-z])")
    return pattern.sub(lambda match: mapping[match.group(1)], hypothesis)


def _placed(pairs: list[tuple[str, str]]) -> bool:
    words = {token for pair in pairs for token in pair if len(token) > 2 and token.isalpha()}
    return bool(words - STOPWORDS) or len(pairs) >= MIN_PAIRS_WITHOUT_WORD


def _tokens(text: str) -> list[str]:
    """Words lower-cased (one-letter ones kept as written: T and t are different variables), numbers and symbols;
    dollar signs left out."""
    return [token if len(token) == 1 else token.lower() for token in _TOKEN.findall(text.replace("$", " "))]


def _variables(text: str, tokens: list[str]) -> set[str]:
    """The one-letter tokens that stand in math somewhere in the text."""
    letters = {token for token in tokens if len(token) == 1 and token.isalpha() and token not in _WORDS}
    if not letters:
        return set()
    in_math = {token for span in _MATH.findall(text) for token in _TOKEN.findall(span.strip("$"))}
    beside_math = set()
    for index, token in enumerate(tokens):
        if token in letters:
            neighbours = tokens[max(0, index - 1) : index] + tokens[index + 1 : index + 2]
            if any(n in _OPERATOR or n[0].isdigit() for n in neighbours):
                beside_math.add(token)
    return letters & (in_math | beside_math)
