"""Formal errors in the contamination study (issue 17): each formal injector on fixed sentences, the per-domain study
on a small corpus with a folder per domain, and `eval contaminate` printing and writing it."""

from __future__ import annotations

import json

import pytest
from tests.conftest import write_file

from veriground.backends.registry import build_nli
from veriground.cli import main
from veriground.config import load_config
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore
from veriground.errors import ConfigError
from veriground.evaluation.contamination_edits import (
    FORMAL_ERROR_TYPES,
    break_dimension,
    change_bound,
    change_equation,
    change_unnamed_bound,
    push_out_of_range,
)
from veriground.evaluation.contamination_formal import (
    document_folder,
    folder_domain,
    format_formal,
    run_formal_contamination,
)

PHYSICS = """# Energy

The kinetic energy of a moving object is given by KE = 1/2 m v^2 in joules.

Einstein showed that the rest energy of a body is E = mc^2 for any mass.

Newton's second law states that the net force is F = ma for a body of mass m.

Near the surface, objects fall with an acceleration of 9.8 m/s^2 when air resistance is small.

The speed of light in a vacuum is 3.00 × 10^8 m/s according to the tables.

The work done by a constant force along a path is W = Fd for a straight path.
"""
ALGORITHMS = """# Sorting

Each level of the recursion spends O(n) time merging the sorted lists.

Merge sort runs in O(n log n) time on every input of length n.

Quicksort has a worst case running time of O(n^2) on sorted input.

Binary search finds a key in a sorted array in O(log n) time.
"""
POLICY = """# Travel

A trip counts as TDY travel when it lasts a duration of more than 12 hours.

Employees are entitled to 12 weeks of paid parental leave after a birth.
"""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("formal-study")
    write_file(root / "lib" / "physics", "energy.md", PHYSICS)
    write_file(root / "lib" / "algorithms", "sorting.md", ALGORITHMS)
    write_file(root / "lib" / "policy", "leave.md", POLICY)
    config = load_config(None, {"corpus.dir": root / "corpus", "models.nli": "lexical"}, environ={})
    with CorpusStore(root / "corpus", create=True) as store:
        assert not ingest_paths([root / "lib"], store, config.ingest).failed
    return config


@pytest.fixture(scope="module")
def study(corpus):
    with CorpusStore(corpus.corpus.dir, create=False) as store:
        return run_formal_contamination(config=corpus, nli=build_nli(corpus.models), store=store)


# --- injectors -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("injector", "text", "expected"),
    [
        (break_dimension, "The energy is E = mc^2 for a body.", "The energy is E = mc^3 for a body."),
        (break_dimension, "It falls at an acceleration of 9.8 m/s^2.", "It falls at an acceleration of 9.8 kg."),
        (break_dimension, "A crate has a mass of 240 kg in total.", "A crate has a mass of 240 m in total."),
        (change_equation, "Its energy is KE = 1/2 m v^2 always.", "Its energy is KE = 2/2 m v^2 always."),
        (change_equation, "By the law, F = ma for the body.", "By the law, F = 2(ma) for the body."),
        (change_bound, "Merge sort runs in O(n log n) time.", "Merge sort runs in O(n^2) time."),
        (change_bound, "Quicksort is O(n^2) in the worst case.", "Quicksort is O(n log n) in the worst case."),
        (change_unnamed_bound, "These operations take O(log n) time.", "These operations take O(n) time."),
        (push_out_of_range, "The speed of light is 3.00 × 10^8 m/s.", "The speed of light is 30.0 × 10^8 m/s."),
    ],
)  # fmt: skip
def test_each_formal_injector_edits_the_formal_object(injector, text, expected):
    assert injector(text) == expected


@pytest.mark.parametrize(
    ("injector", "text"),
    [
        (break_dimension, "A set is a collection of distinct objects."),
        (break_dimension, "Here a_n = a_{n-1} + 2 for every n."),  # no symbol has a physical dimension
        (change_equation, "In the US, 1 N = 0.225 lb for forces."),  # a value with a unit, not a formula
        (change_bound, "These operations take O(log n) time."),  # no algorithm named: change_unnamed_bound's
        (change_unnamed_bound, "Merge sort runs in O(n log n) time."),
        (change_unnamed_bound, "Let $O(x)$ say that x is odd."),  # a predicate, not a bound
        (push_out_of_range, "The speed of light is 3.0 × 10^9 m/s."),  # already out of range
        (push_out_of_range, "The car moves at 30 m/s."),
    ],
)
def test_a_formal_injector_leaves_text_without_its_object_alone(injector, text):
    assert injector(text) is None


