"""Issue 17's table through `veriground verify`: formal checks decide through the rule table (rule formal-mismatch,
with the reason and spans in the report), and true statements are never flagged by them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import write_file

from veriground.cli import main

FACTS = """# Facts

Mass and energy are equivalent: E = mc^2, where c is the speed of light.

Near Earth's surface, objects fall with an acceleration g = 9.8 m/s^2.

Quicksort runs in O(n log n) time on average, but its worst case is O(n^2).

Merge sort runs in O(n log n) time.

The kinetic energy of a moving object is KE = 1/2 m v^2.
"""
WRONG = [
    ("E = mc^3.", "dimensions"),
    ("Objects fall with an acceleration of 9.8 kg.", "unit_dimension"),
    ("Quicksort has worst-case time complexity O(n log n).", "complexity"),
    ("KE = 1/2 m v^3.", "equation"),
    ("The speed of light is 3.0 × 10^9 m/s.", "constants"),
]
TRUE = ["E = mc^2.", "KE = 1/2 m v^2.", "Merge sort runs in O(n log n) time.", "Quicksort's worst case is O(n^2).",
        "Objects fall with an acceleration of 980 cm/s^2."]  # fmt: skip


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("formal")
    write_file(root / "lib" / "physics", "facts.md", FACTS)
    assert main(["ingest", str(root / "lib"), "--corpus", str(root / "corpus")]) == 0
    return root / "corpus"


def verify(corpus: Path, text: str, capsys, tmp_path: Path, *extra: str) -> dict:
    notes = write_file(tmp_path, "notes.md", text + "\n")
    capsys.readouterr()
    assert main(["verify", str(notes), "--corpus", str(corpus), "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(("claim", "check"), WRONG, ids=[check for _, check in WRONG])
def test_each_formal_error_is_contradictory_with_its_rule_reason_and_span(corpus, capsys, tmp_path, claim, check):
    [item] = verify(corpus, claim, capsys, tmp_path)["claims"]
    assert (item["decision"]["status"], item["decision"]["rule"]) == ("Contradictory", "formal-mismatch")
    failed = [found for found in item["signals"]["formal"]["checks"] if found["outcome"] != "ok"]
    assert check in {found["check"] for found in failed}
    start, end = failed[0]["claim_span"]
    assert 0 <= start < end <= len(item["claim"]["text"])
    assert failed[0]["reason"] in item["decision"]["rationale"]


@pytest.mark.parametrize("claim", TRUE)
def test_true_statements_are_never_flagged_by_the_formal_checks(corpus, capsys, tmp_path, claim):
    for item in verify(corpus, claim, capsys, tmp_path, "--domain", "physics")["claims"]:
        formal = item["signals"]["formal"]
        assert all(found["outcome"] == "ok" for found in formal["checks"]), formal
        assert item["decision"]["rule"] != "formal-mismatch"


def test_an_unknown_domain_names_the_valid_ones(corpus, capsys, tmp_path):
    notes = write_file(tmp_path, "notes.md", "E = mc^2.\n")
    assert main(["verify", str(notes), "--corpus", str(corpus), "--domain", "chemistry"]) != 0
    assert "physics" in capsys.readouterr().err


@pytest.mark.parametrize("domain", ["general", "physics"])
def test_an_equation_that_does_not_parse_is_an_unparsed_signal_never_a_crash_or_a_verdict(
    corpus, capsys, tmp_path, domain
):
    text = "The kinetic energy is KE = \\weird{m} v^2.\nE = mc^"
    claims = verify(corpus, text, capsys, tmp_path, "--domain", domain)["claims"]
    assert len(claims) == 2
    for item, named in zip(claims, ["\\weird", "cannot read 'mc^'"], strict=True):
        formal = item["signals"]["formal"]
        assert (formal["status"], formal["checks"]) == ("unparsed", [])
        assert named in formal["reason"] and formal["unparsed"] == [formal["reason"]]
        assert item["decision"]["rule"] != "formal-mismatch"  # the verdict comes from the other signals
        assert formal["reason"] not in item["decision"]["rationale"]
        gates = [hook["outcome"] for hook in item["signals"]["profile"] if hook["hook"] == "quality_gate"]
        assert ("equation_unparsed" in gates) == (domain == "physics")  # require_equations: a gate, still no verdict


def test_a_bare_delta_before_a_bracket_is_verified_not_an_internal_error(corpus, capsys, tmp_path):
    # OpenStax 09_momentum: "since Δp=Δ(mv)" once crashed the dependency checker's symbol reader.
    [item] = verify(corpus, "Newton's second law applies when mass varies, since Δp=Δ(mv).", capsys, tmp_path)["claims"]
    assert item["decision"]["status"]


def test_a_claim_whose_equation_the_source_gives_is_supported_by_equation_match(corpus, capsys, tmp_path):
    # The words around the equation are the claim's own; the NLI reads the equation as letters and finds too little.
    text = "For a body of mass m moving at speed v, the energy of motion is KE = 1/2 m v^2."
    [item] = verify(corpus, text, capsys, tmp_path, "--min-supporting-sources", "1")["claims"]
    assert (item["decision"]["status"], item["decision"]["rule"]) == ("Supported", "formal-match")
    assert "give(s) every equation (the same for the same left side)" in item["decision"]["rationale"]
    assert item["decision"]["explanation"].startswith("The source gives the same equation:")
    [equation] = [found for found in item["signals"]["formal"]["checks"] if found["check"] == "equation"]
    assert equation["outcome"] == "ok" and equation["evidence_value"] == "KE = 1/2 m v^2"


@pytest.mark.parametrize("claim", ["The momentum of a body is p = m v.", "KE = 1/2 m v^3."])
def test_an_equation_the_source_does_not_give_is_no_equation_match(corpus, capsys, tmp_path, claim):
    [item] = verify(corpus, claim, capsys, tmp_path, "--min-supporting-sources", "1")["claims"]
    assert item["decision"]["rule"] != "formal-match"


HEAPS = r"""# Heaps

