"""Premise windows: a text longer than MAX_PREMISE_CHARS -> overlapping windows of whole sentences, for readers
that score a long premise by its best window (ALCE citation support, evaluation/citation_support.py). Verification
itself reads evidence units (evidence/units.py), not windows."""

from __future__ import annotations

from veriground.text.sentences import split_sentences

# MNLI-trained encoders read 512 tokens; at roughly 4 characters a token, 1500 characters of premise leave
# room for the claim.
MAX_PREMISE_CHARS = 1500
WINDOW_OVERLAP_SENTENCES = 1  # each window repeats the last sentence of the one before it
NO_EVIDENCE_REASON = "no evidence"


def split_premise(text: str, max_chars: int = MAX_PREMISE_CHARS) -> list[str]:
    """The text itself when short enough, else windows of whole sentences that overlap by one sentence."""
    if len(text) <= max_chars:
        return [text]
    sentences: list[str] = []
    for sentence in split_sentences(text):
        step = max_chars // 2  # a sentence longer than a window is cut into half-overlapping slices
        while len(sentence) > max_chars:
            sentences.append(sentence[:max_chars])
            sentence = sentence[step:]
        sentences.append(sentence)
    windows: list[str] = []
    start = 0
    while start < len(sentences):
        end = start + 1
        while end < len(sentences) and len(" ".join(sentences[start : end + 1])) <= max_chars:
            end += 1
        windows.append(" ".join(sentences[start:end]))
        if end == len(sentences):
            break
        start = max(start + 1, end - WINDOW_OVERLAP_SENTENCES)
    return windows
