"""Synthetic contamination (seed 000 §6.1): each error injector on fixed sentences, the seeded contamination of a
claim set, and a small end-to-end run on the demo corpus with the lexical NLI."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import pytest

from veriground.backends.registry import build_nli
from veriground.config import load_config
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore
from veriground.errors import ConfigError
from veriground.evaluation.contamination import (
    CleanClaim,
    build_clean_claims,
    contaminate,
    detect_error,
    format_contamination,
    run_contamination,
)
from veriground.evaluation.contamination_edits import (
    ERROR_TYPES,
    OUT_OF_SCOPE_CLAIMS,
    TERM_SWAPS,
    change_constant,
    change_unit,
    flip_sign,
    misattribute,
    replace_out_of_scope,
    swap_terms,
    toggle_negation,
)

NUMBER = re.compile(r"\d+(?:\.\d+)?")


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    corpus = tmp_path_factory.mktemp("contamination") / "corpus"
    config = load_config(None, {"corpus.dir": corpus}, environ={})
    with (
        resources.as_file(resources.files("veriground") / "demo_corpus") as root,
        CorpusStore(corpus, create=True) as store,
    ):
        assert not ingest_paths([root], store, config.ingest).failed
        yield config, build_nli(config.models), store


def demo_text() -> str:
    root = resources.files("veriground") / "demo_corpus"
    with resources.as_file(root) as folder:
        return "\n".join(path.read_text(encoding="utf-8") for path in Path(folder).rglob("*") if path.is_file())


# --- injectors -------------------------------------------------------------------------------------------------


def test_change_constant_changes_the_number_and_nothing_else():
    text = "The ball falls 9.80 m in the first second."
    edited = change_constant(text)
    assert edited is not None and edited != text
    assert NUMBER.findall(edited) != NUMBER.findall(text)
    assert edited.replace(NUMBER.search(edited).group(0), "9.80") == text
    assert change_constant("Velocity is the rate of change of displacement.") is None
    assert change_constant("The vertices of $G_1$ map to those of $G_2$.") is None  # subscripts are not constants


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The record is a little over 3 s today.", "The record is a little over 3 ms today."),
        ("It moves at 13.0 m/s at the end.", "It moves at 13.0 km/h at the end."),
        ("The crate has a mass of 240 kg in total.", "The crate has a mass of 240 g in total."),
        ("The race lasts about four seconds.", "The race lasts about four milliseconds."),
    ],
)
def test_change_unit_swaps_the_unit_but_keeps_the_value(text, expected):
    assert change_unit(text) == expected


def test_change_unit_needs_a_unit():
    assert change_unit("Merge sort splits the list into two halves.") is None
    assert change_unit("There are 3 sets in the example.") is None  # "s" only counts right after a number


def test_flip_sign():
    assert flip_sign("The acceleration is −9.8 m/s^2 downward.") == "The acceleration is 9.8 m/s^2 downward."
    assert flip_sign("We call this the positive direction.") == "We call this the negative direction."
    assert flip_sign("The car covers 402 m in total.") == "The car covers −402 m in total."
    assert flip_sign("A graph is a set of vertices and edges.") is None


def test_swap_terms_swaps_both_ways_and_keeps_case():
    assert swap_terms("Velocity is the rate of change.") == "Acceleration is the rate of change."
    assert swap_terms("Each edge joins two vertices.") == "Each vertex joins two edges."
    assert swap_terms("Merge sort is stable; quicksort is not.") == "Quicksort is stable; mergesort is not."
    assert swap_terms("The policy covers overtime pay.") is None


def test_swapped_terms_all_occur_in_the_demo_corpus():
    text = demo_text().lower().replace("-", " ")
    missing = [term for pair in TERM_SWAPS for term in pair if term not in text]
    assert not missing


def test_toggle_negation_inserts_or_removes_not():
    assert toggle_negation("Speed is a scalar quantity.") == "Speed is not a scalar quantity."
    assert toggle_negation("Speed is not a vector quantity.") == "Speed is a vector quantity."
    assert toggle_negation("A tree cannot have a cycle.") == "A tree can have a cycle."
    assert toggle_negation("Friction opposes the thrust of the engine.") is None


def test_misattribute_names_a_different_result():
    assert misattribute("By Newton’s second law, F = ma.") == "By Newton’s third law, F = ma."
    assert misattribute("The work–energy theorem relates work and speed.") == (
        "The Pythagorean theorem relates work and speed."
    )
    assert misattribute("The handshake lemma counts degrees.") == "The pigeonhole principle counts degrees."
    assert misattribute("Velocity is the rate of change of position.") is None


def test_out_of_scope_claims_are_off_the_corpus_and_deterministic():
    text = "Speed is the rate at which an object changes its location."
    assert replace_out_of_scope(text) == replace_out_of_scope(text) in OUT_OF_SCOPE_CLAIMS
    assert len(set(OUT_OF_SCOPE_CLAIMS)) >= 20
    corpus = demo_text().lower()
    assert not [claim for claim in OUT_OF_SCOPE_CLAIMS if claim.lower().rstrip(".") in corpus]


# --- contaminating a claim set -----------------------------------------------------------------------------


def fake_claims(n: int) -> list[CleanClaim]:
    sentences = (
        "The car is at 13.0 m/s after 2.00 s of acceleration.",
        "By Newton’s second law, the net force is mass times acceleration.",
        "Each edge of the graph joins two vertices.",
        "Speed is a scalar quantity.",
    )
    return [CleanClaim(f"c{i}", sentences[i % 4], f"doc#{i}", sentences[i % 4]) for i in range(n)]


@pytest.mark.parametrize("rate", [0.1, 0.2, 0.3])
def test_contaminate_respects_the_rate_and_spreads_the_errors(rate):
    claims = fake_claims(90)
    contaminated = contaminate(claims, rate, seed=0)
    wrong = [c for c in contaminated if c.contaminated]
    assert abs(len(wrong) - rate * len(claims)) <= 1
    assert [c.claim for c in contaminated] == claims
    assert all(c.text != c.claim.text for c in wrong)
    assert all(c.text == c.claim.text for c in contaminated if not c.contaminated)
    families = {c.family for c in wrong}
    assert families == {"numeric", "conceptual", "out-of-scope"}


def test_contaminate_is_deterministic_for_a_seed():
    claims = fake_claims(60)
    assert contaminate(claims, 0.3, seed=1) == contaminate(claims, 0.3, seed=1)
    assert contaminate(claims, 0.3, seed=1) != contaminate(claims, 0.3, seed=2)


def test_contaminate_rejects_a_rate_outside_0_1():
    with pytest.raises(ConfigError, match=r"rate must be between 0 and 1, got 1.5"):
        contaminate(fake_claims(10), 1.5)


# --- end to end -------------------------------------------------------------------------------------------


def test_clean_claims_are_verified_against_their_own_passage(demo):
    config, nli, store = demo
    claims = build_clean_claims(store, config=config, nli=nli, max_claims=20)
    assert len(claims) == 20
    for claim in claims:
        assert claim.text in " ".join(claim.passage_text.split())
        assert not detect_error(claim.text, claim.passage_id, claim.passage_text, config=config, nli=nli)


def test_run_detects_numeric_and_out_of_scope_errors_above_the_false_alarm_rate(demo):
    config, nli, store = demo
    result = run_contamination(config=config, nli=nli, store=store, max_claims=60)
    assert result.clean_claims == 60 and [r.rate for r in result.rates] == [0.1, 0.2, 0.3]
    at_30 = result.rates[-1]
    assert at_30.contaminated == 18
    false_alarms = at_30.false_alarm_rate.value
    numeric = at_30.by_family["numeric"]
    assert numeric.injected >= 4 and numeric.detection.recall.value >= 0.5 > false_alarms
    assert at_30.by_family["out-of-scope"].detection.recall.value > false_alarms
    assert set(at_30.by_type) == {error.name for error in ERROR_TYPES}
    table = format_contamination(result)
    assert "60 clean claims" in table and "out-of-scope" in table and "clean (false alarms)" in table


def test_run_is_deterministic(demo):
    config, nli, store = demo
    first = run_contamination(config=config, nli=nli, store=store, rates=(0.2,), max_claims=30, seed=3)
    second = run_contamination(config=config, nli=nli, store=store, rates=(0.2,), max_claims=30, seed=3)
    assert first.to_json() == second.to_json()
    assert format_contamination(first) == format_contamination(second)
