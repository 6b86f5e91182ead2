"""The verification engine over an evidence pack with fake NLI backends (no corpus, no model): independent
sources, NLI failure, evidence-vs-evidence conflicts under both policies, evidence span offsets, and the
flag-and-suppress rewrite of the answer.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

import pytest

from veriground.backends.fakes import FailingNLIModel, FakeNLIModel
from veriground.config import Config, VerificationConfig
from veriground.engine import verify_text
from veriground.errors import BackendError
from veriground.evidence.gather import PackEvidence
from veriground.mitigation.rewrite import ClaimOutcome, rewrite_answer
from veriground.schema import (
    Claim,
    ClaimDecision,
    DecisionConfidence,
    EvidenceChunk,
    EvidencePack,
    NLIScores,
    PackPassage,
    RejectionReason,
    SignalStatus,
    VerificationReport,
    VerificationStatus,
)

ENTAILS = NLIScores(entail=0.9, neutral=0.1, contradict=0.0)
NEUTRAL = NLIScores(entail=0.1, neutral=0.9, contradict=0.0)
CONTRADICTS = NLIScores(entail=0.0, neutral=0.1, contradict=0.9)
WEAKLY_CONTRADICTS = NLIScores(entail=0.0, neutral=0.55, contradict=0.45)

CLAIM = "Merge sort is stable."
STABLE = "Merge sort is stable."  # the evidence sentences that disagree
NOT_STABLE = "Merge sort is not stable."
BOOK_TEXT = "Sorting keeps records with equal keys in order. " + STABLE
BLOG_TEXT = "Some variants trade memory for speed. " + NOT_STABLE


def pack(*passages: tuple[str, str, str | None]) -> EvidencePack:
    """(passage_id, text, source_id) per passage."""
    return EvidencePack(
        passages=tuple(
            PackPassage(passage_id=passage_id, text=text, source_id=source) for passage_id, text, source in passages
        )
    )


# Seed 000's decision tree (the fakes' probabilities are raw NLI probabilities; no aggregator is fitted for them).
SEED = {"min_supporting_sources": 2}


def run(
    text: str, evidence: EvidencePack, nli, config: Config | None = None
) -> tuple[VerificationReport, PackEvidence]:
    config = config or Config(verification=VerificationConfig(**SEED))
    source = PackEvidence(evidence, config.retrieval)
    return verify_text(text, config=config, source=source, nli=nli), source


def policy(name: str) -> Config:
    return Config(verification=VerificationConfig(contradiction_policy=name, **SEED))


def verdict(report: VerificationReport, index: int = 0) -> tuple[str, str, str]:
    decision = report.claims[index].decision
    return decision.status, decision.rule, decision.reason.value


def floats_in(value) -> list[float]:
    if isinstance(value, dict):
        return [number for item in value.values() for number in floats_in(item)]
    if isinstance(value, list):
        return [number for item in value for number in floats_in(item)]
    return [value] if isinstance(value, float) else []


# --- independent sources ---------------------------------------------------------------------------------


def test_two_independent_sources_that_entail_make_a_claim_supported():
    evidence = pack(("book/a#1", "Merge sort is stable and fast.", "knuth"), ("notes/b#2", STABLE, "lecture"))
    nli = FakeNLIModel({}, ENTAILS)
    report, _ = run(CLAIM, evidence, nli)
    assert verdict(report) == ("Supported", "sufficient-evidence", "sufficient_evidence")
    assert report.claims[0].inputs.entailing_sources == 2
    # The passage is the premise and the claim the hypothesis, all pairs in one batch.
    assert set(nli.calls[0]) == {("Merge sort is stable and fast.", CLAIM), (STABLE, CLAIM)}
    assert report.final_response == "Merge sort is stable. [1][2]"
    assert report.manifest.evidence_mode == "pack"
    assert report.manifest.backends[0].name == "fake-nli.v1"
    assert set(report.manifest.evidence_sha256) == {"book/a#1", "notes/b#2"}


@pytest.mark.parametrize(
    "sources", [("knuth", "knuth"), (None, None)], ids=["same-source-id", "no-source-id-counts-as-one-source"]
)
def test_one_source_twice_is_low_confidence(sources):
    evidence = pack(("book/a#1", "Merge sort is stable and fast.", sources[0]), ("book/a#2", STABLE, sources[1]))
    report, _ = run(CLAIM, evidence, FakeNLIModel({}, ENTAILS))
    assert verdict(report) == ("Low Confidence", "insufficient-sources", "insufficient_sources")
    assert report.claims[0].inputs.entailing_sources == 1
    flag = "[Low Confidence: too few independent sources say this]"
    assert report.final_response == f"Merge sort is stable. [1][2] {flag}"


def test_passages_that_do_not_entail_are_not_cited():
    # Neither passage quotes the claim word for word (that alone would support it: the `quoted` rule).
    evidence = pack(
        ("book/a#1", "Merge sort is stable and fast.", "a"), ("notes/b#2", "Merge sort is a stable sort.", "b")
    )
    report, _ = run(CLAIM, evidence, FakeNLIModel({}, NEUTRAL))
    assert verdict(report) == ("Unsupported", "low-entailment", "low_entailment")
    assert report.citations.citation_map == {"c_0001": []}
    assert report.citations.passages == ()


# --- NLI that cannot run ---------------------------------------------------------------------------------


TWO_CLAIMS = "Merge sort is stable. Quicksort picks a pivot."
TWO_CLAIM_PACK = pack(
    ("book/a#1", "Merge sort is stable. Quicksort picks a pivot.", "knuth"),
    ("notes/b#2", "Merge sort is stable, and quicksort picks a pivot.", "lecture"),
)


def test_failing_nli_makes_every_claim_unverified_with_the_reason():
    report, _ = run(TWO_CLAIMS, TWO_CLAIM_PACK, FailingNLIModel("weights missing"))
    assert len(report.claims) == 2
    for item in report.claims:
        assert item.evidence  # each claim had evidence: it is the NLI, not the evidence, that is missing
        assert (item.decision.status, item.decision.rule) == ("Unverified", "nli-unavailable")
        assert item.decision.reason == RejectionReason.SIGNAL_UNAVAILABLE
        assert item.decision.verification_status == VerificationStatus.UNVERIFIED
        assert item.inputs.nli_status == SignalStatus.UNAVAILABLE
        assert item.inputs.nli_reason == "failing-nli.v1: weights missing"
        assert "weights missing" in item.decision.rationale
        assert all(signal.status == SignalStatus.UNAVAILABLE for signal in item.signals.nli)
        assert item.decision.confidence.overall_confidence is None and item.decision.confidence.band is None
        assert item.mitigation == "flagged"
    stats = report.annotated_answer.summary_stats
    assert (stats.unverified, stats.supported_high, stats.supported_low) == (2, 0, 0)
    assert stats.mean_overall_confidence is None
    # The action names what happened; the NLI's own error and a fix go to the manifest's warnings.
    assert "evidence_conflict_check_unavailable" in report.annotated_answer.mitigation_actions
    assert not any("weights missing" in action for action in report.annotated_answer.mitigation_actions)
    assert any(
        "failing-nli.v1: weights missing" in warning and "Fix:" in warning for warning in report.manifest.warnings
    )
    flag = "[Unverified: this could not be checked]"
    assert report.final_response == f"Merge sort is stable. {flag} Quicksort picks a pivot. {flag}"


def test_failing_nli_report_has_no_nan_anywhere():
    report, _ = run(TWO_CLAIMS, TWO_CLAIM_PACK, FailingNLIModel())
    data = report.model_dump(mode="json")
    text = json.dumps(data, allow_nan=False)  # raises on NaN or infinity
    assert "NaN" not in text
    assert all(math.isfinite(number) for number in floats_in(data))


class ShortNLIModel(FakeNLIModel):
    """Answers one score fewer than it was asked for: malformed output, not an exception."""

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        return super().predict(pairs)[:-1]


def test_nli_that_answers_too_few_scores_is_unavailable_not_supported():
    report, _ = run(TWO_CLAIMS, TWO_CLAIM_PACK, ShortNLIModel({}, ENTAILS))
    for item in report.claims:
        assert item.decision.status == "Unverified"
        assert "scores for" in (item.inputs.nli_reason or "")


# --- evidence-vs-evidence conflicts ------------------------------------------------------------------------


CONFLICT_PACK = pack(("book/a#1", BOOK_TEXT, "knuth"), ("blog/b#2", BLOG_TEXT, "blog"))
# Worded apart from both evidence sentences, so the fake NLI reads each passage as entailing it (its default) and only
# the two evidence sentences, read against each other, as disagreeing.
CONFLICT_CLAIM = "Merge sort is a stable sort."


def conflict_nli(between: NLIScores = CONTRADICTS) -> FakeNLIModel:
    """Each passage entails the claim; only the two evidence sentences, read against each other, disagree."""
    return FakeNLIModel({(STABLE, NOT_STABLE): between, (NOT_STABLE, STABLE): between}, ENTAILS)


def test_abstain_on_high_turns_a_high_conflict_into_low_confidence():
    report, _ = run(CONFLICT_CLAIM, CONFLICT_PACK, conflict_nli(), policy("abstain_on_high"))
    item = report.claims[0]
    assert verdict(report) == ("Low Confidence", "evidence-conflict", "evidence_conflict")
    assert item.inputs.high_evidence_conflicts == 1
    [conflict] = item.conflicts
    assert {conflict.passage_a, conflict.passage_b} == {"book/a#1", "blog/b#2"}
    assert {conflict.sentence_a, conflict.sentence_b} == {STABLE, NOT_STABLE}
    assert (conflict.kind, conflict.severity, conflict.contradiction_prob) == ("negation", "high", 0.9)
    assert "surfaced_evidence_conflicts:abstain_on_high" in report.annotated_answer.mitigation_actions
    assert report.final_response.endswith("[Low Confidence: the sources disagree about this]")


class LongSentenceNLIModel(FakeNLIModel):
    """Cannot read a pair holding the third passage's sentence, as a model refuses a sentence longer than it reads."""

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        if any(UNREADABLE in premise or UNREADABLE in hypothesis for premise, hypothesis in pairs):
            raise BackendError("a pair is longer than the model reads")
        return super().predict(pairs)


