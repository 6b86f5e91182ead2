"""HTML to passage-ready text: the main content's block elements, one block each.

lxml parses with HTML's implied end tags, so `<tr><td>` rows without end tags stay siblings (Python's html.parser
nests each row inside the previous one, which made a 150-row table cubic); each table reads its own rows once.
"""

from __future__ import annotations

from bs4 import BeautifulSoup, Comment, NavigableString, Tag

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


def convert_html(source: str) -> ConvertedMarkup:
    """Main content of an HTML page as blocks: headings as `# ...`, lists and table rows as lines."""
    soup = BeautifulSoup(source, "lxml")
    check_nesting(soup, lambda node: node.find_all(True, recursive=False), "HTML element")
    title = collapse_spaces(soup.title.get_text()) if soup.title else ""
    metadata: dict[str, MetadataValue] = {}
    if soup.html is not None and soup.html.get("lang"):
        metadata["lang"] = str(soup.html["lang"])
    for tag in soup.find_all(_HTML_DROP_TAGS):
        tag.decompose()
    for comment in soup.find_all(string=lambda node: isinstance(node, Comment)):
        comment.extract()
    for line_break in soup.find_all("br"):
        line_break.replace_with(_HTML_LINE_BREAK)
    for superscript in soup.find_all("sup"):
        superscript.replace_with(superscript_text(superscript.get_text()))  # 10<sup>8</sup> -> 10^8, not 108
    root = soup.find("main") or soup.find("article") or soup.body or soup
    if not title and (first_h1 := root.find("h1")) is not None:
        title = collapse_spaces(first_h1.get_text(" "))
    text = BLOCK_SEPARATOR.join(_html_blocks(root))
    return ConvertedMarkup(text=text, title=title or None, metadata=metadata)


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
