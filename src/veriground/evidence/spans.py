"""Evidence sentences: a claim and one evidence chunk -> the chunk's sentences that share most of the claim's
content, with offsets into the chunk text (so a report can highlight the span inside the passage).
"""

from __future__ import annotations

from veriground.schema import AlignedSpan, EvidenceChunk, EvidenceSpan
from veriground.text.content import content_stems, sentence_contents
from veriground.text.quantities import extract_quantities

MAX_SPANS_PER_CHUNK = 2
_DECIMALS = 6


def align_sentences(claim_text: str, chunk: EvidenceChunk) -> list[AlignedSpan]:
    """The chunk's best-aligned sentences (those tied for the highest share, at most MAX_SPANS_PER_CHUNK), in
    text order; none when no sentence shares a content word or number with the claim."""
    claim_stems = content_stems(claim_text)
    claim_numbers = {quantity.value for quantity in extract_quantities(claim_text)}
    size = len(claim_stems) + len(claim_numbers)
    if size == 0:
        return []
    scored = []
    for start, end, stems, numbers in sentence_contents(chunk.text):
        shared = len(claim_stems & stems) + (len(claim_numbers & numbers) if claim_numbers else 0)
        if shared:
            scored.append((round(shared / size, _DECIMALS), start, end))
    if not scored:
        return []
    best = max(alignment for alignment, _, _ in scored)
    chosen = [item for item in scored if item[0] == best][:MAX_SPANS_PER_CHUNK]
    return [
        AlignedSpan(
            span=EvidenceSpan(
                doc_id=chunk.doc_id,
                sent_id=chunk.sent_id,
                text=chunk.text[start:end],
                rank=chunk.rank,
                passage_id=chunk.passage_id,
                char_start=start,
                char_end=end,
            ),
            alignment=alignment,
        )
        for alignment, start, end in chosen
    ]
