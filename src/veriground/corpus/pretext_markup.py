"""PreTeXt XML to passage-ready text: blocks per paragraph and environment, math as $...$ source."""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET

from veriground.corpus.markup import (
    BLOCK_SEPARATOR,
    LIST_INDENT,
    ConvertedMarkup,
    check_nesting,
    collapse_spaces,
)
from veriground.schema import MetadataValue

_XI_INCLUDE = "{http://www.w3.org/2001/XInclude}include"
_XML_ID = "{http://www.w3.org/XML/1998/namespace}id"
_XML_ENTITIES = frozenset({"amp", "lt", "gt", "quot", "apos"})
_NAMED_ENTITY = re.compile(r"&([A-Za-z][A-Za-z0-9]*);")
_PTX_SECTIONS = {
    "book": 1,
    "article": 1,
    "chapter": 1,
    "appendix": 1,
    "section": 2,
    "subsection": 3,
    "subsubsection": 4,
    "paragraphs": 5,
    "worksheet": 3,
    "exercises": 3,
    "reading-questions": 3,
}
_PTX_ENVIRONMENTS = frozenset(
    {
        "definition",
        "theorem",
        "lemma",
        "corollary",
        "proposition",
        "claim",
        "fact",
        "conjecture",
        "axiom",
        "principle",
        "example",
        "problem",
        "question",
        "exercise",
        "proof",
        "remark",
        "note",
        "warning",
        "insight",
        "investigation",
        "activity",
        "project",
        "exploration",
        "algorithm",
        "solution",
        "hint",
        "answer",
        "assemblage",
    }
)
_PTX_SKIPPED = frozenset(
    {
        "idx",
        "index",
        "image",
        "latex-image",
        "sage",
        "pg-code",
        "pg-macros",
        "setup",
        "interactive",
        "jsxgraph",
        "notation",
        "response",
        "clearpage",
        "video",
        "audio",
        "docinfo",
        "pagebreak",
        "slate",
        "shortdescription",
    }
)
_PTX_PREFORMATTED = frozenset({"program", "pre", "console", "cd"})
_PTX_DISPLAY_MATH = frozenset({"me", "men", "md", "mdn"})
_PTX_LISTS = frozenset({"ol", "ul", "dl"})
_PTX_CHARACTERS = {
    "mdash": "—",
    "ndash": "–",
    "ellipsis": "…",
    "nbsp": " ",
    "lq": "“",
    "rq": "”",
    "lsq": "‘",
    "rsq": "’",
    "latex": "LaTeX",
    "tex": "TeX",
    "pretext": "PreTeXt",
    "fillin": "___",
    "ie": "i.e.",
    "eg": "e.g.",
    "etc": "etc.",
    "vs": "vs.",
    "nb": "N.B.",
    "ps": "PS:",
    "am": "a.m.",
    "pm": "p.m.",
    "today": "",
    "var": "___",  # a WeBWorK answer blank
}
_PTX_INLINE = frozenset(
    {
        "m",
        "term",
        "em",
        "alert",
        "q",
        "sq",
        "c",
        "b",
        "i",
        "u",
        "foreign",
        "span",
        "pubtitle",
        "articletitle",
        "abbr",
        "acro",
        "init",
        "xref",
        "fn",
        "url",
        "email",
        "taxon",
        "quantity",
        "var",
        "idx",
        "delete",
        "insert",
        "stale",
        "tag",
        "attr",
        "icon",
        "kbd",
        *_PTX_CHARACTERS,
    }
)
_PTX_QUOTES = {"q": ("“", "”"), "sq": ("‘", "’")}
_PTX_MATH_MACROS = {"amp": "&", "lt": "<", "gt": ">"}  # PreTeXt's stand-ins for characters XML reserves
_PTX_MATH_MACRO = re.compile(r"\\(amp|lt|gt)(?![A-Za-z])")


def convert_ptx(source: str) -> ConvertedMarkup:
    """PreTeXt XML as blocks; `<m>` becomes `$...$`, display math `$$...$$`. Raises ET.ParseError."""
    root = ET.fromstring(_replace_html_entities(source))
    check_nesting(root, list, "PreTeXt element")  # the converter below recurses once per level
    converter = _PtxConverter()
    blocks = converter.blocks(root)
    title_element = root.find("title")
    title = collapse_spaces(converter.inline(title_element)) if title_element is not None else None
    metadata: dict[str, MetadataValue] = {}
    if root.get(_XML_ID):
        metadata["xml_id"] = root.get(_XML_ID)
    if converter.includes:
        metadata["includes"] = converter.includes
        if not [block for block in blocks if not block.startswith("#")]:
            blocks.append("Includes: " + ", ".join(converter.includes))
    return ConvertedMarkup(text=BLOCK_SEPARATOR.join(blocks), title=title or None, metadata=metadata)


