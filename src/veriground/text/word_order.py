"""Does a claim use an evidence sentence's words in another order, so that it no longer says what the sentence says?

"Object moves is a of an its fast speed or slow how description." holds every word of "Speed is a description of how
fast or slow an object moves.", and the shipped NLI model reads it as entailed: of 50 word-shuffled sentences of the
demo corpus (bench/bench_verify.py's note), 44 were Supported (41 of the 46 read as one claim; 6 and 3 with this check).
A reordering that keeps the meaning keeps its phrases ("In 1905, Einstein developed the theory of relativity." keeps
"the theory of relativity" and "in 1905" of "The theory of relativity was developed by Einstein in 1905."), so a
claim is read as scrambled when, against the sentence of the unit that holds most of its words,
- it has at least 6 words, and it and the sentence share at least 80 % of the words of each (counted with repeats, as
  tokenize_words reads them): the claim is nearly a permutation of the sentence. A short claim drawn from a long
  sentence ("Francis I of France was a king." from "Francis I (...) was the first King of France from the Angoulême
  branch ...") is a summary, not a scramble: requiring only the claim's words flagged 13 such true claims in 3,158
  held-out benchmark rows;
- fewer than 35 % of its adjacent word pairs stand side by side in the sentence too (that restatement keeps 57 %, a
  shuffled sentence 8-25 %).
"""

from __future__ import annotations

from collections import Counter

from veriground.text.memo import text_memo
from veriground.text.sentences import sentence_spans
from veriground.text.terms import tokenize_words

MIN_CLAIM_WORDS = 6
MIN_SHARED_SHARE = 0.80
MAX_KEPT_PAIRS_SHARE = 0.35


@text_memo(maxsize=4096)
def scrambled_words(claim: str, evidence: str) -> bool:
    """Whether the claim is the words of an evidence sentence in another order (see the module's note)."""
    claim_words = tokenize_words(claim)
    if len(claim_words) < MIN_CLAIM_WORDS:
        return False
    counts = Counter(claim_words)
    best_shared, best_words = 0, list[str]()
    for start, end in sentence_spans(evidence):
        words = tokenize_words(evidence[start:end])
        shared = sum((counts & Counter(words)).values())
        if shared > best_shared:
            best_shared, best_words = shared, words
    if best_shared < MIN_SHARED_SHARE * max(len(claim_words), len(best_words)):
        return False
    pairs = list(zip(claim_words, claim_words[1:], strict=False))
    theirs = set(zip(best_words, best_words[1:], strict=False))
    return sum(pair in theirs for pair in pairs) < MAX_KEPT_PAIRS_SHARE * len(pairs)
