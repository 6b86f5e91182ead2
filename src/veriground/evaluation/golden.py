"""Golden sets: a JSONL file of golden queries -> validated GoldenQuery records, and a check of their ids
against a corpus.

One JSON object per line (seed 004 §3.8): answerable rows name the passages that answer them, contradiction
probes name at least two passages that disagree, unanswerable rows name none. The demo set ships in eval_data/.
A row's domain is the label its `note` opens with ("physics: …"), read by `golden_domain`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from veriground.errors import InputFileError
from veriground.schema import GoldenQuery
from veriground.text_input import read_utf8_file

if TYPE_CHECKING:
    from veriground.corpus.store import CorpusStore

DEMO_GOLDEN_FILE = "demo_golden.jsonl"
JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
_FIELDS = ", ".join(GoldenQuery.model_fields)
_ROW_FIX = f"a golden row has the fields: {_FIELDS}"
_KIND_FIX = (
    "answerable rows need gold_paragraph_ids, contradiction probes at least 2 distinct conflicting_ids, "
    "unanswerable rows no gold_paragraph_ids; fix the ids or the kind"
)
_ID_FIELDS = ("gold_paragraph_ids", "conflicting_ids")
# The domain labels a golden row's note opens with, as the domain profile (domains/profiles.py) they name;
# off-topic rows and probes across two domains keep a label of their own.
DOMAIN_LABELS = {
    "physics": "physics",
    "discrete-math": "discrete_math",
    "algorithms": "algorithms",
    "policy": "policy",
    "off-topic": "off_topic",
    "algorithms vs discrete-math": "algorithms_vs_discrete_math",
}
UNLABELLED_DOMAIN = "unlabelled"


def read_golden(path: Path | str | Traversable) -> list[GoldenQuery]:
    """Parse and validate a golden-set JSONL file; the first bad line raises InputFileError naming it."""
    source = Path(path) if isinstance(path, str) else path
    text = read_utf8_file(source, "the golden set", "pass an existing JSONL file")
    queries: list[GoldenQuery] = []
    line_of_id: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        query = _parse_row(str(source), number, line)
        if query.query_id in line_of_id:
            raise InputFileError(
                str(source),
                f"line {number}: duplicate query_id {query.query_id!r} (first on line {line_of_id[query.query_id]})",
                "give each query its own query_id",
            )
        line_of_id[query.query_id] = number
        queries.append(query)
    if not queries:
        raise InputFileError(str(source), "the golden set has no queries", "write one JSON object per line")
    return queries


def golden_domain(query: GoldenQuery) -> str:
    """The row's `domain`; for a row without one, the label its note opens with ("physics: …" -> physics), else
    `unlabelled`."""
    if query.domain:
        return query.domain
    label = (query.note or "").split(":", 1)[0].strip().lower()
    return DOMAIN_LABELS.get(label, UNLABELLED_DOMAIN)


def check_golden_against_corpus(queries: Sequence[GoldenQuery], store: CorpusStore) -> list[str]:
    """One problem per gold or conflicting passage id that the corpus's latest document versions lack."""
    wanted = list(dict.fromkeys(pid for query in queries for field in _ID_FIELDS for pid in getattr(query, field)))
    held = store.latest_passages(wanted)
    problems = []
    for query in queries:
        for field in _ID_FIELDS:
            for passage_id in getattr(query, field):
                if passage_id not in held:
                    problems.append(
                        f"{query.query_id}: {field} names {passage_id!r}, which the corpus does not hold "
                        "(re-ingest the corpus the set was built on, or find the current id with `veriground search`)"
                    )
    return problems


def golden_json_schema() -> dict[str, Any]:
    """The JSON Schema of one golden-set row, with the per-kind id rules written as if/then clauses."""
    schema = GoldenQuery.model_json_schema(mode="validation")
    schema["$schema"] = JSON_SCHEMA_DIALECT
    schema["description"] = (
        f"{schema.get('description', '')} One line of a golden-set JSONL file. JSON Schema cannot say 'distinct', "
        "so the rule that a contradiction probe names at least 2 distinct conflicting_ids is checked in full only "
        "by read_golden."
    )
    schema["allOf"] = [
        _when_kind("answerable", "gold_paragraph_ids", minItems=1),
        _when_kind("contradiction", "conflicting_ids", minItems=2),
        _when_kind("unanswerable", "gold_paragraph_ids", maxItems=0),
    ]
    return schema


def demo_golden_path() -> Traversable:
    """The golden set shipped for the bundled demo corpus."""
    return resources.files("veriground") / "eval_data" / DEMO_GOLDEN_FILE


def _parse_row(source: str, number: int, line: str) -> GoldenQuery:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as err:
        raise InputFileError(
            source, f"line {number}: not valid JSON: {err.msg} at column {err.colno}", "write one JSON object per line"
        ) from None
    if not isinstance(data, dict):
        raise InputFileError(source, f"line {number}: expected a JSON object, got {type(data).__name__}", _ROW_FIX)
    try:
        return GoldenQuery.model_validate(data)
    except ValidationError as err:
        raise InputFileError(source, *_describe(number, data, err)) from None


def _describe(number: int, data: dict[str, Any], err: ValidationError) -> tuple[str, str]:
    """The first problem of a row, and the fix that fits it."""
    first = err.errors()[0]
    where = f"line {number}"
    if isinstance(data.get("query_id"), str):
        where += f" (query_id {data['query_id']!r})"
    field = ".".join(str(part) for part in first["loc"])
    if first["type"] == "extra_forbidden":
        return f"{where}: unknown field {field!r}", _ROW_FIX
    if first["type"] == "missing":
        return f"{where}: missing field {field!r}", _ROW_FIX
    if not field:  # the model validator: the per-kind id rules name their own field
        return f"{where}: {first['msg'].removeprefix('Value error, ')}", _KIND_FIX
    return f"{where}: field {field!r}: {first['msg']}, got {first['input']!r}", f"correct the value of {field}"


def _when_kind(kind: str, field: str, **bound: int) -> dict[str, Any]:
    """`if kind is <kind> then <field> has <bound> items`; a lower bound also makes the field required."""
    then: dict[str, Any] = {"properties": {field: bound}}
    if bound.get("minItems"):
        then["required"] = [field]
    return {"if": {"properties": {"kind": {"const": kind}}, "required": ["kind"]}, "then": then}
