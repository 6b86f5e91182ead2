"""Exponents that markup or an earlier conversion flattened: text -> text with `10^8` where it read `10<sup>8</sup>`
or `3.00 × 108`.

Converters lose superscripts: OpenStax's CNXML-to-Markdown export writes 3.00×10⁸ m/s as "3.00 × 108 m/s", so a
correct claim would meet "108 m/s" as its evidence. Scientific notation is the one place the lost exponent can be
recovered without guessing: a number times ten followed by more digits. Unicode superscripts (10⁸) are kept as they
are; HTML and Markdown `<sup>` become `^`.
"""

from __future__ import annotations

import re

# "3.00 × 108", "6 × 1019", "2.63 × 10−7", "5.03×10-29": a mantissa, the multiplication sign (U+00D7, never the
# letter x, which is a variable too often), ten, then an exponent of one or two digits that the next character does
# not continue. An exponent of 0 or with a leading 0 ("× 100"), a decimal ("× 105.5") or an equation ("2 × 108 = 216")
# is a plain product, so it is left alone.
_FLATTENED_SCIENTIFIC = re.compile(r"(?<![\d.,])(\d+(?:[.,]\d+)?[ \t]?×[ \t]?10)([−-]?[1-9]\d?)(?![\d^]|[.,]\d|\s*=)")
# <sup>…</sup> with no markup inside and at most this many characters: an exponent or a footnote mark.
MAX_SUPERSCRIPT_CHARS = 40
_SUPERSCRIPT_TAG = re.compile(rf"<sup(?:\s[^<>]*)?>([^<>\n]{{1,{MAX_SUPERSCRIPT_CHARS}}})</sup\s*>", re.IGNORECASE)


def restore_exponents(text: str) -> str:
    """`3.00 × 108` -> `3.00 × 10^8`; everything else as it was."""
    if "×" not in text:
        return text
    return _FLATTENED_SCIENTIFIC.sub(r"\1^\2", text)


def superscript_text(content: str) -> str:
    """How a superscript reads in plain text: `^8`, `^-3`, `^(n+1)` when it holds spaces."""
    content = " ".join(content.split())
    if not content:
        return ""
    return f"^({content})" if " " in content else f"^{content}"


def replace_superscript_tags(source: str) -> str:
    """Raw-HTML `<sup>8</sup>` inside Markdown -> `^8`, before the tag stripper would leave "108"."""
    if "<sup" not in source and "<SUP" not in source:
        return source
    return _SUPERSCRIPT_TAG.sub(lambda match: superscript_text(match.group(1)), source)
