"""compute_coverage: entity, number and content-word coverage of a claim by its evidence."""

from __future__ import annotations

import pytest

from veriground.schema import SignalStatus
from veriground.signals.coverage import compute_coverage, extract_entities, mentions_entity

NEWTON = "Newton's second law states that the net force on a body equals its mass times its acceleration, F = ma."
QUICKSORT = "Quicksort has a worst-case running time of O(n^2) and an average case of O(n log n)."


@pytest.mark.parametrize(
    ("text", "entities"),
    [
        ("Einstein's equation: E = mc³", ["Einstein", "E = mc^3"]),
        ("Quicksort has a worst-case running time of O(n^2).", ["worst-case", "O(n^2)"]),
        ("The displacement Δx depends on v_0 and λ.", ["Δx", "v_0", "λ"]),
        ("The FMLA covers employees of the City of Boston.", ["FMLA", "City of Boston"]),
        ("Objects in free fall accelerate at 9.8 m/s².", []),
        ("A QuickSort call on BM25 scores is fast.", ["QuickSort", "BM25"]),
    ],
)
def test_entities_are_extracted_as_documented(text: str, entities: list[str]):
    assert extract_entities(text) == entities


def test_symbols_match_case_sensitively_and_phrases_do_not():
    assert mentions_entity("the force F acts on m", "F")
    assert not mentions_entity("the force f acts", "F")
    assert mentions_entity("the WORST CASE is quadratic", "worst-case")
    assert mentions_entity("E=mc^2 holds", "E = mc^2")
    assert not mentions_entity("E = mc^2 holds", "E = mc^3")


def test_supported_claim_is_fully_covered():
    signal = compute_coverage("Newton's second law is F = ma.", [NEWTON])
    assert signal.status == SignalStatus.COMPUTED
    assert (signal.entity_coverage, signal.token_coverage, signal.missing_terms) == (1.0, 1.0, ())
    assert signal.number_coverage is None  # no numbers in the claim: that part is not applicable
    assert 0 < signal.jaccard < 1


def test_seed_t4_wrong_exponent_is_a_missing_entity():
    signal = compute_coverage("Einstein's equation: E = mc³", ["Einstein showed that E = mc²."])
    assert signal.entity_coverage == 0.5
    assert "E = mc^3" in signal.missing_terms


def test_seed_t1_wrong_number_lowers_number_coverage():
    signal = compute_coverage(
        "The speed of light in vacuum is 3.0 × 10⁹ m/s.", ["The speed of light in vacuum is 3.0 × 10⁸ m/s."]
    )
    assert (signal.number_coverage, signal.token_coverage) == (0.0, 1.0)
    assert signal.missing_terms == ("3.0e9 m/s",)


def test_number_in_another_unit_counts_as_covered():
    signal = compute_coverage("g is 980 cm/s^2 near the surface.", ["Near the surface g = 9.8 m/s²."])
    assert signal.number_coverage == 1.0


def test_antonym_claim_misses_its_term():
    signal = compute_coverage("Quicksort has a best-case running time of O(n^2).", [QUICKSORT])
    assert signal.entity_coverage == pytest.approx(0.5)  # best-case missing, O(n^2) found
    assert signal.missing_terms[:1] == ("best-case",)


def test_coverage_uses_all_passages_and_jaccard_the_best_one():
    passages = ["Quicksort picks a pivot.", "Its worst-case running time is quadratic."]
    signal = compute_coverage("Quicksort has a quadratic worst-case running time.", passages)
    assert signal.token_coverage == 1.0
    assert signal.jaccard == pytest.approx(5 / 6)  # worst, case, run, time, quadrat vs the second passage


def test_no_evidence_is_not_applicable():
    signal = compute_coverage("Quicksort is fast.", ["", "   "])
    assert (signal.status, signal.reason) == (SignalStatus.NOT_APPLICABLE, "no evidence")
    assert compute_coverage("Quicksort is fast.", []).status == SignalStatus.NOT_APPLICABLE


def test_claim_of_only_stopwords_is_not_applicable():
    signal = compute_coverage("It is what it is.", [NEWTON])
    assert (signal.status, signal.reason) == (SignalStatus.NOT_APPLICABLE, "claim has no content terms")


@pytest.mark.parametrize("claim", ["", "42", "the of", "[1]", "Δ", "O(1)", "$5", "x" * 2000, "E = = mc"])
@pytest.mark.parametrize("evidence", ["", "42", "the", "E = mc^2", NEWTON])
def test_values_are_always_in_range(claim: str, evidence: str):
    signal = compute_coverage(claim, [evidence])
    for value in (signal.entity_coverage, signal.number_coverage, signal.token_coverage, signal.jaccard):
        assert value is None or 0.0 <= value <= 1.0


def test_a_number_never_takes_its_unit_from_the_next_passage():
    signal = compute_coverage("The rod is 2 m long.", ["The rod in Section 2", "m is long, said Figure 3"])
    assert signal.number_coverage == 0.0
    assert compute_coverage("The rod is 2 m long.", ["The rod is 2 m long."]).number_coverage == 1.0
