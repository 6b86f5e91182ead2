"""Markdown answer text -> prose blocks: headings, code, rules, line markers and a model's special tokens ("</s>")
masked by spaces.

Masking keeps every offset of the input, so a span found in the masked text is a span of the input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

EMPHASIS_MARK = "\ue001"  # stands for a masked emphasis delimiter in `MarkdownBlocks.display`
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
_HORIZONTAL_RULE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_SETEXT_UNDERLINE = re.compile(r"^ {0,3}(?:=+|-+)[ \t]*$")
_BLOCKQUOTE = re.compile(r"^[ \t]{0,3}(?:>[ \t]?)+")
_LIST_MARKER = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)")
_TABLE_ROW = re.compile(r"^[ \t]*\|")
# **bold**, __bold__ and *italic* outside `code`: the delimiters are masked, the words kept. Bold runs at most
# MAX_BOLD_CHARS: unbounded, every `**` or `__` without a closer scanned to the end of its block (quadratic).
MAX_BOLD_CHARS = 1000
_EMPHASIS = re.compile(
    r"(?P<code>`[^`]*`)"
    rf"|(?<!\w)(?P<mark>\*\*|__)(?=\S).{{1,{MAX_BOLD_CHARS}}}?(?<=\S)(?P=mark)(?!\w)"
    r"|(?<![\w*])\*(?=[^\s*])[^*]+?(?<=\S)\*(?![\w*])"
)
_LINK_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:[ \t]+\S")  # "[1]: https://..." reference lists
# A language model's special tokens left in its output ("... the larger the file size will be.</s>"): no prose.
# "<s>" only where a model puts it (the text's start): "The <s> tag" is prose about HTML.
_SPECIAL_TOKEN = re.compile(r"\A\s*<s>|</s>(?=\s|\Z)|<pad>|<unk>|<\|[a-z_]{2,20}\|>|\[(?:CLS|SEP|PAD|UNK|MASK)\]")


@dataclass(frozen=True)
class MarkdownBlocks:
    """`masked` and `display` have the input's length; `blocks` are (start, end) spans of prose in order.

    In `masked` every skipped character is a space. `display` is the same except that emphasis
    delimiters are EMPHASIS_MARK, so claim text can drop them without leaving a space ("*x*." -> "x.").
    """

    masked: str
    display: str
    blocks: tuple[tuple[int, int], ...]


def find_prose_blocks(text: str) -> MarkdownBlocks:
    """Paragraphs and list items of `text`; newlines inside a block become spaces in `masked`."""
    scanner = _ProseScanner()
    offset = 0
    for line in text.splitlines(keepends=True):
        scanner.read(line, offset)
        offset += len(line)
    scanner.close_block(offset)
    prose = _SPECIAL_TOKEN.sub(lambda token: " " * len(token.group()), "".join(scanner.masked))
    display = _EMPHASIS.sub(_mark_delimiters, prose)
    masked_text = display.replace(EMPHASIS_MARK, " ")
    return MarkdownBlocks(
        masked=masked_text, display=display, blocks=tuple(_trim_end(masked_text, s, e) for s, e in scanner.blocks)
    )


class _ProseScanner:
    """One pass over the lines of a text: each line is masked (kept, or blanked when it is not prose) and the
    prose blocks found so far are collected as (start, end) spans."""

    def __init__(self) -> None:
        self.masked: list[str] = []
        self.blocks: list[tuple[int, int]] = []
        self.block_start: int | None = None
        self.block_lines = 0
        self.block_is_item = False
        self.fence: str | None = None

    def close_block(self, end: int) -> None:
        if self.block_start is not None:
            self.blocks.append((self.block_start, end))
        self.block_start, self.block_lines = None, 0

    def skip(self, line: str, start: int) -> None:
        """A line that is not prose: it ends the open block and is blanked."""
        self.close_block(start)
        self.masked.append(_blank(line))

    def read(self, line: str, start: int) -> None:
        """Mask the line that starts at offset `start` of the text."""
        body = line.rstrip("\r\n")
        if self.in_fence(body):
            self.skip(line, start)
        elif _SETEXT_UNDERLINE.match(body) and self.block_lines == 1 and not self.block_is_item:
            # "Title\n=====": the single line above was a heading, not prose.
            self.block_start, self.block_lines = None, 0
            self.masked[-1] = _blank(self.masked[-1])
            self.masked.append(_blank(line))
        elif not body.strip() or _HEADING.match(body) or _HORIZONTAL_RULE.match(body) or _skipped_line(body):
            self.skip(line, start)
        else:
            self.read_prose(line, body, start)

    def in_fence(self, body: str) -> bool:
        """Whether the line opens, closes or lies inside a fenced code block (tracking which fence is open)."""
        fence_match = _FENCE.match(body)
        if self.fence is None and not fence_match:
            return False
        if self.fence is None:
            assert fence_match is not None  # no fence is open, so this line opens one
            self.fence = fence_match.group(1)[0] * len(fence_match.group(1))
        elif body.strip().startswith(self.fence):
            self.fence = None
        return True

    def read_prose(self, line: str, body: str, start: int) -> None:
        """A prose line, its quote and list markers masked; a list item starts a block of its own."""
        quote = _BLOCKQUOTE.match(body)
        marker_chars = quote.end() if quote else 0
        item = _LIST_MARKER.match(body, marker_chars)
        if item:
            marker_chars = item.end()
            self.close_block(start)  # every list item is a block of its own
            self.block_is_item = True
        elif self.block_start is None:
            self.block_is_item = False
        content = body[marker_chars:]
        if not content.strip():
            self.skip(line, start)  # an empty list item or a bare ">"
            return
        if self.block_start is None:
            self.block_start = start + marker_chars + len(content) - len(content.lstrip())
        self.block_lines += 1
        self.masked.append(" " * marker_chars + content + " " * (len(line) - len(body)))


def _skipped_line(body: str) -> bool:
    return bool(_TABLE_ROW.match(body) or _LINK_DEFINITION.match(body))


def _mark_delimiters(match: re.Match[str]) -> str:
    if match.group("code"):
        return match.group()  # `snake_case_name` and `a * b` are code, not emphasis
    width = len(match.group("mark")) if match.group("mark") else 1
    inner = match.group()[width:-width]
    return EMPHASIS_MARK * width + inner + EMPHASIS_MARK * width


def _blank(line: str) -> str:
    body = line.rstrip("\r\n")
    return " " * len(body) + line[len(body) :]


def _trim_end(masked: str, start: int, end: int) -> tuple[int, int]:
    while end > start and masked[end - 1].isspace():
        end -= 1
    return start, end