UNREADABLE = "Merge sort is stable in every library."


def test_a_sentence_the_nli_cannot_read_leaves_out_its_own_pairs_not_the_whole_conflict_check():
    three = pack(("book/a#1", BOOK_TEXT, "knuth"), ("blog/b#2", BLOG_TEXT, "blog"), ("wiki/c#3", UNREADABLE, "wiki"))
    model = LongSentenceNLIModel({(STABLE, NOT_STABLE): CONTRADICTS, (NOT_STABLE, STABLE): CONTRADICTS}, ENTAILS)
    report, _ = run(CONFLICT_CLAIM, three, model, policy("surface"))
    [conflict] = report.claims[0].conflicts  # book and blog still disagree; the pairs with the third are left out
    assert {conflict.sentence_a, conflict.sentence_b} == {STABLE, NOT_STABLE}
    [warning] = [w for w in report.manifest.warnings if "evidence-conflict check" in w]
    assert "could not run in full" in warning and "4 of 6 sentence pairs" in warning and "Fix:" in warning


def test_surface_lists_the_conflict_but_keeps_the_verdict():
    report, _ = run(CONFLICT_CLAIM, CONFLICT_PACK, conflict_nli(), policy("surface"))
    item = report.claims[0]
    assert verdict(report) == ("Supported", "sufficient-evidence", "sufficient_evidence")
    assert item.inputs.high_evidence_conflicts == 0
    [conflict] = item.conflicts
    assert (conflict.kind, conflict.severity) == ("negation", "high")
    assert "surfaced_evidence_conflicts:surface" in report.annotated_answer.mitigation_actions


