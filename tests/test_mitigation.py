"""Flag & suppress on split sentences: suppressed pieces of one sentence become one warning and never leave
a connector ("and", "and it", ", but") hanging beside it."""

from __future__ import annotations

import pytest

from veriground.claims import extract_claims
from veriground.mitigation.rewrite import ClaimOutcome, rewrite_answer
from veriground.schema import ClaimDecision, DecisionConfidence, RejectionReason, VerificationStatus

WARNING = "[Warning: a claim was removed because it contradicts the source (p#1)]"
DECISIONS = {
    "S": ("Supported", VerificationStatus.VERIFIED, RejectionReason.SUFFICIENT_EVIDENCE),
    "C": ("Contradictory", VerificationStatus.REJECTED, RejectionReason.HIGH_CONTRADICTION),
    "U": ("Unsupported", VerificationStatus.REJECTED, RejectionReason.LOW_ENTAILMENT),
}


def outcomes(text: str, verdicts: str) -> list[ClaimOutcome]:
    """The claims of `text`, the i-th with verdict verdicts[i] (S, C or U); contradictions point at p#1."""
    claims = extract_claims(text, answer_id="a")
    assert len(claims) == len(verdicts), [claim.text for claim in claims]
    result = []
    for claim, code in zip(claims, verdicts, strict=True):
        status, verification, reason = DECISIONS[code]
        decision = ClaimDecision(
            claim_id=claim.claim_id,
            status=status,
            rationale="hand-built",
            primary_evidence="p#1" if code == "C" else None,
            confidence=DecisionConfidence(),
            verification_status=verification,
            reason=reason,
            rule="sufficient-evidence",
        )
        result.append(ClaimOutcome(claim, decision, ()))
    return result


def final(text: str, verdicts: str) -> str:
    return rewrite_answer(text, outcomes(text, verdicts)).final_response


@pytest.mark.parametrize(
    ("text", "verdicts", "expected"),
    [
        (  # every piece suppressed: the whole sentence is one warning
            "Merge sort has O(1) complexity and it is unstable. Heat flows from hot to cold.",
            "CCS",
            "[Warning: 2 claims were removed because they contradict the source (p#1)] Heat flows from hot to cold.",
        ),
        (
            "Energy is created; momentum is lost; and charge is destroyed [1].",
            "CCC",
            "[Warning: 3 claims were removed because they contradict the source (p#1)]",
        ),
        (  # the second piece suppressed: the connector before it goes too
            "Merge sort has O(n log n) complexity and it is unstable.",
            "SC",
            f"Merge sort has O(n log n) complexity {WARNING}",
        ),
        (  # the first piece suppressed: the next piece gets its subject back
            "Merge sort has O(1) complexity and it is stable.",
            "CS",
            f"{WARNING} Merge sort is stable.",
        ),
        (  # the first piece suppressed, the next has its own subject: capitalised
            "Kinetic energy depends on colour, and potential energy depends on height.",
            "CS",
            f"{WARNING} Potential energy depends on height.",
        ),
        (  # a suppressed middle piece takes the connector before it; the one after it stays
            "Energy is conserved; momentum is lost; and charge is conserved.",
            "SCS",
            f"Energy is conserved {WARNING}; and charge is conserved.",
        ),
        (  # an unsplit sentence: its span, as before
            "Water boils at 50 °C at sea level [1]. Ice melts at 0 °C.",
            "CS",
            f"{WARNING} Ice melts at 0 °C.",
        ),
    ],
)
def test_suppressed_pieces_leave_no_connector(text: str, verdicts: str, expected: str) -> None:
    assert final(text, verdicts) == expected


def test_flags_on_kept_pieces_stay_beside_the_warning() -> None:
    text = "Merge sort has O(n log n) complexity [2] and it is unstable."
    flag = "[Unsupported: no passage supports this]"
    assert final(text, "UC") == f"Merge sort has O(n log n) complexity {flag} {WARNING}"


def test_no_warning_is_followed_by_a_dangling_connector() -> None:
    text = "Quicksort is fast on average, but it is slow in the worst case. Light is a wave, or it is a particle."
    for verdicts in ("CCCC", "CSSC", "SCCS", "CCSS"):
        rewritten = final(text, verdicts)
        for connector in ("] and", "] but", "] or", "] it", "and [Warning", "but [Warning", "or [Warning"):
            assert connector not in rewritten, (verdicts, rewritten)


def test_the_citation_formatted_answer_keeps_every_piece() -> None:
    text = "Merge sort has O(1) complexity and it is stable."
    assert rewrite_answer(text, outcomes(text, "CC")).citations.formatted_text == text


def test_number_lists_in_prose_survive_the_rewrite() -> None:
    text = "The vector [1, 1, 2] has a norm of about 2.45 [1]."
    rewritten = rewrite_answer(text, outcomes(text, "U"))
    assert rewritten.final_response == (
        "The vector [1, 1, 2] has a norm of about 2.45. [Unsupported: no passage supports this]"
    )
    assert rewritten.citations.formatted_text == "The vector [1, 1, 2] has a norm of about 2.45."
