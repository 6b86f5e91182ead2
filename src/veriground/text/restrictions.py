"""Does a claim leave out a word of its source sentence that restricts where the rest holds?

"Every prime number is odd." out of "For every prime number p, either p = 2, or p is odd.", "Objects fall at the same
rate." out of "Objects fall at the same rate only in a vacuum.": the claim keeps the sentence's words in order and
drops "either ... or", "only", "unless", "except" or "provided", so it says more than its source. The shipped model read
the first as entailed (0.91). A claim is read as such when its words are all the sentence's, in order (text/deletion.py
matched_words), the sentence's words it skips between its first and last word are few (a near copy, not words picked
from across a long sentence), and one of the words it leaves out between its first and last word, or right after its
last, is a restrictor. Words before the claim's first word (a preamble, "Consider the statement") and past the one
after its last (a clause of its own: "..., the band's only single to reach number one") do not count. Nor are hedges
("usually", "often") or conditions ("if", "when") restrictors here: read with them, and past the claim's end, the rule
lowered 11 rows of the held-out benchmarks, all of them true; as it is, none. What is shown is the sentence from the
restrictor on, a few words of it.
"""

from __future__ import annotations

import re

from veriground.text.deletion import matched_words
from veriground.text.memo import text_memo
from veriground.text.sentences import SentenceBoundary, sentence_spans

RESTRICTORS = frozenset(("only", "solely", "except", "excluding", "unless", "either", "provided"))
MAX_SKIPPED = 8  # words of the sentence inside the claim's span that the claim skips
MAX_SHOWN = 6  # words of the left-out run shown


@text_memo(maxsize=8_192)
def left_out_restriction(claim: str, evidence: str) -> tuple[str, tuple[int, int]] | None:
    """The left-out run that starts at a restrictor, and the span of its sentence in `evidence`, for the first sentence
    of which the claim is a copy less words including a restrictor; None when there is none."""
    for start, end in sentence_spans(evidence, SentenceBoundary.ITEMS):
        run = _restriction(claim, evidence[start:end])
        if run is not None:
            return run, (start, end)
    return None


def _restriction(claim: str, sentence: str) -> str | None:
    tokens, matched = matched_words(claim, sentence)
    if not matched:
        return None
    kept = set(matched)
    skipped = [index for index in range(matched[0], matched[-1]) if index not in kept]
    if len(skipped) > MAX_SKIPPED:
        return None
    for index in range(matched[0], min(len(tokens), matched[-1] + 2)):  # inside the claim's span, or right after it
        if index not in kept and tokens[index] in RESTRICTORS:
            if any(tokens[position] in RESTRICTORS for position in range(matched[0], index) if position in kept):
                return None  # the claim keeps a restrictor of its own before it
            return _shown(sentence, tokens[index])
    return None


def _shown(sentence: str, restrictor: str) -> str:
    """The sentence's words from the restrictor on, at most MAX_SHOWN of them, as written."""
    found = re.search(rf"\b{restrictor}\b", sentence, re.IGNORECASE)
    words = sentence[found.start() :].split() if found else [restrictor]
    return " ".join(words[:MAX_SHOWN]).rstrip(".,;:")
