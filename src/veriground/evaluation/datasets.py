"""Readers of the public benchmark files in ../shared/datasets: each folder -> LabelledPair rows (or NLI items, or
SQuAD questions), with the dataset's full size and what was skipped and why.

Files are read in place and never copied: FaithBench (CC BY-NC-SA) and ANLI (CC BY-NC) are non-commercial and
must not be bundled. Row ids are `<file stem>:<line or index>`, so they are unique and stable across runs.
"""

from __future__ import annotations

import csv
import io
import json
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar

from veriground.errors import InputFileError
from veriground.schema import LabelledPair

SAMPLE_SEED = 0  # `limit` draws this seeded sample of row positions, kept in file order
NLILabel = Literal["entailment", "neutral", "contradiction"]
NLI_LABELS: tuple[NLILabel, ...] = ("entailment", "neutral", "contradiction")
_ANLI_LABELS: dict[str, NLILabel] = {"e": "entailment", "n": "neutral", "c": "contradiction"}
T = TypeVar("T")


@dataclass(frozen=True)
class NLIItem:
    premise: str
    hypothesis: str
    label: NLILabel
    group: str | None = None


@dataclass(frozen=True)
class SquadQuestion:
    question: str
    impossible: bool  # SQuAD 2.0: no answer in its paragraph, so the right move is to abstain


@dataclass(frozen=True)
class SquadData:
    articles: dict[str, list[str]]  # title -> paragraphs
    questions: list[SquadQuestion]


@dataclass(frozen=True)
class DatasetRows(Generic[T]):
    """Rows read from one benchmark folder: `size` counts every row in its files, `skipped` why some were left out."""

    rows: list[T]
    size: int
    skipped: dict[str, int] = field(default_factory=dict)


def sample_rows(rows: Sequence[T], limit: int | None) -> list[T]:
    """All rows, or `limit` of them drawn with SAMPLE_SEED and kept in file order (so every group and label has
    its share, where the first N rows of a file are often one document or one class)."""
    if limit is None or limit >= len(rows):
        return list(rows)
    positions = sorted(random.Random(SAMPLE_SEED).sample(range(len(rows)), limit))
    return [rows[position] for position in positions]


# --- hallucination / attribution benchmarks (LabelledPair rows) ---------------------------------------------


def read_fever_symmetric(folder: Path) -> DatasetRows[LabelledPair]:
    """FEVER-Symmetric v0.2 dev and test: claim vs its one evidence sentence; SUPPORTS -> supported,
    REFUTES -> contradicted; group = split."""
    rows, size = [], 0
    for split in ("dev", "test"):
        path = folder / f"fever_symmetric_{split}.jsonl"
        for number, data in _jsonl(path):
            size += 1
            label = {"SUPPORTS": "supported", "REFUTES": "contradicted"}[_field(data, "label", path, number)]
            rows.append(_pair(path, number, data["claim"], [data["evidence"]], label, split))
    return DatasetRows(rows, size)


def read_summedits(folder: Path) -> DatasetRows[LabelledPair]:
    """SummEdits, the domains present: summary vs its document; label 1 (consistent) -> supported, 0 ->
    unsupported; group = domain. Both of the file's splits ("test", "evaluation") are used."""
    rows, size = [], 0
    paths = sorted(folder.glob("summedits_*.json"))
    if not paths:
        raise InputFileError(folder, "no summedits_*.json files", "point --datasets at the shared datasets folder")
    for path in paths:
        domain = path.stem.removeprefix("summedits_")
        for index, data in enumerate(_json(path), start=1):
            size += 1
            label = "supported" if int(_field(data, "label", path, index)) == 1 else "unsupported"
            rows.append(_pair(path, index, data["summary"], [data["doc"]], label, domain))
    return DatasetRows(rows, size)