def test_a_low_severity_conflict_is_listed_but_never_abstains():
    report, _ = run(CONFLICT_CLAIM, CONFLICT_PACK, conflict_nli(WEAKLY_CONTRADICTS), policy("abstain_on_high"))
    [conflict] = report.claims[0].conflicts
    assert (conflict.severity, conflict.contradiction_prob) == ("low", 0.45)
    assert verdict(report) == ("Supported", "sufficient-evidence", "sufficient_evidence")


def test_no_conflict_at_or_below_max_contradiction():
    at_limit = NLIScores(entail=0.0, neutral=0.7, contradict=0.3)  # verification.max_contradiction_prob
    report, _ = run(CONFLICT_CLAIM, CONFLICT_PACK, conflict_nli(at_limit), policy("abstain_on_high"))
    assert report.claims[0].conflicts == ()
    assert "surfaced_evidence_conflicts:abstain_on_high" not in report.annotated_answer.mitigation_actions


# --- evidence spans ------------------------------------------------------------------------------------------


def test_evidence_span_offsets_index_the_passage_text():
    report, source = run(CLAIM, CONFLICT_PACK, conflict_nli())
    item = report.claims[0]
    texts = {chunk.passage_id: chunk.text for chunk in item.evidence}
    spans = item.pair.evidence_spans
    assert {span.passage_id for span in spans} == {"book/a#1", "blog/b#2"}
    for span in spans:
        assert texts[span.passage_id][span.char_start : span.char_end] == span.text
        assert source.resolve(span.passage_id)[span.char_start : span.char_end] == span.text
    assert all(span.char_start > 0 for span in spans)  # the sentences are not at the start of their passages
    assert item.pair.top_evidence == item.decision.primary_evidence


