"""ALCE citation recall and precision with a table-driven fake NLI: which citations are needed, sufficient or
irrelevant, the entailment threshold, uncited and unknown citations, an NLI that fails, and the per-answer
averages."""

from __future__ import annotations

import pytest

from veriground.backends.fakes import FailingNLIModel, FakeNLIModel
from veriground.evaluation.citation_support import PASSAGE_JOINER, citation_quality, judge_citation_support
from veriground.schema import NLIScores

THRESHOLD = 0.60  # verification.min_entailment_prob
CLAIM = "Merge sort is stable and runs in O(n log n) time."
PASSAGES = {
    "a": "Merge sort is stable.",
    "b": "Merge sort runs in O(n log n) time.",
    "c": "Heaps support insert in O(log n).",
    "d": "Merge sort is stable and runs in O(n log n) time.",
}


def scores(entail: float) -> NLIScores:
    return NLIScores(entail=entail, neutral=1 - entail, contradict=0.0)


def joined(*ids: str) -> str:
    return PASSAGE_JOINER.join(PASSAGES[pid] for pid in ids)


def judge(cited: tuple[str, ...], entailing: dict[tuple[str, ...], float], claim: str = CLAIM):
    """Judge one claim; premises listed in `entailing` get that entailment probability, all others 0.1."""
    nli = FakeNLIModel({(joined(*ids), claim): scores(p) for ids, p in entailing.items()}, scores(0.1))
    [support] = judge_citation_support([(claim, cited)], PASSAGES, nli, THRESHOLD)
    return support, nli


@pytest.mark.parametrize(
    ("cited", "entailing", "entailed", "relevant"),
    [
        # One citation: it counts exactly when it entails the claim.
        (("d",), {("d",): 0.9}, True, ("d",)),
        (("a",), {}, False, ()),
        # Two citations needed together: neither alone entails, and without either the rest does not.
        (("a", "b"), {("a", "b"): 0.9}, True, ("a", "b")),
        # One sufficient citation and one irrelevant one: c alone does not entail and d without c still does.
        (("d", "c"), {("d", "c"): 0.9, ("d",): 0.9}, True, ("d",)),
        # Two citations that each entail alone: both count (each is sufficient by itself).
        (("d", "a"), {("d", "a"): 0.9, ("d",): 0.9, ("a",): 0.9}, True, ("d", "a")),
        # Neither the joined citations nor either alone entails: recall 0 and no citation counts.
        (("a", "c"), {("c",): 0.3}, False, ()),
        # The threshold is inclusive, as in verification: 0.60 entails, 0.59 does not.
        (("d",), {("d",): 0.60}, True, ("d",)),
        (("d",), {("d",): 0.59}, False, ()),
    ],
    ids=[
        "single-entails",
        "single-does-not",
        "both-needed",
        "one-irrelevant",
        "both-sufficient",
        "none-entails",
        "at-threshold",
        "below-threshold",
    ],
)
def test_alce_reading_of_one_claim(cited, entailing, entailed, relevant):
    support, _ = judge(cited, entailing)
    assert (support.entailed, support.relevant_ids, support.cited_ids) == (entailed, relevant, cited)


def test_the_premise_is_the_cited_passages_joined_and_the_claim_the_hypothesis():
    _, nli = judge(("a", "b"), {("a", "b"): 0.9})
    [batch] = nli.calls  # one batched call for the joint premise, each citation alone and each left out
    assert (joined("a", "b"), CLAIM) in batch
    assert {premise for premise, _ in batch} == {joined("a", "b"), PASSAGES["a"], PASSAGES["b"]}
    assert {hypothesis for _, hypothesis in batch} == {CLAIM}


def test_an_uncited_claim_has_recall_zero_and_asks_the_nli_nothing():
    support, nli = judge((), {})
    assert (support.entailed, support.relevant_ids) == (False, ())
    assert nli.calls == []


def test_a_citation_to_an_unknown_passage_adds_no_text_and_never_counts():
    support, _ = judge(("d", "missing"), {("d",): 0.9})
    assert (support.entailed, support.relevant_ids, support.cited_ids) == (True, ("d",), ("d", "missing"))


def test_a_failing_nli_leaves_the_metrics_undefined_with_its_reason():
    [support] = judge_citation_support([(CLAIM, ("d",))], PASSAGES, FailingNLIModel("weights missing"), THRESHOLD)
    assert support.entailed is None and support.reason == "failing-nli.v1: weights missing"
    quality = citation_quality([[{"cited_ids": ["d"], **support.to_json()}]])
    for value in (quality.recall, quality.precision, quality.ungrounded_rate):
        assert value.value is None and "weights missing" in value.reason


def test_a_long_premise_entails_when_its_sentence_about_the_claim_does():
    # A passage is read as the verifier reads it (evidence/units.py): the sentences about the claim, never the whole.
    long_passages = {"long": "Filler sentence about nothing. " * 60 + PASSAGES["d"]}
    window_with_claim = {PASSAGES["d"]}

    class WindowNLI(FakeNLIModel):
        def predict(self, pairs):
            self.calls.append(list(pairs))
            return [scores(0.9 if any(text in premise for text in window_with_claim) else 0.1) for premise, _ in pairs]

    nli = WindowNLI({}, scores(0.1))
    [support] = judge_citation_support([(CLAIM, ("long",))], long_passages, nli, THRESHOLD)
    assert support.entailed is True
    assert PASSAGES["d"] in {premise.strip() for premise, _ in nli.calls[0]}
    assert all(len(premise) < 200 for premise, _ in nli.calls[0])


def test_citation_quality_averages_per_answer_then_over_answers():
    def claim(entailed, cited, relevant):
        return {"cited_ids": cited, "citations_entail": entailed, "relevant_citations": relevant}

    answers = [
        [claim(True, ["a"], ["a"]), claim(False, ["b"], [])],  # recall 1/2, precision 1/2
        [claim(True, ["a", "c"], ["a"])],  # recall 1, precision 1/2
        [claim(False, [], [])],  # cites nothing: recall 0 and, as ALCE scores it, precision 0
        [],  # an abstention: left out
    ]
    quality = citation_quality(answers)
    assert quality.answers == 3 and quality.claims == 4
    assert quality.recall.value == pytest.approx((1 / 2 + 1 + 0) / 3)
    assert quality.precision.value == pytest.approx((1 / 2 + 1 / 2 + 0) / 3)
    assert quality.ungrounded_rate.value == pytest.approx(2 / 4)


def test_citation_quality_of_no_stated_claim_is_undefined_with_a_reason():
    quality = citation_quality([[], []])
    assert quality.recall.value is None and quality.recall.reason == "no answer stated a claim"