def read_attributionbench(folder: Path) -> DatasetRows[LabelledPair]:
    """AttributionBench in-domain (500) and out-of-domain (1,686) test sets: claim vs its cited references;
    attributable -> supported, not attributable -> unsupported; group = id / ood. Rows with no reference text
    cannot be checked and are skipped."""
    files = (("id", "test_all_subset_balanced_sampled500.jsonl"), ("ood", "test_ood_all_subset_balanced.jsonl"))
    rows, size, skipped = [], 0, Counter[str]()
    for group, name in files:
        path = folder / name
        for number, data in _jsonl(path):
            size += 1
            references = [text for text in data.get("references") or [] if text.strip()]
            if not references:
                skipped["no reference text"] += 1
                continue
            attributable = _field(data, "attribution_label", path, number) == "attributable"
            label = "supported" if attributable else "unsupported"
            rows.append(_pair(path, number, data["claim"], references, label, group))
    return DatasetRows(rows, size, dict(skipped))


def read_wice(folder: Path) -> DatasetRows[LabelledPair]:
    """WiCE claim-level dev and test: claim vs its cited page, one passage of the page's sentences one per line (a
    page is one document and one source, as a user would give it; read one passage per sentence, as until session 16,
    every sentence was an independent source and no window could join two of them: held-out balanced accuracy 0.625
    for v3 and 0.633 for the lexical NLI, against 0.716 and 0.671 read whole); supported -> supported,
    partially_supported and not_supported -> unsupported; group = split."""
    rows, size = [], 0
    for split in ("dev", "test"):
        path = folder / f"claim_{split}.jsonl"
        for number, data in _jsonl(path):
            size += 1
            label = "supported" if _field(data, "label", path, number) == "supported" else "unsupported"
            sentences = [sentence.strip() for sentence in data["evidence"] if sentence.strip()]
            rows.append(_pair(path, number, data["claim"], ["\n".join(sentences)], label, split))
    return DatasetRows(rows, size)


def read_begin(folder: Path, split: str = "test") -> DatasetRows[LabelledPair]:
    """BEGIN (Wizard of Wikipedia part), test split (the benchmark) or dev split (training): response vs its
    knowledge snippet; Fully attributable -> supported, Not fully attributable -> unsupported; Generic responses
    (no claim to attribute) are skipped."""
    path = folder / f"begin_{split}_wow.tsv"
    rows, size, skipped = [], 0, Counter[str]()
    for number, data in _tsv(path):
        size += 1
        label = _field(data, "begin_label", path, number)
        if label == "Generic":
            skipped["Generic label"] += 1
            continue
        mapped = "supported" if label == "Fully attributable" else "unsupported"
        rows.append(_pair(path, number, data["response"], [data["knowledge"]], mapped, None))
    return DatasetRows(rows, size, dict(skipped))


def read_faithbench(folder: Path) -> DatasetRows[LabelledPair]:
    """FaithBench (NC: read in place only): summary vs its source. The authors' binarisation (scripts/binarize.py):
    the worst label over annotators, Questionable and Unwanted -> hallucinated (unsupported), Consistent and
    Benign -> supported."""
    path = folder / "FaithBench.csv"
    rows = []
    for number, data in _csv(path):
        worst = _field(data, "worst-label", path, number)
        label = "unsupported" if worst in ("Questionable", "Unwanted") else "supported"
        rows.append(_pair(path, number, data["summary"], [data["source"]], label, None))
    return DatasetRows(rows, len(rows))


# --- NLI sets -----------------------------------------------------------------------------------------------


def read_mnli(folder: Path) -> DatasetRows[NLIItem]:
    """MultiNLI dev-matched (9,815 pairs); the TSV is read with quoting off, as its SOURCE.md says."""
    path = folder / "mnli" / "mnli_dev_matched_with_difficulty.tsv"
    items = [
        NLIItem(data["premise"], data["hypothesis"], _nli_label(data["gold_label"], path, number))
        for number, data in _tsv(path, csv.QUOTE_NONE)
    ]
    return DatasetRows(items, len(items))


