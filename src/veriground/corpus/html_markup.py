"""HTML to passage-ready text: the main content's block elements, one block each.

lxml parses with HTML's implied end tags, so `<tr><td>` rows without end tags stay siblings (Python's html.parser
nests each row inside the previous one, which made a 150-row table cubic); each table reads its own rows once.
Comments, dropped elements, `<br>` and `<sup>` are dealt with on lxml's tree before BeautifulSoup reads it: removing
or replacing them one by one in BeautifulSoup looks each up among its siblings, which made 8,000 `<br>` take 1.7 s
(x12 per 4x input).
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup, NavigableString, Tag
from lxml import etree

from veriground.corpus.exponents import superscript_text
from veriground.corpus.markup import (
    BLOCK_SEPARATOR,
    LIST_INDENT,
    ConvertedMarkup,
    check_nesting,
    collapse_spaces,
)
from veriground.schema import MetadataValue

_HTML_DROP_TAGS = (
    "head",
    "script",
    "style",
    "noscript",
    "nav",
    "header",
    "footer",
    "aside",
    "form",
    "svg",
    "template",
    "iframe",
    "button",
    "select",
    "textarea",
)
_HTML_HEADINGS = {f"h{level}": level for level in range(1, 7)}
_HTML_LISTS = ("ul", "ol", "menu")
_HTML_BLOCKS = frozenset(
    {
        "address",
        "article",
        "blockquote",
        "body",
        "caption",
        "dd",
        "details",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "hr",
        "html",
        "li",
        "main",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "tbody",
        "tfoot",
        "thead",
        "tr",
        *_HTML_LISTS,
        *_HTML_HEADINGS,
    }
)
_HTML_LINE_BREAK = "\ue010"  # stands for <br> until inline whitespace has been collapsed
_XML_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def convert_html(source: str) -> ConvertedMarkup:
    """Main content of an HTML page as blocks: headings as `# ...`, lists and table rows as lines."""
    source, title = _strip_in_lxml(source)
    soup = BeautifulSoup(source, "lxml")
    tree: Tag = soup  # walked as Tags: the soup and the elements under it
    check_nesting(tree, lambda node: node.find_all(True, recursive=False), "HTML element")
    metadata: dict[str, MetadataValue] = {}
    if soup.html is not None and soup.html.get("lang"):
        metadata["lang"] = str(soup.html["lang"])
    root = soup.find("main") or soup.find("article") or soup.body or soup
    if not title and (first_h1 := root.find("h1")) is not None:
        title = collapse_spaces(first_h1.get_text(" ").replace(_HTML_LINE_BREAK, " "))
    text = BLOCK_SEPARATOR.join(_html_blocks(root))
    return ConvertedMarkup(text=text, title=title or None, metadata=metadata)


def _strip_in_lxml(source: str) -> tuple[str, str]:
    """(the page without comments, processing instructions and _HTML_DROP_TAGS, with `<br>` as _HTML_LINE_BREAK and
    `<sup>` as `^...` text, as HTML source; the first `<title>`'s text). lxml removes and merges in one pass each."""
    parser = etree.HTMLParser(encoding="utf-8", remove_comments=True, remove_pis=True)
    try:
        # Bytes, so an XML declaration naming an encoding is read, not refused as it is in a str.
        root = etree.fromstring(source.encode("utf-8"), parser)
    except etree.LxmlError:
        root = None
    if root is None:  # no element at all (blank, or only a comment): nothing to strip
        return "", ""
    title_element = next(root.iter("title"), None)
    title = collapse_spaces("".join(title_element.itertext())) if title_element is not None else ""
    etree.strip_elements(root, *_HTML_DROP_TAGS, with_tail=False)
    for line_break in root.iter("br"):
        line_break.tail = _HTML_LINE_BREAK + _xml_text(line_break.tail or "")
    etree.strip_tags(root, "br")
    for superscript in list(root.iter("sup")):  # an outer one first; a nested one is then detached, so unchanged
        text = superscript_text("".join(superscript.itertext()))  # 10<sup>8</sup> -> 10^8, not 108
        superscript.clear(keep_tail=True)
        superscript.text = _xml_text(text)
    etree.strip_tags(root, "sup")
    return etree.tostring(root, encoding="unicode", method="html"), title


def _xml_text(text: str) -> str:
    """`text` without the control characters lxml refuses to set (HTML parsing lets them through)."""
    return _XML_UNSAFE.sub(" ", text)


def _html_blocks(element: Tag) -> list[str]:
    blocks: list[str] = []
    inline: list[str] = []

    def flush() -> None:
        text = _clean_html_inline("".join(inline))
        inline.clear()
        if text:
            blocks.append(text)

    for child in element.children:
        if isinstance(child, NavigableString):
            if type(child) is NavigableString:  # not a Doctype, CData or processing instruction
                inline.append(str(child))
        elif isinstance(child, Tag):
            if child.name not in _HTML_BLOCKS and child.find(_HTML_BLOCKS) is None:
                inline.append(child.get_text())
            else:
                flush()
                blocks.extend(_html_block(child))
    flush()
    return blocks


def _html_block(tag: Tag) -> list[str]:
    if tag.name in _HTML_HEADINGS:
        text = _clean_html_inline(tag.get_text(" ")).replace("\n", " ")
        return [f"{'#' * _HTML_HEADINGS[tag.name]} {text}"] if text else []
    if tag.name == "pre":
        lines = [line.rstrip() for line in tag.get_text().replace(_HTML_LINE_BREAK, "\n").split("\n")]
        text = "\n".join(line for line in lines if line.strip())
        return [text] if text else []
    if tag.name in _HTML_LISTS:
        lines = _html_list_lines(tag, depth=0)
        return ["\n".join(lines)] if lines else []
    if tag.name == "table":
        rows = [_html_row(row) for row in tag.find_all("tr") if row.find_parent("table") is tag]
        text = "\n".join(row for row in rows if row)
        return [text] if text else []
    if tag.name == "hr":
        return []
    return _html_blocks(tag)


def _html_list_lines(tag: Tag, depth: int) -> list[str]:
    lines = []
    for number, item in enumerate(tag.find_all("li", recursive=False), start=1):
        marker = f"{number}." if tag.name == "ol" else "-"
        own_text, nested = [], []
        for child in item.children:
            if isinstance(child, Tag) and child.name in _HTML_LISTS:
                nested.extend(_html_list_lines(child, depth + 1))
            elif isinstance(child, Tag):
                own_text.append(child.get_text(" "))
            elif type(child) is NavigableString:
                own_text.append(str(child))
        text = collapse_spaces("".join(own_text).replace(_HTML_LINE_BREAK, " "))
        if text:
            lines.append(f"{LIST_INDENT * depth}{marker} {text}")
        lines.extend(nested)
    return lines


def _html_row(row: Tag) -> str:
    own_cells = (cell for cell in row.find_all(["td", "th"]) if cell.find_parent("tr") is row)
    texts = (cell.get_text(" ").replace(_HTML_LINE_BREAK, " ") for cell in own_cells)
    cells = [collapse_spaces(text) for text in texts]
    return " | ".join(cells) if any(cells) else ""


def _clean_html_inline(text: str) -> str:
    lines = (collapse_spaces(line) for line in text.split(_HTML_LINE_BREAK))
    return "\n".join(line for line in lines if line)