# --- mitigation -------------------------------------------------------------------------------------------------


ANSWER = (
    "# Sorting notes\n"
    "\n"
    "- Merge sort is stable. [CITATION: book/a#1]\n"
    "- Quicksort [2] is always O(n log n).\n"
    "\n"
    "1. Heapsort sorts in place.\n"
    "2. Bubble sort is fast. [3, 4]\n"
)


def chunk(passage_id: str, text: str) -> EvidenceChunk:
    doc_id = passage_id.partition("#")[0]
    return EvidenceChunk(
        doc_id=doc_id,
        sent_id=0,
        passage_id=passage_id,
        text=text,
        char_start=0,
        char_end=len(text),
        rank=1,
        source=doc_id,
        version=f"{doc_id}@v1",
    )


BOOK = chunk("book/a#1", "Merge sort is stable. Bubble sort is fast on sorted input.")
NOTES = chunk("notes/b#2", "Merge sort keeps equal keys in order, so it is stable.")
SLIDES = chunk("slides/c#3", "Bubble sort is fast when the input is nearly sorted.")
DISPLAY = {
    "Supported": (VerificationStatus.VERIFIED, RejectionReason.SUFFICIENT_EVIDENCE),
    "Contradictory": (VerificationStatus.REJECTED, RejectionReason.HIGH_CONTRADICTION),
    "Unsupported": (VerificationStatus.REJECTED, RejectionReason.LOW_ENTAILMENT),
    "Low Confidence": (VerificationStatus.LOW_CONFIDENCE, RejectionReason.INSUFFICIENT_SOURCES),
}


def outcome(
    claim_id: str, span_text: str, status: str, supporting: tuple[EvidenceChunk, ...] = (), primary: str | None = None
) -> ClaimOutcome:
    start = ANSWER.index(span_text)
    claim = Claim(
        claim_id=claim_id,
        answer_id="ans_test",
        text=span_text,
        answer_char_span=(start, start + len(span_text)),
        extraction_method="hand-built",
    )
    verification_status, reason = DISPLAY[status]
    decision = ClaimDecision(
        claim_id=claim_id,
        status=status,
        rationale="hand-built",
        primary_evidence=primary,
        confidence=DecisionConfidence(),
        verification_status=verification_status,
        reason=reason,
        rule="sufficient-evidence",
    )
    return ClaimOutcome(claim, decision, supporting)


OUTCOMES = [
    outcome("c_0001", "Merge sort is stable.", "Supported", (BOOK, NOTES)),
    outcome("c_0002", "Quicksort [2] is always O(n log n).", "Contradictory", primary="slides/q#9"),
    outcome("c_0003", "Heapsort sorts in place.", "Unsupported"),
    outcome("c_0004", "Bubble sort is fast.", "Low Confidence", (SLIDES, BOOK)),
]


