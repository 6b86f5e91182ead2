"""Is a claim its evidence sentence with a word or two swapped for others?

"The SI unit of force is the joule." against "The SI unit of force is the newton.", "the Moon's magnetic pull" against
"the Moon's gravitational pull": a near copy of a sentence with one of its words replaced is the edit an NLI model
reads worst (it takes the near copy for a restatement: 46 of 198 such edits of the domain corpora were Supported,
8 with this check) and
the slip a writer most often makes. A claim is read as such when
- it has at least 4 words, and at least 70 % of them are the sentence's words in the same order (difflib's matching
  blocks over the words as tokenize_words reads them);
- a run of at most three of its words stands where the sentence has a run of at most three others, and each run has a
  content word that the other text lacks anywhere: no word of it has the same Snowball stem ("pulls", "pull"), and
  none begins with the other or shares its first 5 letters ("hot", "hotter"; "gravity", "gravitational").
Numbers are left out of it (the numeric check compares them by value and unit), and so are words the claim only leaves
out (deletion.py) or only adds (the NLI reads an added qualifier). A synonym swapped in ("bodies" for "objects") is
found too: the verdict layer then says which words differ rather than calling the claim Supported on a near copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher

from veriground.text.memo import text_memo
from veriground.text.terms import STOPWORDS, is_negation, stem_words, tokenize_words

MIN_CLAIM_WORDS = 4
MIN_COPIED_SHARE = 0.70
MAX_RUN_WORDS = 3


@text_memo(maxsize=4096)
def substituted_words(claim: str, sentence: str) -> tuple[tuple[str, str], ...]:
    """(claim words, sentence words) for each run the claim swaps for the sentence's, when the claim is a near copy
    of the sentence (see the module's note); () otherwise."""
    claim_words, sentence_words = tokenize_words(claim), tokenize_words(sentence)
    if len(claim_words) < MIN_CLAIM_WORDS:
        return ()
    matcher = SequenceMatcher(None, claim_words, sentence_words, autojunk=False)
    copied = sum(block.size for block in matcher.get_matching_blocks())
    if copied < MIN_COPIED_SHARE * len(claim_words):
        return ()
    swaps = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "replace" or i2 - i1 > MAX_RUN_WORDS or j2 - j1 > MAX_RUN_WORDS:
            continue
        ours, theirs = claim_words[i1:i2], sentence_words[j1:j2]
        if _has_new_content(ours, sentence_words) and _has_new_content(theirs, claim_words):
            swaps.append((" ".join(ours), " ".join(theirs)))
    return tuple(swaps)


def swapped_words(swaps: Sequence[tuple[str, str]]) -> str:
    """'"joule" where the source says "newton"', for each (claim words, source words) pair, joined by "; "."""
    return "; ".join(f'"{ours}" where the source says "{theirs}"' for ours, theirs in swaps)


def _has_new_content(words: list[str], other: list[str]) -> bool:
    """A content word (not a stopword, negation or number) with no relative among the other text's words."""
    content = _content(words)
    other_stems, other_content = set(stem_words(other)), _content(other)
    return any(
        stem not in other_stems and not any(_related(word, theirs) for theirs in other_content)
        for word, stem in zip(content, stem_words(content), strict=True)
    )


def _content(words: list[str]) -> list[str]:
    return [word for word in words if word not in STOPWORDS and not is_negation(word) and word.isalpha()]


def _related(word: str, other: str) -> bool:
    """One word begins the other ("hot", "hotter"), or they share their first 5 letters ("gravity",
    "gravitational"): a form of the same word, read as restating it."""
    shorter, longer = sorted((word, other), key=len)
    if len(shorter) < 3:
        return False
    return longer.startswith(shorter) if len(shorter) < 5 else longer[:5] == shorter[:5]
