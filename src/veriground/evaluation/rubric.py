"""Two raters' rubric files (seed 004 §3.8 human rubric) -> per rubric item: items rated by both, percent agreement
and Cohen's kappa.

A rubric file is JSONL, one rated answer per line, the same ids in both files (any order):

    {"id": "q01", "G0": 1, "G1": 0.75, "G2": 2, "U1": 4, "U2": 3}

G0 grounded, 0 or 1; G1 support ratio (supported claims / claims), a number from 0 to 1; G2 citation correctness,
0, 1 or 2; U1 clarity and U2 actionability, 1 to 5. null: not rated on that item (G2 of an answer without
citations); an optional "note" (a string) is kept for the raters and ignored here. Kappa is Cohen's, unweighted.
G1 is read in bins (kappa needs categories), and U1 is also read binned, as seed 004 §4.5 reports it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from veriground.errors import InputFileError
from veriground.evaluation.metrics import RUBRIC_DIMENSIONS, MetricValue, cohen_kappa, rubric_kappas
from veriground.text_input import read_jsonl_records

Score = int | float
NOTE_FIELD = "note"
ROW_FIELDS = ", ".join(("id", *RUBRIC_DIMENSIONS, NOTE_FIELD))
MAX_IDS_LISTED = 10  # a message naming missing ids names this many, then counts the rest


def bin_support_ratio(ratio: Score) -> str:
    """G1 in four bins that a reader acts on differently: nothing supported, under half, half or more, all."""
    if ratio == 0:
        return "0"
    if ratio == 1:
        return "1"
    return "<0.5" if ratio < 0.5 else ">=0.5"


def bin_five_point(score: Score) -> str:
    """A 1-5 score as low (1-2), mid (3) or high (4-5)."""
    return "low" if score <= 2 else "mid" if score == 3 else "high"


@dataclass(frozen=True)
class RubricScale:
    """One rubric item: what it measures, the values a rater may give, and how kappa reads them."""

    item: str
    meaning: str
    reading: str  # the categories kappa compares, in words
    allowed: tuple[int, ...] | None  # the allowed integers; None: a ratio from 0 to 1
    bins: Callable[[Score], Hashable] | None = None  # None: kappa compares the values themselves

    def category(self, value: Score) -> Hashable:
        return value if self.bins is None else self.bins(value)

    def describe_allowed(self) -> str:
        if self.allowed is None:
            return "a number from 0 to 1"
        return ", ".join(map(str, self.allowed[:-1])) + f" or {self.allowed[-1]}"


RUBRIC_SCALES = (
    RubricScale("G0", "grounded", "0/1", (0, 1)),
    RubricScale("G1", "support ratio", "bins 0, <0.5, >=0.5, 1", None, bin_support_ratio),
    RubricScale("G2", "citation correctness", "0-2", (0, 1, 2)),
    RubricScale("U1", "clarity", "1-5", (1, 2, 3, 4, 5)),
    RubricScale("U2", "actionability", "1-5", (1, 2, 3, 4, 5)),
)
SCALES = {scale.item: scale for scale in RUBRIC_SCALES}
# Seed 004 §4.5 reports agreement "on G0 and binned U1": U1 read as low / mid / high, besides the five items.
U1_BINNED = RubricScale("U1 binned", "clarity", "bins 1-2, 3, 4-5", (1, 2, 3, 4, 5), bin_five_point)
REPORTED_SCALES = (*RUBRIC_SCALES[:4], U1_BINNED, *RUBRIC_SCALES[4:])


@dataclass(frozen=True)
class RubricRating:
    """One rater's scores of one answer (a missing key: not rated on that item)."""

    id: str
    scores: Mapping[str, Score]


@dataclass(frozen=True)
class ItemAgreement:
    """Agreement of the two raters on one rubric item, over the answers both rated on it."""

    item: str
    meaning: str
    rated: int
    agreement: MetricValue
    kappa: MetricValue

    def to_json(self) -> dict[str, Any]:
        return {
            "meaning": self.meaning,
            "rated": self.rated,
            "agreement": self.agreement.to_json(),
            "kappa": self.kappa.to_json(),
        }


@dataclass(frozen=True)
class RubricAgreement:
    files: tuple[str, str]
    answers: int
    items: tuple[ItemAgreement, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "files": list(self.files),
            "answers": self.answers,
            "kappa": "Cohen's kappa, unweighted (seed 004 §3.8)",
            "items": {item.item: item.to_json() for item in self.items},
        }


def rubric_agreement(path_a: Path, path_b: Path) -> RubricAgreement:
    """Read both files, pair the ratings by id, and score agreement per rubric item (and on U1 binned)."""
    ratings_a, ratings_b = read_rubric(path_a), read_rubric(path_b)
    _check_same_ids(path_a, ratings_a, path_b, ratings_b)
    by_id = {rating.id: rating for rating in ratings_b}
    first = [_categories(rating.scores) for rating in ratings_a]
    second = [_categories(by_id[rating.id].scores) for rating in ratings_a]
    kappas = rubric_kappas(first, second)
    items = []
    for scale in REPORTED_SCALES:
        both = [
            (a[scale.item], b[scale.item])
            for a, b in zip(first, second, strict=True)
            if scale.item in a and scale.item in b
        ]
        kappa = kappas[scale.item] if scale.item in kappas else cohen_kappa([a for a, _ in both], [b for _, b in both])
        agreement = MetricValue.ratio(sum(a == b for a, b in both), len(both), "no answer rated by both raters")
        items.append(ItemAgreement(scale.item, f"{scale.meaning} ({scale.reading})", len(both), agreement, kappa))
    return RubricAgreement(files=(str(path_a), str(path_b)), answers=len(ratings_a), items=tuple(items))


