"""Citation signal: a claim's own citations → which resolve, which lie outside the evidence pack, and how much
of the claim the cited passages repeat (seed 001 "citation_integrity": token overlap for cited spans).

A citation is a passage id, or a 1-based number ("1", "[1]") into the ordered evidence pack. A number outside
the pack, or an id the corpus does not hold, is dangling. Reported ids are passage ids once a number is mapped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from veriground.errors import VerigroundError
from veriground.schema import CitationSignal, Claim, SignalStatus
from veriground.text.content import content_stems

NO_CITATIONS_REASON = "claim has no citations"
_DECIMALS = 6
_PACK_NUMBER = re.compile(r"\[?\s*(\d+)\s*\]?")


def check_citations(
    claim: Claim,
    pack_ids: set[str],
    resolve: Callable[[str], str | None],
    pack_order: Sequence[str] = (),
) -> CitationSignal:
    """Resolve each cited id (numbers through `pack_order`), list dangling and out-of-pack ones, and give the
    largest share of the claim's content words that one cited passage contains."""
    if not claim.cited_ids:
        return CitationSignal(status=SignalStatus.NOT_APPLICABLE, reason=NO_CITATIONS_REASON)
    cited, dangling, outside, texts = [], [], [], []
    for label in claim.cited_ids:
        passage_id = _passage_id(label, pack_order)
        cited.append(passage_id)
        try:
            text = resolve(passage_id) if passage_id.strip() else None
        except (VerigroundError, OSError) as err:
            return CitationSignal(
                status=SignalStatus.UNAVAILABLE,
                reason=f"cannot resolve citation {label!r}: {err}",
                cited_ids=tuple(claim.cited_ids),
            )
        if text is None:
            dangling.append(passage_id)
            continue
        texts.append(text)
        if passage_id not in pack_ids:
            outside.append(passage_id)
    return CitationSignal(
        status=SignalStatus.COMPUTED,
        cited_ids=tuple(dict.fromkeys(cited)),
        dangling_ids=tuple(dict.fromkeys(dangling)),
        outside_pack_ids=tuple(dict.fromkeys(outside)),
        overlap_ratio=_overlap_ratio(claim.text, texts),
    )


def _passage_id(label: str, pack_order: Sequence[str]) -> str:
    """A pack number becomes the passage id at that position; anything else is already an id."""
    number = _PACK_NUMBER.fullmatch(label.strip())
    if number is None:
        return label.strip()
    index = int(number.group(1)) - 1
    return pack_order[index] if 0 <= index < len(pack_order) else number.group(1)


def _overlap_ratio(claim_text: str, passages: list[str]) -> float | None:
    """None when nothing resolved or the claim has no content words to compare."""
    claim_stems = content_stems(claim_text)
    if not passages or not claim_stems:
        return None
    best = max(len(claim_stems & content_stems(p)) for p in passages)
    return round(best / len(claim_stems), _DECIMALS)
