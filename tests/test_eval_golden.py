"""Golden sets: the shipped demo set against a freshly ingested demo corpus, every bad-input message, the JSON
Schema of a row."""

from __future__ import annotations

import json
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

from veriground.config import load_config
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore
from veriground.errors import InputFileError
from veriground.evaluation.golden import (
    check_golden_against_corpus,
    demo_golden_path,
    golden_domain,
    golden_json_schema,
    read_golden,
)
from veriground.schema import GoldenQuery

MIN_ROWS = 48
MIN_PER_KIND = {"answerable": 28, "unanswerable": 12, "contradiction": 8}
DEV_SHARE = (0.3, 0.5)  # about 40 % dev, 60 % test
DOMAINS = ("physics", "discrete-math", "algorithms", "policy")
MIN_ANSWERABLE_PER_DOMAIN = 6
NOTE_LABELS = (*DOMAINS, "off-topic", "algorithms vs discrete-math")
GOOD_ROW = {
    "query_id": "q1",
    "query": "What is kinetic energy?",
    "split": "dev",
    "kind": "answerable",
    "gold_paragraph_ids": ["demo_corpus/physics/work-energy-theorem#ed1f0b6b11c4"],
}


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory):
    corpus = tmp_path_factory.mktemp("golden") / "corpus"
    with (
        resources.as_file(resources.files("veriground") / "demo_corpus") as root,
        CorpusStore(corpus, create=True) as store,
    ):
        assert not ingest_paths([root], store, load_config(None, environ={}).ingest).failed
    with CorpusStore(corpus, create=False) as store:
        yield store


@pytest.fixture(scope="module")
def demo_set() -> list[GoldenQuery]:
    return read_golden(demo_golden_path())


def domains_of(query: GoldenQuery) -> set[str]:
    """The demo-corpus folders its ids point into (`demo_corpus/<folder>/<doc>#<hash>`)."""
    return {passage_id.split("/")[1] for passage_id in (*query.gold_paragraph_ids, *query.conflicting_ids)}


# --- the shipped demo set ---------------------------------------------------------------------------


def test_demo_set_ships_outside_the_ingested_demo_corpus(demo_set):
    path = demo_golden_path()
    assert path.name == "demo_golden.jsonl" and path.is_file()
    assert "demo_corpus" not in Path(str(path)).parts
    assert len(demo_set) >= MIN_ROWS


def test_every_demo_id_exists_in_a_freshly_ingested_demo_corpus(demo_set, demo_store):
    assert check_golden_against_corpus(demo_set, demo_store) == []


def test_demo_set_meets_the_minimum_per_kind_and_split(demo_set):
    kinds = Counter(query.kind for query in demo_set)
    for kind, minimum in MIN_PER_KIND.items():
        assert kinds[kind] >= minimum, (kind, kinds)
        assert {query.split for query in demo_set if query.kind == kind} == {"dev", "test"}
    dev_share = sum(query.split == "dev" for query in demo_set) / len(demo_set)
    assert DEV_SHARE[0] <= dev_share <= DEV_SHARE[1]


def test_demo_answerable_queries_cover_every_domain_in_both_splits(demo_set):
    answerable = [query for query in demo_set if query.kind == "answerable"]
    for domain in DOMAINS:
        rows = [query for query in answerable if domains_of(query) == {domain}]
        assert len(rows) >= MIN_ANSWERABLE_PER_DOMAIN, domain
        assert {query.split for query in rows} == {"dev", "test"}, domain


def test_demo_query_ids_are_unique_and_sequential(demo_set):
    assert [query.query_id for query in demo_set] == [f"g{number:03d}" for number in range(1, len(demo_set) + 1)]


def test_every_demo_row_explains_itself(demo_set):
    for query in demo_set:
        label = (query.note or "").split(":")[0]
        assert label in NOTE_LABELS, query.query_id
        if query.kind != "unanswerable":
            assert query.reference_answer, query.query_id
            assert set(label.split(" vs ")) == domains_of(query), query.query_id
        else:
            assert not query.conflicting_ids and query.reference_answer is None, query.query_id