def test_rewrite_keeps_structure_suppresses_only_contradictions_and_renumbers_citations():
    rewritten = rewrite_answer(ANSWER, OUTCOMES)
    assert rewritten.final_response == (
        "# Sorting notes\n"
        "\n"
        "- Merge sort is stable. [1][2]\n"
        "- [Warning: a claim was removed because it contradicts the source (slides/q#9)]\n"
        "\n"
        "1. Heapsort sorts in place. [Unsupported: no passage supports this]\n"
        "2. Bubble sort is fast. [3][1] [Low Confidence: too few independent sources say this]\n"
    )
    assert rewritten.mitigation == {
        "c_0001": "kept",
        "c_0002": "suppressed",
        "c_0003": "flagged",
        "c_0004": "flagged",
    }
    assert rewritten.actions == (
        "removed_contradicted_claims",
        "flagged_low_confidence_claims",
        "flagged_unsupported_claims",
        "kept_supported_claims_with_citations",
    )


def test_formatted_answer_removes_the_answers_own_markers_and_suppresses_nothing():
    citations = rewrite_answer(ANSWER, OUTCOMES).citations
    assert citations.formatted_text == (
        "# Sorting notes\n"
        "\n"
        "- Merge sort is stable. [1][2]\n"
        "- Quicksort is always O(n log n).\n"
        "\n"
        "1. Heapsort sorts in place.\n"
        "2. Bubble sort is fast. [3][1]\n"
    )
    assert citations.citation_map == {"c_0001": [1, 2], "c_0002": [], "c_0003": [], "c_0004": [3, 1]}
    # [i] is passages[i-1], numbered in order of first use; a passage cited twice is listed once.
    assert [(passage.title, passage.text) for passage in citations.passages] == [
        ("book/a", BOOK.text),
        ("notes/b", NOTES.text),
        ("slides/c", SLIDES.text),
    ]
    assert citations.notes == {"method": "span_end_insertion.v1", "suppressed": 1, "flagged": 2}


def test_rewrite_cites_at_most_three_passages_per_claim():
    many = tuple(chunk(f"doc{index}/x#{index}", f"Merge sort is stable, says source {index}.") for index in range(5))
    rewritten = rewrite_answer(ANSWER, [outcome("c_0001", "Merge sort is stable.", "Supported", many)])
    assert rewritten.citations.citation_map == {"c_0001": [1, 2, 3]}
    assert "- Merge sort is stable. [1][2][3]\n" in rewritten.final_response


def test_a_claim_split_from_a_long_sentence_is_looked_up_by_its_own_words_too():
    """The atom "Kinetic energy is the energy of motion" of a sentence that goes on about other things: its
    sentence's words find the passages about those things, its own words find the one about kinetic energy."""
    others = [
        (f"doc{n}/p#{n}", f"The quantity number {n} of the system depends on the velocity and energy of the body in "
         "motion.", f"s{n}")
        for n in range(8)
    ]  # fmt: skip
    energy = ("physics/energy#1", "Recall that kinetic energy is the energy of motion.", "book")
    long_sentence = "Kinetic energy is the energy of motion, and " + ", and ".join(
        f"the quantity number {n} of the system depends on the velocity of the body" for n in range(8)
    )
    config = Config(verification=VerificationConfig(**SEED))
    source = PackEvidence(pack(*others, energy), config.retrieval)
    assert "physics/energy#1" not in [chunk.passage_id for chunk in source.gather([(long_sentence + ".", ())])[0]]
    report = verify_text(long_sentence + ".", config=config, source=source, nli=FakeNLIModel({}, NEUTRAL))
    atom = report.claims[0]
    assert atom.claim.parent_claim_id and atom.claim.text.startswith("Kinetic energy is the energy of motion")
    assert "physics/energy#1" in [item.passage_id for item in atom.evidence]


def test_interleave_takes_the_two_rankings_in_turn_each_passage_once():
    from veriground.evidence.gather import interleave

    def chunks(*ids: str) -> list[EvidenceChunk]:
        return [chunk(pid, pid) for pid in ids]

    merged = interleave(chunks("a", "b", "c"), chunks("b", "x", "y"), 4)
    assert [chunk.passage_id for chunk in merged] == ["a", "b", "x", "c"]
    assert [chunk.rank for chunk in merged] == [1, 2, 3, 4]