def format_agreement(result: RubricAgreement) -> str:
    """A printable table: one row per rubric item with the items rated, percent agreement and kappa."""
    first, second = result.files
    lines = [
        f"eval kappa: {result.answers} answers rated in {first} and {second} (Cohen's kappa, unweighted)",
        "",
        f"{'item':<10} {'scale':<40} {'rated':>5} {'agreement':>9} {'kappa':>6}",
    ]
    for item in result.items:
        agreement = "n/a" if item.agreement.value is None else f"{item.agreement.value:.1%}"
        lines.append(f"{item.item:<10} {item.meaning:<40} {item.rated:>5} {agreement:>9} {item.kappa.format():>6}")
    for item in result.items:
        if item.kappa.value is None:
            lines.append(f"  {item.item}: kappa n/a, {item.kappa.reason}")
    return "\n".join(lines) + "\n"


# --- reading a rubric file ------------------------------------------------------------------------------------


def read_rubric(path: Path) -> list[RubricRating]:
    """Parse and validate one rater's JSONL file (blank lines skipped); errors name the file, line and field."""
    return read_jsonl_records(
        path,
        "the rubric file",
        _parse_rating,
        fields=ROW_FIELDS,
        record_name="a rating",
        plural="ratings",
        duplicate_fix="rate each answer once",
    )


def _parse_rating(data: dict[str, Any], where: str) -> RubricRating:
    unknown = [name for name in data if name not in ("id", NOTE_FIELD, *SCALES)]
    if unknown:
        raise InputFileError(where, f"unknown field {unknown[0]!r}", f"a rating may have: {ROW_FIELDS}")
    rating_id = data.get("id")
    if not isinstance(rating_id, str) or not rating_id.strip():
        raise InputFileError(where, f"id must be a non-empty string, got {_shown(rating_id)}", "give the answer's id")
    if not isinstance(data.get(NOTE_FIELD, ""), str):
        raise InputFileError(where, f"note must be a string, got {_shown(data[NOTE_FIELD])}")
    scores: dict[str, Score] = {}
    for scale in RUBRIC_SCALES:
        if scale.item not in data:
            raise InputFileError(
                where, f"missing field {scale.item!r}", "write null where the answer was not rated on it"
            )
        value = data[scale.item]
        if value is not None:
            scores[scale.item] = _checked(scale, value, where)
    return RubricRating(rating_id, scores)


def _checked(scale: RubricScale, value: Any, where: str) -> Score:
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    if scale.allowed is None:
        if is_number and 0 <= value <= 1:
            return value
    elif is_number and float(value).is_integer() and int(value) in scale.allowed:
        return int(value)  # 2.0 from a spreadsheet export is 2
    raise InputFileError(
        where,
        f"{scale.item} ({scale.meaning}) must be {scale.describe_allowed()}, or null when not rated; "
        f"got {_shown(value)}",
    )


def _shown(value: Any) -> str:
    """A value as it was written in the JSON file."""
    return json.dumps(value, ensure_ascii=False)


# --- pairing and scoring --------------------------------------------------------------------------------------


def _check_same_ids(
    path_a: Path, ratings_a: Sequence[RubricRating], path_b: Path, ratings_b: Sequence[RubricRating]
) -> None:
    ids_a, ids_b = [rating.id for rating in ratings_a], [rating.id for rating in ratings_b]
    known_a, known_b = set(ids_a), set(ids_b)
    lacking = [
        (path, other, missing)
        for path, other, missing in (
            (path_b, path_a, [i for i in ids_a if i not in known_b]),
            (path_a, path_b, [i for i in ids_b if i not in known_a]),
        )
        if missing
    ]
    if lacking:
        (path, other, missing), *rest = lacking
        problem = "; ".join(
            [f"lacks {_id_list(missing)} that {other} rates"]
            + [f"{path} lacks {_id_list(missing)} that {other} rates" for path, other, missing in rest]
        )
        raise InputFileError(path, problem, "both raters must rate the same answers, by id")


def _id_list(ids: Sequence[str]) -> str:
    shown = ", ".join(repr(i) for i in ids[:MAX_IDS_LISTED])
    more = f" and {len(ids) - MAX_IDS_LISTED} more" if len(ids) > MAX_IDS_LISTED else ""
    return f"{len(ids)} id{'s' if len(ids) != 1 else ''} ({shown}{more})"


def _categories(scores: Mapping[str, Score]) -> dict[str, Hashable]:
    """The scores as kappa compares them, keyed by reported item (U1 twice: as given, and binned)."""
    categories = {item: SCALES[item].category(value) for item, value in scores.items()}
    if "U1" in scores:
        categories[U1_BINNED.item] = U1_BINNED.category(scores["U1"])
    return categories
