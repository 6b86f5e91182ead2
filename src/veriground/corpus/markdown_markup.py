"""Markdown body clean-up: the source stays Markdown, minus comments, Liquid/Jekyll tags and raw HTML tags.

Fenced code stays one block; HTML blocks lose their tags but keep their text.
"""

from __future__ import annotations

import html
import re

from veriground.corpus.delimited import replace_delimited
from veriground.corpus.exponents import replace_superscript_tags
from veriground.corpus.markup import BLOCK_SEPARATOR

_MARKUP_REMOVED = "\ue020"  # marks where a comment or template tag was, so emptied lines can go

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_MD_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t].*)?$")
# Comments and template tags are removed by replace_delimited (linear when closers are missing), opener by closer.
_HTML_COMMENT_OPEN = re.compile(r"<!--")
_LIQUID_COMMENT_OPEN = re.compile(r"\{%-?\s*comment\s*-?%\}")
_LIQUID_COMMENT_CLOSE = re.compile(r"\{%-?\s*endcomment\s*-?%\}")
# A quoted value never holds a newline or a `%`, so an unclosed quote cannot make each tag scan to the end.
_LIQUID_VALUE_TAG = re.compile(r"\{%-?\s*(page|link|slack_channel|alert)\s+(?:\"([^\"%\n]*)\"|'([^'%\n]*)')[^%]*?-?%\}")
_LIQUID_TAG_OPEN = re.compile(r"\{[%{]")
_LIQUID_TAG_CLOSERS = {"{%": "%}", "{{": "}}"}
_LIQUID_RAW_TAG = re.compile(r"\{%-?\s*(?:raw|endraw)\s*-?%\}")
_HTML_ATTRIBUTES = r"""(?:\s+[A-Za-z_:][\w.:-]*(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*\s*"""
_HTML_TAG = re.compile(  # CommonMark's open and closing tags; inline code is matched first and kept
    rf"(`[^`\n]*`)|<(/)?([A-Za-z][A-Za-z0-9-]*)((?(2)\s*|{_HTML_ATTRIBUTES}/?))>"
)
_HTML_ELEMENTS = frozenset(
    {
        "a",
        "abbr",
        "address",
        "article",
        "aside",
        "b",
        "blockquote",
        "br",
        "button",
        "caption",
        "center",
        "cite",
        "code",
        "col",
        "colgroup",
        "dd",
        "del",
        "details",
        "dfn",
        "div",
        "dl",
        "dt",
        "em",
        "figcaption",
        "figure",
        "font",
        "footer",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hr",
        "i",
        "iframe",
        "img",
        "input",
        "ins",
        "kbd",
        "label",
        "li",
        "main",
        "mark",
        "nav",
        "ol",
        "p",
        "picture",
        "pre",
        "q",
        "s",
        "section",
        "small",
        "source",
        "span",
        "strike",
        "strong",
        "sub",
        "summary",
        "sup",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "u",
        "ul",
        "video",
    }
)
_HTML_BLOCK_START = re.compile(r"^ {0,3}</?[A-Za-z]")
_HTML_ENTITY = re.compile(r"&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")
_EMPTIED_LINE = re.compile(f"^[ \\t]*{_MARKUP_REMOVED}[ \\t{_MARKUP_REMOVED}]*(?:\\n|\\Z)", re.MULTILINE)


def clean_markdown(text: str) -> str:
    """Fenced code becomes one block; headings get blank lines around them; markup noise goes."""
    pieces: list[str] = []
    prose: list[str] = []
    fence: list[str] = []
    fence_marker = ""
    for line in text.split("\n"):
        opening = _FENCE.match(line)
        if fence_marker:
            fence.append(line)
            closing = opening.group(1) if opening else ""
            if closing.startswith(fence_marker[0]) and len(closing) >= len(fence_marker):
                pieces.append(_clean_fence(fence))
                fence, fence_marker = [], ""
        elif opening:
            pieces.append(_clean_prose("\n".join(prose)))
            prose, fence, fence_marker = [], [line], opening.group(1)
        else:
            prose.append(line)
    pieces.append(_clean_fence(fence) if fence_marker else _clean_prose("\n".join(prose)))
    return BLOCK_SEPARATOR.join(piece for piece in pieces if piece.strip())


def _clean_fence(lines: list[str]) -> str:
    code = _LIQUID_RAW_TAG.sub("", "\n".join(lines))
    return "\n".join(line for line in code.split("\n") if line.strip())


def _clean_prose(text: str) -> str:
    text = replace_delimited(text, _HTML_COMMENT_OPEN, lambda _: "-->", _removed)
    text = replace_delimited(text, _LIQUID_COMMENT_OPEN, lambda _: _LIQUID_COMMENT_CLOSE, _removed)
    text = _LIQUID_VALUE_TAG.sub(_render_liquid_value, text)
    text = replace_delimited(text, _LIQUID_TAG_OPEN, lambda match: _LIQUID_TAG_CLOSERS[match.group(0)], _removed)
    text = replace_superscript_tags(text)  # 10<sup>8</sup> must not become "108"
    text = _HTML_TAG.sub(_strip_html_tag, _dedent_html_blocks(text))
    text = _HTML_ENTITY.sub(lambda match: html.unescape(match.group(0)), text)
    text = _EMPTIED_LINE.sub("", text).replace(_MARKUP_REMOVED, "")
    lines = []
    for line in text.split("\n"):
        if _MD_HEADING.match(line):
            lines.extend(["", line.strip(), ""])
        else:
            lines.append(line)
    return "\n".join(lines)


def _removed(_opener: re.Match[str], _span: str) -> str:
    return _MARKUP_REMOVED


def _dedent_html_blocks(text: str) -> str:
    """Lines of a raw HTML block (a line opening with a tag, up to a blank line) lose their indent."""
    lines, in_block = [], False
    for line in text.split("\n"):
        in_block = bool(line.strip()) and (in_block or _HTML_BLOCK_START.match(line) is not None)
        lines.append(line.strip() if in_block else line)
    return "\n".join(lines)


def _strip_html_tag(match: re.Match[str]) -> str:
    """Raw HTML inside Markdown keeps its text; inline code and unknown `<words>` stay; <br> is a space."""
    name = (match.group(3) or "").lower()
    if match.group(1) or name not in _HTML_ELEMENTS:
        return match.group(0)
    return " " if name == "br" else _MARKUP_REMOVED


def _render_liquid_value(match: re.Match[str]) -> str:
    """The readable part of a Jekyll tag: a page path, a Slack channel, an alert's heading."""
    tag, value = match.group(1), match.group(2) if match.group(2) is not None else match.group(3)
    return f"#{value}" if tag == "slack_channel" else value
