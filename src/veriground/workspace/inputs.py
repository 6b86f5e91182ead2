"""What a caller hands `Workspace.verify`, made records: claims given as strings or Claim records (checked
against the text they index and the verification limits), and evidence given as a list of passages."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from veriground.errors import InputTextError, InputTooLargeError
from veriground.schema import Claim, PackPassage

if TYPE_CHECKING:
    from veriground.config import VerificationConfig

# Claims given as plain strings are verified as given (no sentence splitting): their extraction method says so.
GIVEN_CLAIMS_METHOD = "given_by_caller.v1"
# Given claims are joined into one text the report can show; a blank line keeps each its own paragraph.
GIVEN_CLAIMS_SEPARATOR = "\n\n"


def given_claims(text: str | None, claims: object, limits: VerificationConfig) -> tuple[str, list[Claim]]:
    """(the text the claims index, the claims): Claim records as given, strings as one claim each; held to
    the limits verify_text applies to a text."""
    from veriground.text_input import check_encodable

    items = as_list(claims, "claims")
    if len(items) > limits.max_claims:
        raise InputTooLargeError(
            f"{len(items):,} claims given, over verification.max_claims={limits.max_claims:,}; "
            "verify them in batches or raise the limit (verification__max_claims=...)"
        )
    if all(isinstance(item, Claim) for item in items):
        if text is None:
            raise InputTextError(
                "Claim records index the text they came from; pass it too: ws.verify(text, claims=claims)"
            )
        records = _checked_records(text, items)
    elif not all(isinstance(item, str) for item in items):
        raise InputTextError("claims must be all strings or all Claim records, not a mix; convert them first")
    elif text is not None:
        raise InputTextError("claims given as strings are the text to verify; pass either text or claims")
    else:
        text, records = _claims_from_strings(items)
    check_encodable(text, "the text the claims index")
    if len(text) > limits.max_input_chars:
        raise InputTooLargeError(
            f"the claims have {len(text):,} characters, over verification.max_input_chars="
            f"{limits.max_input_chars:,}; verify them in batches or raise verification__max_input_chars"
        )
    return text, records


def _checked_records(text: str, claims: Sequence[Claim]) -> list[Claim]:
    """Claim records whose ids are unique and whose spans lie inside `text`, as the report needs them."""
    seen: set[str] = set()
    for claim in claims:
        start, end = claim.answer_char_span
        if not 0 <= start <= end <= len(text):
            raise InputTextError(
                f"claim {claim.claim_id!r} spans {start}..{end}, outside the text's {len(text)} characters; "
                "pass the text its answer_char_span indexes"
            )
        if claim.claim_id in seen:
            raise InputTextError(f"claim id {claim.claim_id!r} is given twice; give each claim its own id")
        seen.add(claim.claim_id)
    return list(claims)


def _claims_from_strings(texts: Sequence[str]) -> tuple[str, list[Claim]]:
    """Join given claim strings into one text and make each one claim spanning its own part of it."""
    from veriground.claims import classify_claim
    from veriground.engine import answer_id_of
    from veriground.text_input import check_encodable

    stripped = [claim.strip() for claim in texts]
    for number, claim in enumerate(stripped, start=1):
        check_encodable(claim, f"claim {number}")
        if not claim:
            raise InputTextError(f"claim {number} is empty; remove it or give it text")
    text = GIVEN_CLAIMS_SEPARATOR.join(stripped)
    answer_id = answer_id_of(text)
    claims, offset = [], 0
    for number, claim in enumerate(stripped, start=1):
        claims.append(
            Claim(
                claim_id=f"c_{number:04d}",
                answer_id=answer_id,
                text=claim,
                answer_char_span=(offset, offset + len(claim)),
                extraction_method=GIVEN_CLAIMS_METHOD,
                claim_type=classify_claim(claim),
            )
        )
        offset += len(claim) + len(GIVEN_CLAIMS_SEPARATOR)
    return text, claims


def as_list(value: object, name: str) -> list[Any]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise InputTextError(f"{name} must be a list, got {type(value).__name__}; wrap a single item: [item]")
    items = list(value)
    if not items:
        raise InputTextError(f"{name} is an empty list; give at least one item")
    return items


def pack_passage(item: object) -> PackPassage:
    if isinstance(item, PackPassage):
        return item
    if isinstance(item, str):
        return PackPassage(text=item)
    raise InputTextError(
        f"an evidence passage must be a str, PackPassage or EvidenceChunk, got {type(item).__name__}; "
        "or pass an EvidencePack"
    )
