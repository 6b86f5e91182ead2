"""Seed 003 §6.2 in the answer policy: a comparative sentence needs two supporting passages, unless one passage
states it word for word (the verifier's `quoted` rule decided it)."""

from __future__ import annotations

from types import SimpleNamespace

from veriground.answering.policy import CheckedClaim, apply_policy
from veriground.config import AnswerConfig, VerificationConfig
from veriground.schema import AnswerClaimClass, DraftClaim, EvidenceChunk

PASSAGE = "p#1"
TEXT = "The expected running time of quicksort is no worse when the array holds duplicates."
CHUNK = EvidenceChunk(
    doc_id="d", sent_id=0, passage_id=PASSAGE, text=TEXT, char_start=0, char_end=len(TEXT), rank=1, source="s",
    version="d@v1",
)  # fmt: skip


def report(rule: str) -> SimpleNamespace:
    """The parts of a claim report the policy reads: a Supported decision by `rule`, one supporting passage."""
    return SimpleNamespace(
        decision=SimpleNamespace(status="Supported", rule=rule, rationale="supported"),
        inputs=SimpleNamespace(max_entailment=0.9, supporting_passages=(PASSAGE,)),
        evidence=(CHUNK,),
        conflicts=(),
    )


def judge(rule: str):
    draft = DraftClaim(text=TEXT, cited_ids=(PASSAGE,), claim_class=AnswerClaimClass.COMPARATIVE)
    checked = CheckedClaim(draft=draft, cited_ids=(PASSAGE,), reports=(report(rule),))  # type: ignore[arg-type]
    return apply_policy([checked], {PASSAGE: CHUNK}, AnswerConfig(), VerificationConfig())


def test_a_comparison_one_passage_states_word_for_word_is_kept():
    outcome = judge("quoted")
    assert [claim.text for claim in outcome.claims] == [TEXT]


def test_a_comparison_one_passage_merely_supports_needs_a_second():
    outcome = judge("sufficient-evidence")
    assert outcome.claims == ()
    assert "needs 2 supporting passages" in outcome.traces[0].reason
