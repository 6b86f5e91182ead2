"""Atomicity switched off (verification.atomic = false, the --no-atomic ablation): extracted claims -> the same
claims with each sentence that atomicity split (claims/atomicity.py) made one claim again.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import groupby

from veriground.claims.citations import parse_citations
from veriground.claims.claim_types import classify_claim
from veriground.claims.markdown_blocks import EMPHASIS_MARK, find_prose_blocks
from veriground.schema import Claim

# The segmentation half of extract.EXTRACTION_METHOD: sentences, no atomicity step.
WHOLE_SENTENCE_METHOD = "pysbd_sentences.v1"
_SPACE_BEFORE_MARK = re.compile(r"\s+(?=[.,;:!?])")


def join_atoms(text: str, claims: Sequence[Claim]) -> list[Claim]:
    """One claim per sentence: a sentence that atomicity split is one claim again, with the id its pieces name
    as parent, a span from the first piece's start to the last piece's end, that span of `text` without citation
    markers as its text, and every id its pieces cite."""
    blocks = find_prose_blocks(text)
    brackets = sorted({(start, end) for _, start, end in parse_citations(blocks.masked)})
    joined: list[Claim] = []
    for parent, group in groupby(claims, key=lambda claim: claim.parent_claim_id):
        pieces = list(group)
        if parent is None:
            joined.extend(piece.model_copy(update={"extraction_method": WHOLE_SENTENCE_METHOD}) for piece in pieces)
            continue
        start, end = pieces[0].answer_char_span[0], pieces[-1].answer_char_span[1]
        body, cursor = [], start
        for low, high in brackets:
            if start <= low and high <= end:
                body.append(blocks.display[cursor:low])
                cursor = high
        body.append(blocks.display[cursor:end])
        sentence = _SPACE_BEFORE_MARK.sub("", " ".join("".join(body).replace(EMPHASIS_MARK, "").split()))
        whole = {
            "claim_id": parent,
            "text": sentence,
            "answer_char_span": (start, end),
            "extraction_method": WHOLE_SENTENCE_METHOD,
            "claim_type": classify_claim(sentence),
            "parent_claim_id": None,
            "atomicity_rule": None,
            "cited_ids": tuple(dict.fromkeys(cited for piece in pieces for cited in piece.cited_ids)),
        }
        joined.append(pieces[0].model_copy(update=whole))
    return joined
