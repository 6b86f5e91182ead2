"""Shared by the markup converters (html_markup, latex_markup, pretext_markup): their output record and helpers.

Blocks (paragraphs, headings, lists, display math, tables) are separated by one blank line; math stays
as LaTeX source. The output still goes through `normalize_text` in the loader.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from veriground.schema import MetadataValue

BLOCK_SEPARATOR = "\n\n"
LIST_INDENT = "  "


@dataclass(frozen=True)
class ConvertedMarkup:
    """What a converter found: block text, the document title and simple metadata."""

    text: str
    title: str | None = None
    metadata: dict[str, MetadataValue] = field(default_factory=dict)


def collapse_spaces(text: str) -> str:
    return " ".join(text.split())


def find_heading_title(text: str) -> str | None:
    """The text of the highest-level `#` heading line, first one wins."""
    headings = [(len(hashes), title) for hashes, title in _HEADING_LINE.findall(text)]
    if not headings:
        return None
    top = min(level for level, _ in headings)
    return next(title.strip() for level, title in headings if level == top)


_HEADING_LINE = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