The merge(h1,h2) operation of a meldable heap runs in $O(\log n)$ expected time.
"""
SORTING = r"""# Sorting

Therefore, the total amount of time taken by merge-sort is $\sum_{i=0}^{\log n} O(n) = O(n\log n)$.
"""


@pytest.fixture(scope="module")
def sorting_corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("sorting")
    write_file(root / "lib" / "algorithms", "heaps.md", HEAPS)
    write_file(root / "lib" / "algorithms", "sorting.md", SORTING)
    assert main(["ingest", str(root / "lib"), "--corpus", str(root / "corpus")]) == 0
    return root / "corpus"


def test_a_bound_the_source_gives_for_the_same_algorithm_is_a_formal_match(sorting_corpus, capsys, tmp_path):
    # The NLI reads "sum_i O(n) = O(n log n)" as letters; the bound for merge-sort is what decides, and the passage
    # cited is the one about merge-sort, not the heap's merge operation that shares the words "merge" and "runs in".
    [item] = verify(
        sorting_corpus, "Merge sort runs in O(n log n) time.", capsys, tmp_path, "--min-supporting-sources", "1"
    )["claims"]
    assert (item["decision"]["status"], item["decision"]["rule"]) == ("Supported", "formal-match")
    [passage] = item["inputs"]["formal_match_passages"]
    assert passage == item["decision"]["primary_evidence"] and passage.startswith("lib/algorithms/sorting#")
    [check] = [found for found in item["signals"]["formal"]["checks"] if found["check"] == "complexity"]
    assert check["outcome"] == "ok" and check["evidence_value"] == "O(n log n)"
    assert item["decision"]["explanation"].startswith("The source gives the same complexity bound:")


@pytest.mark.parametrize(
    "claim",
    [
        "Merge sort runs in O(n log n) time on linked lists stored on tape.",  # words the passage lacks
        "Merge sort runs in O(n^2) time.",  # another bound
        "Insertion sort runs in O(n log n) time.",  # another algorithm
        "Merge sort does not run in O(n log n) time.",  # the bound matches; the claim denies it
    ],
)
def test_a_bound_claim_saying_more_or_otherwise_is_no_formal_match(sorting_corpus, capsys, tmp_path, claim):
    [item] = verify(sorting_corpus, claim, capsys, tmp_path, "--min-supporting-sources", "1")["claims"]
    assert item["decision"]["rule"] != "formal-match"
