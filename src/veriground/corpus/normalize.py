"""Text normalisation shared by every loader: raw text -> the canonical text that offsets index into.

Paragraphs are separated by exactly one blank line; lines keep their order; nothing else moves.
"""

from __future__ import annotations

import re
import unicodedata

from veriground.corpus.exponents import restore_exponents

_TRAILING_SPACE = re.compile(r"[ \t\f\v]+\n")
_MANY_BLANK_LINES = re.compile(r"\n{3,}")
_BLANK_LINE_WITH_SPACES = re.compile(r"\n[ \t\f\v]+\n")


def normalize_text(raw: str) -> str:
    """NFC, Unix newlines, tabs as spaces, no trailing spaces, at most one blank line in a row; flattened
    scientific notation gets its `^` back (corpus/exponents.py); Unicode superscripts stay as they are."""
    text = restore_exponents(unicodedata.normalize("NFC", raw))
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ")
    text = text.replace("\u00a0", " ").replace("\ufeff", "")
    text = _TRAILING_SPACE.sub("\n", text + "\n")
    while _BLANK_LINE_WITH_SPACES.search(text):
        text = _BLANK_LINE_WITH_SPACES.sub("\n\n", text)
    text = _MANY_BLANK_LINES.sub("\n\n", text)
    return text.strip()