def read_snli(folder: Path) -> DatasetRows[NLIItem]:
    """SNLI 1.0 dev, first 1,289 lines; pairs whose gold label is "-" (no annotator consensus) are skipped."""
    path = folder / "snli" / "snli_1.0_dev_first1289.jsonl"
    items, size, skipped = [], 0, Counter[str]()
    for number, data in _jsonl(path):
        size += 1
        if data.get("gold_label") == "-":
            skipped["no consensus label (-)"] += 1
            continue
        items.append(NLIItem(data["sentence1"], data["sentence2"], _nli_label(data["gold_label"], path, number)))
    return DatasetRows(items, size, dict(skipped))


def read_anli(folder: Path) -> DatasetRows[NLIItem]:
    """ANLI dev rounds R1-R3 (NC: read in place only); group = round."""
    items = []
    for round_number in (1, 2, 3):
        path = folder / "anli" / f"ANLI_analysis_r{round_number}_dev.csv"
        for number, data in _csv(path):
            code = _field(data, "gold_label", path, number)
            if code not in _ANLI_LABELS:
                raise InputFileError(f"{path} row {number}", f"gold_label must be e, n or c, got {code!r}")
            items.append(NLIItem(data["context"], data["statement"], _ANLI_LABELS[code], f"r{round_number}"))
    return DatasetRows(items, len(items))


# --- SQuAD 2.0 (abstention) -------------------------------------------------------------------------------


def read_squad2(folder: Path) -> SquadData:
    """The SQuAD 2.0 dev articles: paragraphs per article, and every question with whether it is unanswerable."""
    path = folder / "dev-v2.0_8-articles.json"
    articles: dict[str, list[str]] = {}
    questions: list[SquadQuestion] = []
    for article in _json(path)["data"]:
        articles[article["title"]] = [paragraph["context"].strip() for paragraph in article["paragraphs"]]
        for paragraph in article["paragraphs"]:
            questions.extend(SquadQuestion(qa["question"], bool(qa["is_impossible"])) for qa in paragraph["qas"])
    return SquadData(articles, questions)


# --- file access ----------------------------------------------------------------------------------------------


def _pair(path: Path, number: int, text: str, evidence: Sequence[str], label: str, group: str | None) -> LabelledPair:
    return LabelledPair(id=f"{path.stem}:{number}", text=text, evidence=tuple(evidence), label=label, group=group)


def _field(data: dict[str, Any], name: str, path: Path, number: int) -> Any:
    if name not in data:
        raise InputFileError(f"{path} row {number}", f"no field {name!r}", "is this the file its SOURCE.md names?")
    return data[name]


def _nli_label(label: str, path: Path, number: int) -> NLILabel:
    if label not in NLI_LABELS:
        valid = ", ".join(NLI_LABELS)
        raise InputFileError(f"{path} row {number}", f"gold_label must be one of {valid}, got {label!r}")
    return label


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as err:
        raise InputFileError(
            path, f"cannot read: {err.strerror or err}", "check the folder against its SOURCE.md"
        ) from None


def _json(path: Path) -> Any:
    try:
        return json.loads(_read_text(path))
    except json.JSONDecodeError as err:
        raise InputFileError(path, f"not valid JSON: {err.msg} at line {err.lineno}") from None


def _jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, line in enumerate(_read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as err:
            raise InputFileError(f"{path} line {number}", f"not valid JSON: {err.msg}") from None
        yield number, data


def _tsv(path: Path, quoting: Literal[0, 1, 2, 3] = csv.QUOTE_MINIMAL) -> Iterator[tuple[int, dict[str, str]]]:
    rows = csv.DictReader(io.StringIO(_read_text(path), newline=""), delimiter="\t", quoting=quoting)
    yield from enumerate(rows, start=1)


def _csv(path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    yield from enumerate(csv.DictReader(io.StringIO(_read_text(path), newline="")), start=1)
