"""One formal check's record (schema FormalCheck) and the names of the checks, in the order checks at one claim span
are listed; every module of the formal checks builds its records here."""

from __future__ import annotations

from typing import Literal, get_args

from veriground.schema import FormalCheck, FormalOutcome

FormalCheckName = Literal["dimensions", "unit_dimension", "equation", "complexity", "constants"]
FORMAL_CHECKS: tuple[FormalCheckName, ...] = get_args(FormalCheckName)


def judged(
    check: FormalCheckName,
    passed: bool,
    failure: FormalOutcome,
    reason: str,
    claim_span: tuple[int, int],
    claim_value: str | None,
    *,
    evidence_index: int | None = None,
    evidence_span: tuple[int, int] | None = None,
    evidence_value: str | None = None,
) -> FormalCheck:
    """A check's record: outcome "ok" when it passed, else `failure`."""
    return FormalCheck(
        check=check,
        outcome="ok" if passed else failure,
        reason=reason,
        claim_span=claim_span,
        claim_value=claim_value,
        evidence_index=evidence_index,
        evidence_span=evidence_span,
        evidence_value=evidence_value,
    )
