"""Which rows of each public dataset the shipped NLI model may train on, and which are held out for `eval bench`.

One table, read by both sides, so no benchmark figure is ever measured on a row the model was trained on:

| dataset          | trained on                                 | held out (benchmarked)                      |
|------------------|--------------------------------------------|---------------------------------------------|
| mnli             | 80 % of each label                         | 20 % of each label (stratified)             |
| snli             | 50 % of each label                         | 50 % of each label                          |
| fever-symmetric  | the dev file                               | the test file                               |
| wice             | the dev file                               | the test file                               |
| begin            | the dev file (read by the training mix)    | the test file                               |
| attributionbench | 50 % of each label of the in-domain file   | the other 50 %, and all of out-of-domain    |
| summedits        | half the documents of news/scitldr/ectsum  | the other half, and all of samsum (NC)      |
| anli, faithbench | never (non-commercial: evaluation only)    | everything                                  |
| squad2           | never                                      | everything                                  |

A row's side is a function of its content (SHA-256 of a key), never of file order or a random draw, so the
partition is the same on every machine and survives a reordered file.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from typing import Literal, TypeVar

from veriground.evaluation.datasets import NLIItem
from veriground.schema import LabelledPair

Part = Literal["train", "heldout"]
T = TypeVar("T", NLIItem, LabelledPair)
HELDOUT_FRACTION = {"mnli": 0.20, "snli": 0.50, "attributionbench": 0.50, "summedits": 0.50}
NEVER_TRAINED = ("anli", "faithbench", "squad2")
NC_GROUPS = {"summedits": ("samsum",)}  # SAMSum documents are CC BY-NC-ND: never trained on


def split_rows(dataset: str, rows: Sequence[T]) -> tuple[list[T], list[T]]:
    """(train rows, held-out rows) of a dataset's rows as datasets.py reads them, each in input order."""
    rule = _RULES.get(dataset)
    if rule is None:
        return [], list(rows)
    heldout_ids = rule(rows)
    train = [row for index, row in enumerate(rows) if index not in heldout_ids]
    heldout = [row for index, row in enumerate(rows) if index in heldout_ids]
    return train, heldout


def rows_of_part(dataset: str, rows: Sequence[T], part: Part) -> list[T]:
    train, heldout = split_rows(dataset, rows)
    return train if part == "train" else heldout


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


def _nli_key(item: NLIItem) -> str:
    return _digest(item.premise, item.hypothesis)


def _stratified(dataset: str, key: Callable[[T], str], label: Callable[[T], str]) -> Callable[[Sequence[T]], set[int]]:
    """Hold out the first `fraction` (rounded up) of each label's rows, ordered by the SHA-256 of their key."""

    def held(rows: Sequence[T]) -> set[int]:
        by_label: dict[str, list[int]] = {}
        for index, row in enumerate(rows):
            by_label.setdefault(label(row), []).append(index)
        chosen: set[int] = set()
        for members in by_label.values():
            ordered = sorted(members, key=lambda index: (key(rows[index]), index))
            chosen.update(ordered[: math.ceil(len(ordered) * HELDOUT_FRACTION[dataset])])
        return chosen

    return held


def _by_group(heldout_groups: tuple[str, ...]) -> Callable[[Sequence[LabelledPair]], set[int]]:
    return lambda rows: {index for index, row in enumerate(rows) if row.group in heldout_groups}


def _attributionbench(rows: Sequence[LabelledPair]) -> set[int]:
    in_domain = [index for index, row in enumerate(rows) if row.group == "id"]
    held = {index for index, row in enumerate(rows) if row.group != "id"}
    stratified: Callable[[Sequence[LabelledPair]], set[int]] = _stratified(
        "attributionbench", lambda row: _digest(row.id), lambda row: row.label
    )
    members = [rows[index] for index in in_domain]
    held.update(in_domain[position] for position in stratified(members))
    return held


def _summedits(rows: Sequence[LabelledPair]) -> set[int]:
    """Whole documents go to one side (a document's edited summaries are near-duplicates of each other)."""
    held: set[int] = set()
    documents: dict[str, dict[str, list[int]]] = {}
    for index, row in enumerate(rows):
        if row.group in NC_GROUPS["summedits"]:
            held.add(index)
            continue
        documents.setdefault(row.group or "", {}).setdefault(_digest(row.evidence[0]), []).append(index)
    for by_document in documents.values():
        ordered = sorted(by_document)
        for digest in ordered[: math.ceil(len(ordered) * HELDOUT_FRACTION["summedits"])]:
            held.update(by_document[digest])
    return held


_RULES: dict[str, Callable[[Sequence], set[int]]] = {
    "mnli": _stratified("mnli", _nli_key, lambda item: item.label),
    "snli": _stratified("snli", _nli_key, lambda item: item.label),
    "fever-symmetric": _by_group(("test",)),
    "wice": _by_group(("test",)),
    "attributionbench": _attributionbench,
    "summedits": _summedits,
}
# begin: datasets.read_begin reads the test file only, which is all held out; the training mix reads the dev file.