def _ptx_math(element: ET.Element) -> str:
    math = collapse_spaces("".join(element.itertext()))
    return _PTX_MATH_MACRO.sub(lambda match: _PTX_MATH_MACROS[match.group(1)], math)


def _is_paragraph(block: str) -> bool:
    return "\n" not in block and not block.startswith(("$$", "#", "- ", "1. "))


def _replace_html_entities(source: str) -> str:
    """PreTeXt sources use HTML entities such as `&mdash;` that plain XML does not define."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in _XML_ENTITIES or name not in html.entities.name2codepoint:
            return match.group(0)
        return chr(html.entities.name2codepoint[name])

    return _NAMED_ENTITY.sub(replace, source)


class _PtxConverter:
    """Walks one PreTeXt tree; collects the `xi:include` links it meets."""

    def __init__(self) -> None:
        self.includes: list[str] = []

    def blocks(self, element: ET.Element) -> list[str]:
        tag = element.tag
        if tag == _XI_INCLUDE:
            self.includes.append(element.get("href", "").removeprefix("./"))
            return []
        if tag in _PTX_SKIPPED or not isinstance(tag, str):
            return []
        if tag in _PTX_DISPLAY_MATH:
            return [self.display_math(element)]
        if tag in _PTX_LISTS:
            lines = self.list_lines(element)
            return ["\n".join(lines)] if lines else []
        if tag == "tabular":
            rows = [" | ".join(collapse_spaces(self.inline(cell)) for cell in row) for row in element.iter("row")]
            rows = [row for row in rows if row.strip(" |")]
            return ["\n".join(rows)] if rows else []
        if tag in _PTX_PREFORMATTED:
            lines = [line.rstrip() for line in "".join(element.itertext()).split("\n") if line.strip()]
            return ["\n".join(lines)] if lines else []
        heading = self.heading(element)
        body = self.flow(element)
        if heading is None:
            return body
        if heading.endswith(".") and body and _is_paragraph(body[0]):
            return [f"{heading} {body[0]}", *body[1:]]  # "Proof. ..." reads better than a lone label
        return [heading, *body]

    def heading(self, element: ET.Element) -> str | None:
        title_element = element.find("title")
        title = collapse_spaces(self.inline(title_element)) if title_element is not None else ""
        if element.tag in _PTX_SECTIONS:
            return f"{'#' * _PTX_SECTIONS[element.tag]} {title}" if title else None
        if element.tag in _PTX_ENVIRONMENTS:
            kind = element.tag.capitalize()
            return f"{kind}: {title}" if title else f"{kind}."
        return title or None

    def flow(self, element: ET.Element) -> list[str]:
        """Runs of text and inline children make one block each; block children add their own."""
        blocks: list[str] = []
        inline = [element.text or ""]

        def flush() -> None:
            text = collapse_spaces("".join(inline))
            inline.clear()
            if text:
                blocks.append(text)

        for child in element:
            if child.tag in _PTX_INLINE:
                inline.append(self.inline(child))
            elif child.tag != "title" and child.tag not in _PTX_SKIPPED:
                flush()
                blocks.extend(self.blocks(child))
            inline.append(child.tail or "")
        flush()
        return blocks

    def inline(self, element: ET.Element) -> str:
        tag = element.tag
        if tag in _PTX_SKIPPED:
            return ""
        if tag in _PTX_CHARACTERS:
            return _PTX_CHARACTERS[tag]
        if tag == "m":
            return f"${_ptx_math(element)}$"
        if tag in _PTX_DISPLAY_MATH:
            return f" {self.display_math(element)} "
        if tag == "xref" and not (element.text or len(element)):
            return element.get("ref", "").split(",")[0].strip()
        if tag == "url" and not (element.text or len(element)):
            return element.get("href", "")
        content = (element.text or "") + "".join(self.inline(child) + (child.tail or "") for child in element)
        if tag == "fn":
            return f" ({collapse_spaces(content)})"
        opening, closing = _PTX_QUOTES.get(tag, ("", ""))
        return f"{opening}{content}{closing}"

    def display_math(self, element: ET.Element) -> str:
        rows = [_ptx_math(row) for row in element if row.tag == "mrow"]
        if rows:
            return "$$ " + " \\\\ ".join(rows) + " $$"
        return f"$${_ptx_math(element)}$$"

    def list_lines(self, element: ET.Element) -> list[str]:
        """One line per item; an item's later paragraphs, math and nested lists become indented lines."""
        lines = []
        for number, item in enumerate(element.findall("li"), start=1):
            marker = f"{number}." if element.tag == "ol" else "-"
            title_element = item.find("title")
            if title_element is not None:
                marker += f" {collapse_spaces(self.inline(title_element))}:"
            item_lines = [line for block in self.flow(item) for line in block.split("\n")]
            first = item_lines[0] if item_lines else ""
            lines.append(f"{marker} {first}".rstrip())
            lines.extend(f"{LIST_INDENT}{line}" for line in item_lines[1:])
        return lines
