"""What a complexity bound is about: the algorithms a text names ("merge sort", "binary search", "Dijkstra's
algorithm"), the data structures and their operations ("ArrayStack.add"), and which of them a bound at a given place
is of (signals/complexity.py reads the bounds).
"""

from __future__ import annotations

import re

_SORT_PREFIXES = (
    "merge|quick|heap|insertion|selection|bubble|radix|counting|bucket|shell|tim|topological|cocktail|comb|gnome|"
    "cycle|intro|tree|pancake|bogo|library|patience|smooth|odd-even|block"
)
ALGORITHM = re.compile(
    rf"\b(?P<sort>(?:{_SORT_PREFIXES})[- ]?sort)(?:ing)?\b"
    r"|\b(?P<search>(?:binary|linear|interpolation|exponential|ternary|jump|depth-first|breadth-first)[- ]search)\b"
    r"(?![-\s]+trees?\b)"
    r"|\b(?P<named>Dijkstra|Prim|Kruskal|Bellman-Ford|Floyd-Warshall|Kosaraju|Tarjan|Karatsuba|Strassen|Euclid|"
    r"Huffman|Kadane|Bor[uů]vka|Johnson|Edmonds-Karp|Ford-Fulkerson|Knuth-Morris-Pratt|Rabin-Karp|Boyer-Moore|"
    r"Hopcroft-Karp|A\*)(?:'s)?(?:\s+algorithm)?(?![\w-])"
    r"|\b(?P<acronym>BFS|DFS|KMP)\b",
    re.IGNORECASE,
)
# An operation of a data structure: "the ArrayStack's add(i,x) operation", "SkiplistSSet ... find(x)". Both a
# structure name (CamelCase) and a method call are needed, so "add(x)" alone never names a subject.
STRUCTURE = re.compile(r"\b[A-Z][a-z]+(?:[A-Z][A-Za-z]*)+\b")
METHOD = re.compile(r"(?<![\w.])(?P<method>[a-z][A-Za-z0-9_]*)\(\s*[\w, ]{0,20}\)")


def named_subjects(text: str) -> frozenset[str]:
    """The algorithms (canonical names, as Bound.algorithm spells them) and data structures the text names."""
    algorithms = {algorithm_name(match) for match in ALGORITHM.finditer(text)}
    return frozenset(algorithms | {match.group() for match in STRUCTURE.finditer(text)})


def subject_mentions(text: str) -> list[str]:
    """The words that name algorithms, data structures and their operations, as written ("Merge sort", "add(x)")."""
    return [match.group() for pattern in (ALGORITHM, STRUCTURE, METHOD) for match in pattern.finditer(text)]


def algorithm_name(match: re.Match[str]) -> str:
    name = match.group().lower().replace("'s", "").removesuffix(" algorithm").removesuffix("ing")
    if match.group("sort"):
        return re.sub(r"[- ]", "", name)  # merge sort, merge-sort, mergeSort, mergesort
    return name.replace("-", " ") if match.group("search") else name


def algorithm_for(start: int, sentence: tuple[int, int], algorithms: list[tuple[int, str]], carry: bool) -> str | None:
    before = [name for position, name in algorithms if sentence[0] <= position < start]
    if before:
        return before[-1]
    after = [name for position, name in algorithms if start <= position < sentence[1]]
    if after:
        return after[0]
    if carry:
        earlier = [name for position, name in algorithms if position < sentence[0]]
        return earlier[-1] if earlier else None
    return None


def operation_for(
    start: int,
    sentence: tuple[int, int],
    structures: list[tuple[int, str]],
    methods: list[tuple[int, str]],
    carry: bool,
) -> str | None:
    """ "ArrayStack.add": the method named before the bound in its sentence, on the structure last named."""
    method = [name for position, name in methods if sentence[0] <= position < start]
    if not method:
        return None
    structure = algorithm_for(start, sentence, structures, carry)
    return f"{structure}.{method[-1]}" if structure else None
