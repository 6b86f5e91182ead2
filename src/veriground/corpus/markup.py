"""Shared by the markup converters (html_markup, latex_markup, pretext_markup): their output record and helpers.

Blocks (paragraphs, headings, lists, display math, tables) are separated by one blank line; math stays
as LaTeX source. The output still goes through `normalize_text` in the loader.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

from veriground.schema import MetadataValue

BLOCK_SEPARATOR = "\n\n"
LIST_INDENT = "  "
# The converters walk element trees recursively; real documents nest a few dozen levels, so a file nesting deeper
# is refused with a named error instead of exhausting Python's recursion limit (about 1000 frames).
MAX_NESTING_LEVELS = 200
Node = TypeVar("Node")  # an element of whichever tree a converter walks


class MarkupTooDeep(ValueError):
    """A document nests elements or environments deeper than MAX_NESTING_LEVELS; the loader names the file."""

    def __init__(self, what: str, limit: int = MAX_NESTING_LEVELS) -> None:
        super().__init__(f"{what} nesting deeper than {limit} levels")


def check_nesting(root: Node, children: Callable[[Node], Iterable[Node]], what: str) -> None:
    """Raise MarkupTooDeep when the tree under `root` is deeper than MAX_NESTING_LEVELS (walked without recursion)."""
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING_LEVELS:
            raise MarkupTooDeep(what)
        stack.extend((child, depth + 1) for child in children(node))


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
