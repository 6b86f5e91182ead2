"""Linear-time removal of delimited spans (comments, template tags, math): text -> text with each span replaced.

`re.sub(r"<!--.*?-->", ...)` is quadratic when openers have no closer: every `<!--` scans to the end of the text
again. Here a closer that is missing after position p is remembered as missing for every later opener, so each
character is scanned a bounded number of times. Spans are found as the regex would find them: leftmost opener,
nearest closer after it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# A literal closer, a pattern searched for, or a function (text, position) -> index after the closer or -1 for closers
# that must be checked in place (its cost must be bounded by the distance to the next opener).
Closer = str | re.Pattern[str] | Callable[[str, int], int]


def replace_delimited(
    text: str,
    opener: re.Pattern[str],
    closer_for: Callable[[re.Match[str]], Closer],
    replace: Callable[[re.Match[str], str], str],
) -> str:
    """Each `opener` match plus the text up to and including its closer becomes `replace(opener_match, span)`."""
    pieces: list[str] = []
    position = search_from = 0
    missing_after: dict[str, int] = {}  # closer -> a position after which it does not occur
    while (start := opener.search(text, search_from)) is not None:
        closer = closer_for(start)
        end = -1
        if not isinstance(closer, str | re.Pattern):  # a function, checked in place
            end = closer(text, start.end())
        else:
            key = closer if isinstance(closer, str) else closer.pattern
            if missing_after.get(key, len(text) + 1) > start.end():
                end = _find_closer(text, closer, start.end())
                if end < 0:
                    missing_after[key] = start.end()
        if end < 0:
            search_from = start.start() + 1
            continue
        pieces.append(text[position : start.start()])
        pieces.append(replace(start, text[start.start() : end]))
        position = search_from = end
    pieces.append(text[position:])
    return "".join(pieces)


def _find_closer(text: str, closer: str | re.Pattern[str], position: int) -> int:
    """The index just after the nearest closer at or after `position`, or -1."""
    if isinstance(closer, str):
        found = text.find(closer, position)
        return -1 if found < 0 else found + len(closer)
    match = closer.search(text, position)
    return -1 if match is None else match.end()