def test_every_demo_row_has_a_domain_read_from_its_note(demo_set):
    domains = Counter(golden_domain(query) for query in demo_set)
    assert set(domains) == {
        "physics",
        "discrete_math",
        "algorithms",
        "policy",
        "off_topic",
        "algorithms_vs_discrete_math",
    }
    assert golden_domain(GoldenQuery(**GOOD_ROW)) == "unlabelled"
    assert golden_domain(GoldenQuery(**GOOD_ROW, note="discrete-math: why")) == "discrete_math"


def test_each_domain_has_formal_items_in_both_splits(demo_set):
    formal = [query for query in demo_set if "formal (" in (query.note or "")]
    for domain in ("physics", "discrete_math", "algorithms", "policy"):
        rows = [query for query in formal if golden_domain(query) == domain]
        assert len(rows) >= 2 and all(query.kind == "answerable" for query in rows), domain
        assert {query.split for query in rows} == {"dev", "test"}, domain


def test_a_missing_passage_id_is_reported_with_its_query_and_field(demo_store):
    queries = [
        GoldenQuery(**GOOD_ROW),
        GoldenQuery(
            query_id="q2",
            query="Do these disagree?",
            split="test",
            kind="contradiction",
            conflicting_ids=["demo_corpus/physics/work-energy-theorem#ed1f0b6b11c4", "nowhere#000000000000"],
        ),
    ]
    problems = check_golden_against_corpus(queries, demo_store)
    assert len(problems) == 1
    assert problems[0].startswith("q2: conflicting_ids names 'nowhere#000000000000', which the corpus does not hold")


# --- bad input ----------------------------------------------------------------------------------


def row(**changes: object) -> str:
    return json.dumps({**GOOD_ROW, **changes}, ensure_ascii=False)


def without(field: str) -> str:
    return json.dumps({key: value for key, value in GOOD_ROW.items() if key != field})


BAD_FILES = {
    "bad-json": (row() + "\n" + '{"query_id": "q2",', "line 2: not valid JSON: Expecting property name"),
    "not-an-object": ("[1, 2]", "line 1: expected a JSON object, got list"),
    "unknown-field": (row(gold_ids=["x#1"]), "line 1 (query_id 'q1'): unknown field 'gold_ids'"),
    "missing-field": (without("split"), "line 1 (query_id 'q1'): missing field 'split'"),
    "wrong-kind": (
        row(kind="factoid"),
        "line 1 (query_id 'q1'): field 'kind': Input should be 'answerable', 'unanswerable' or 'contradiction', "
        "got 'factoid'",
    ),
    "wrong-split": (row(split="train"), "field 'split': Input should be 'dev' or 'test', got 'train'"),
    "no-gold-ids": (row(gold_paragraph_ids=[]), "line 1 (query_id 'q1'): an answerable query needs gold_paragraph_ids"),
    "one-conflicting-id": (
        row(kind="contradiction", gold_paragraph_ids=[], conflicting_ids=["a#1", "a#1"]),
        "line 1 (query_id 'q1'): a contradiction probe needs at least 2 distinct conflicting_ids",
    ),
    "gold-on-unanswerable": (
        row(kind="unanswerable"),
        "line 1 (query_id 'q1'): an unanswerable query must not have gold_paragraph_ids",
    ),
    "duplicate-query-id": (row() + "\n\n" + row(), "line 3: duplicate query_id 'q1' (first on line 1)"),
    "empty": ("\n\n", "the golden set has no queries (write one JSON object per line)"),
}


@pytest.mark.parametrize("case", BAD_FILES)
def test_bad_golden_file_names_file_line_and_field(tmp_path, case):
    content, fragment = BAD_FILES[case]
    path = tmp_path / f"{case}.jsonl"
    path.write_text(content + "\n", encoding="utf-8")
    with pytest.raises(InputFileError) as raised:
        read_golden(path)
    assert str(raised.value).startswith(f"{path}: ")
    assert fragment in str(raised.value)