def test_formal_error_types_name_the_issue_17_families():
    names = [error.name for error in FORMAL_ERROR_TYPES]
    assert {"dimension", "equation", "complexity", "out-of-range"} <= set(names)
    assert {error.family for error in FORMAL_ERROR_TYPES} == {"formal"}


# --- the study -------------------------------------------------------------------------------------------------


def test_each_document_gets_the_domain_its_folder_names():
    assert document_folder("lib/physics/energy#0123456789ab") == "lib/physics"
    assert folder_domain("lib/physics", "auto")[0] == "physics"
    assert folder_domain("corpora/open-data-structures", "auto")[0] == "algorithms"
    assert folder_domain("notes", "auto") == ("general", "no folder name or source type points to a domain")
    assert folder_domain("lib/physics", "policy") == ("policy", "--domain")


def test_formal_errors_are_scored_per_domain_and_caught(study):
    assert {folder: name for folder, (name, _) in study.folder_domains.items()} == {
        "lib/algorithms": "algorithms",
        "lib/physics": "physics",
        "lib/policy": "policy",
    }
    physics, algorithms = study.domains["physics"], study.domains["algorithms"]
    assert physics.by_type["dimension"].injected >= 4 and physics.by_type["equation"].injected >= 3
    assert physics.by_type["out-of-range"].injected == 1
    assert algorithms.by_type["complexity"].injected == 3 and algorithms.by_type["complexity-unnamed"].injected == 1
    for domain, error in [("physics", "dimension"), ("physics", "equation"), ("algorithms", "complexity")]:
        score = study.domains[domain].by_type[error]
        assert score.detected == score.injected, (domain, error)
        assert study.domains[domain].by_formal_rule[error] >= 1  # the formal rule fired, not only the NLI
    assert study.domains["all"].false_alarms == 0 and study.domains["all"].clean >= 10


def test_a_policy_sentence_with_a_unit_takes_a_dimension_error(study):
    policy = study.domains["policy"]
    assert policy.clean == 1 and policy.by_type["dimension"].injected == 1  # "a duration of … 12 hours" only


def test_the_study_is_deterministic_and_prints_a_row_per_domain_and_type(corpus, study):
    with CorpusStore(corpus.corpus.dir, create=False) as store:
        again = run_formal_contamination(config=corpus, nli=build_nli(corpus.models), store=store)
    assert again.to_json() == study.to_json()
    table = format_formal(study)
    assert "lib/physics -> physics" in table
    for domain in ("physics", "algorithms", "policy", "all"):
        assert f"\n{domain:<14} clean (false alarms)" in table


def test_a_forced_domain_applies_to_every_document(corpus):
    with CorpusStore(corpus.corpus.dir, create=False) as store:
        result = run_formal_contamination(
            config=corpus, nli=build_nli(corpus.models), store=store, domain="general", max_per_domain=2
        )
    assert set(result.domains) == {"general", "all"} and result.domains["general"].clean <= 2


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"domain": "chemistry"}, "--domain must be auto or one of general, physics"),
        ({"max_per_domain": 0}, "--max-formal-claims must be at least 1, got 0"),
    ],
)
def test_bad_study_options_are_config_errors(corpus, kwargs, message):
    with CorpusStore(corpus.corpus.dir, create=False) as store, pytest.raises(ConfigError, match=message):
        run_formal_contamination(config=corpus, nli=build_nli(corpus.models), store=store, **kwargs)


# --- the command -----------------------------------------------------------------------------------------------


def test_eval_contaminate_prints_and_writes_the_formal_study(corpus, capsys):
    argv = ["eval", "contaminate", "--corpus", str(corpus.corpus.dir), "--nli", "lexical", "--rates", "0.2"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "formal errors: " in out and "physics        dimension" in out
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["formal"]["domains"]) == {"algorithms", "physics", "policy", "all"}
    assert main([*argv, "--no-formal", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["formal"] is None


def test_eval_contaminate_bad_domain_is_one_line(capsys):
    assert main(["eval", "contaminate", "--nli", "lexical", "--domain", "chemistry"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: --domain must be auto or one of") and err.count("\n") == 1