def test_kind_rule_errors_say_how_to_fix_the_row(tmp_path):
    path = tmp_path / "golden.jsonl"
    path.write_text(row(gold_paragraph_ids=[]) + "\n", encoding="utf-8")
    with pytest.raises(InputFileError, match=r"answerable rows need gold_paragraph_ids.*fix the ids or the kind"):
        read_golden(path)


def test_unreadable_and_non_utf8_golden_files_are_named(tmp_path):
    with pytest.raises(InputFileError, match="cannot read the golden set: No such file or directory"):
        read_golden(tmp_path / "absent.jsonl")
    latin1 = tmp_path / "latin1.jsonl"
    latin1.write_bytes(row(query="Was kostet die Überfahrt?").encode("latin-1"))
    with pytest.raises(InputFileError, match=r"not UTF-8 \(byte 0xdc at offset \d+\) \(save it as UTF-8\)"):
        read_golden(latin1)


def test_read_golden_accepts_a_string_path_and_skips_blank_lines(tmp_path):
    path = tmp_path / "golden.jsonl"
    path.write_text("\n" + row() + "\n\n" + row(query_id="q2", kind="unanswerable", gold_paragraph_ids=[]) + "\n")
    assert [query.query_id for query in read_golden(str(path))] == ["q1", "q2"]


# --- JSON Schema --------------------------------------------------------------------------------


def schema_problems(schema: dict, data: dict) -> list[str]:
    """The checks this schema uses, by hand (no jsonschema dependency): required and allowed keys, enums,
    string lengths, and the per-kind if/then item counts."""
    properties = schema["properties"]
    problems = [f"missing {key}" for key in schema["required"] if key not in data]
    problems += [f"unknown {key}" for key in data if key not in properties and schema["additionalProperties"] is False]
    for key, value in data.items():
        spec = properties.get(key, {})
        if "enum" in spec and value not in spec["enum"]:
            problems.append(f"{key} not in enum")
        if spec.get("type") == "string" and len(value) < spec.get("minLength", 0):
            problems.append(f"{key} too short")
    for clause in schema["allOf"]:
        if data.get("kind") != clause["if"]["properties"]["kind"]["const"]:
            continue
        then = clause["then"]
        problems += [f"{data['kind']} needs {key}" for key in then.get("required", []) if key not in data]
        for key, bound in then["properties"].items():
            count = len(data.get(key, []))
            if count < bound.get("minItems", 0) or count > bound.get("maxItems", count):
                problems.append(f"{data['kind']}: {key} has {count} items")
    return problems


def test_json_schema_describes_one_row():
    schema = golden_json_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["required"] == ["query_id", "query", "split", "kind"]
    assert set(schema["properties"]) == set(GoldenQuery.model_fields)
    assert "distinct conflicting_ids" in schema["description"]


def test_json_schema_accepts_a_good_row_and_every_demo_row(demo_set):
    schema = golden_json_schema()
    good = {key: GOOD_ROW[key] for key in schema["required"]} | {"gold_paragraph_ids": GOOD_ROW["gold_paragraph_ids"]}
    assert schema_problems(schema, good) == []
    for query in demo_set:
        assert schema_problems(schema, query.model_dump(mode="json", exclude_defaults=True)) == [], query.query_id


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"gold_ids": []}, "unknown gold_ids"),
        ({"kind": "factoid"}, "kind not in enum"),
        ({"gold_paragraph_ids": []}, "answerable: gold_paragraph_ids has 0 items"),
        ({"kind": "contradiction", "conflicting_ids": ["a#1"]}, "contradiction: conflicting_ids has 1 items"),
        ({"kind": "unanswerable"}, "unanswerable: gold_paragraph_ids has 1 items"),
    ],
)
def test_json_schema_rejects_what_read_golden_rejects(changes, problem):
    assert problem in schema_problems(golden_json_schema(), {**GOOD_ROW, **changes})
