"""Markup converters for the loaders: HTML, LaTeX and PreTeXt source -> plain text blocks, a title, metadata.

Blocks (paragraphs, headings, lists, display math, tables) are separated by one blank line; math stays
as LaTeX source. The output still goes through `normalize_text` in the loader.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field

from bs4 import BeautifulSoup, Comment, NavigableString, Tag

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


# --- HTML ---------------------------------------------------------------------------------------

_HTML_DROP_TAGS = (
    "head", "script", "style", "noscript", "nav", "header", "footer", "aside", "form", "svg", "template",
    "iframe", "button", "select", "textarea",
)
_HTML_HEADINGS = {f"h{level}": level for level in range(1, 7)}
_HTML_LISTS = ("ul", "ol", "menu")
_HTML_BLOCKS = frozenset({
    "address", "article", "blockquote", "body", "caption", "dd", "details", "div", "dl", "dt", "fieldset",
    "figcaption", "figure", "hr", "html", "li", "main", "p", "pre", "section", "summary", "table", "tbody",
    "tfoot", "thead", "tr", *_HTML_LISTS, *_HTML_HEADINGS,
})
_HTML_LINE_BREAK = "\ue010"  # stands for <br> until inline whitespace has been collapsed


def convert_html(source: str) -> ConvertedMarkup:
    """Main content of an HTML page as blocks: headings as `# ...`, lists and table rows as lines."""
    soup = BeautifulSoup(source, "html.parser")
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
        rows = [_html_row(row) for row in tag.find_all("tr")]
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
    texts = (cell.get_text(" ").replace(_HTML_LINE_BREAK, " ") for cell in row.find_all(["td", "th"]))
    cells = [collapse_spaces(text) for text in texts]
    return " | ".join(cells) if any(cells) else ""


def _clean_html_inline(text: str) -> str:
    lines = (collapse_spaces(line) for line in text.split(_HTML_LINE_BREAK))
    return "\n".join(line for line in lines if line)


# --- LaTeX --------------------------------------------------------------------------------------

_STASH_OPEN, _STASH_CLOSE = "\ue000", "\ue001"
_STASHED = re.compile(f"{_STASH_OPEN}(\\d+){_STASH_CLOSE}")
_PARAGRAPH = "\ue002"  # a block boundary; any other blank line left by removed markup is dropped
_INDENT = "\ue003"  # list continuation indent, kept through the line stripping
_TEX_ESCAPES = {"%": "\ue004", "#": "\ue005", "$": "\ue006", "&": "\ue007"}  # \%, \#, \$, \& in the source
_TEX_ESCAPE = re.compile(r"\\\\|\\([%#$&])")
_TEX_DOCUMENT = re.compile(r"\\begin\{document\}(.*?)(?:\\end\{document\}|\Z)", re.DOTALL)
_TEX_VERBATIM = re.compile(r"\\begin\{(verbatim|lstlisting|Verbatim)\}(.*?)\\end\{\1\}", re.DOTALL)
_TEX_VERB = re.compile(r"\\verb\*?([^A-Za-z\s])(.*?)\1")
_TEX_CODE = re.compile(r"#([^#\n]+)#")  # Open Data Structures writes inline code as #name#
_TEX_COMMENT_LINE = re.compile(r"^[ \t]*%[^\n]*\n?", re.MULTILINE)
_TEX_COMMENT = re.compile(r"%[^\n]*")
_TEX_MATH = re.compile(  # display forms first; inline $...$ never spans a blank line
    r"(?P<env>\\begin\{(?P<name>equation|align|alignat|eqnarray|gather|multline|flalign|displaymath)"
    r"(?P<star>\*?)\}.*?\\end\{(?P=name)(?P=star)\})"
    r"|(?P<dollars>\$\$.*?\$\$)|(?P<bracket>\\\[.*?\\\])|(?P<paren>\\\(.*?\\\))"
    r"|(?P<inline>\$(?:[^$\n]|\n(?![ \t]*\n))+\$)",
    re.DOTALL,
)
_TEX_WORD_BEFORE_CODE = re.compile(f"(\\\\[A-Za-z]+)(?={_STASH_OPEN})")
_TEX_MATH_LABEL = re.compile(r"\\(?:[A-Za-z]*label|nonumber|notag)\b(?:\{[^{}]*\})?")
_TEX_BLANK_LINES = re.compile(r"\n[ \t]*\n\s*")
_TEX_INNERMOST_ENV = re.compile(
    r"\\begin\{([A-Za-z]+\*?)\}(?:\[([^\]]*)\])?((?:(?!\\begin\{)[\s\S])*?)\\end\{\1\}"
)
_TEX_ITEM = re.compile(r"\\item\b\s*(?:\[([^\]]*)\])?")
_TEX_ROW_END = re.compile(r"\\\\(?:\[[^\]]*\])?")
_TEX_COMMAND = re.compile(r"\\(?:([A-Za-z]+)\*?|(.))", re.DOTALL)
_TEX_SPACES = re.compile(r"(?<=\S)[ \t]{2,}")

_TEX_SECTIONS = {"part": 1, "chapter": 1, "section": 2, "subsection": 3, "subsubsection": 4, "paragraph": 4}
_TEX_LISTS = ("itemize", "enumerate", "description", "tablenotes", "compactitem", "compactenum")
_TEX_DROPPED_ENVS = ("figure", "figure*", "wrapfigure", "tikzpicture", "picture", "comment")
_TEX_TABLES = {"tabular": 1, "tabular*": 2, "tabularx": 2, "array": 1}  # how many spec groups to skip
_TEX_THEOREMS = {
    "thm": "Theorem", "theorem": "Theorem", "lem": "Lemma", "lemma": "Lemma", "prp": "Proposition",
    "proposition": "Proposition", "cor": "Corollary", "corollary": "Corollary", "exc": "Exercise",
    "exercise": "Exercise", "proof": "Proof", "defn": "Definition", "definition": "Definition",
    "example": "Example", "remark": "Remark",
}
_TEX_REFERENCES = {
    "figref": "Figure", "Figref": "Figure", "secref": "Section", "sref": "Section", "chapref": "Chapter",
    "lemref": "Lemma", "thmref": "Theorem", "excref": "Exercise", "corref": "Corollary",
    "prpref": "Proposition", "tabref": "Table", "eqref": "Equation", "myeqref": "Equation", "ref": "",
}
_TEX_SYMBOLS = {
    "ldots": "...", "dots": "...", "cdots": "...", "LaTeX": "LaTeX", "TeX": "TeX", "etal": "et al.",
    "lang": "Java",  # Open Data Structures macro: the edition's language; its Java parts are kept
    "enspace": " ", "quad": " ", "qquad": " ", "item": "- ", "i": "i", "j": "j", "ss": "ss",
    "textbackslash": "\\", "S": "§", "copyright": "©",
}
_TEX_CHAR_COMMANDS = {"\\": "\n", " ": " ", "{": "{", "}": "}", "_": "_", "\n": " ", ",": " ", ";": " "}
_TEX_DROPPED_COMMANDS = {
    "index": 1, "label": 1, "cite": 1, "citep": 1, "citet": 1, "pageref": 1, "includegraphics": 1,
    "vspace": 1, "hspace": 1, "newlength": 1, "pagenumbering": 1, "input": 1, "include": 1, "cline": 1,
    "bibliography": 1, "bibliographystyle": 1, "begin": 1, "end": 1, "thispagestyle": 1, "pagestyle": 1,
    "cpponly": 1, "pcodeonly": 1, "tnote": 1,  # Open Data Structures: C++ and pseudocode editions
    "setlength": 2, "addtolength": 2, "setcounter": 2, "newcommand": 2, "renewcommand": 2,
    "addcontentsline": 3,
}
_TEX_KEPT_ARGUMENT = {"multicolumn": 3, "resizebox": 3, "href": 2}  # keep the last argument


def convert_tex(source: str) -> ConvertedMarkup:
    """LaTeX body as blocks: sections as `# ...` lines, lists as `- ` lines, math kept as source."""
    text = _TexConverter().convert(source)
    return ConvertedMarkup(text=text, title=find_heading_title(text))


class _TexConverter:
    """One conversion: pieces that must survive untouched wait in `stash` behind placeholders."""

    def __init__(self) -> None:
        self.stash: list[str] = []

    def convert(self, source: str) -> str:
        text = _TEX_ESCAPE.sub(lambda m: _TEX_ESCAPES[m.group(1)] if m.group(1) else m.group(0), source)
        if document := _TEX_DOCUMENT.search(text):
            text = document.group(1)
        text = _TEX_VERBATIM.sub(lambda m: self.block(self.put(_unescape_tex(m.group(2).strip("\n")))), text)
        text = _TEX_VERB.sub(lambda m: self.put(_unescape_tex(m.group(2))), text)
        text = _TEX_CODE.sub(lambda m: self.put(_unescape_tex(m.group(1))), text)
        text = _TEX_COMMENT.sub("", _TEX_COMMENT_LINE.sub("", text))
        text = _TEX_MATH.sub(self.stash_math, text)
        text = _TEX_BLANK_LINES.sub(_PARAGRAPH, text)
        text = self.render_environments(text)
        text = self.render_commands(text)
        return self.finish(text)

    def put(self, piece: str) -> str:
        self.stash.append(piece)
        return f"{_STASH_OPEN}{len(self.stash) - 1}{_STASH_CLOSE}"

    @staticmethod
    def block(text: str) -> str:
        return f"{_PARAGRAPH}{text}{_PARAGRAPH}"

    def stash_math(self, match: re.Match[str]) -> str:
        math = _TEX_MATH_LABEL.sub("", match.group(0))
        math = _TEX_WORD_BEFORE_CODE.sub(r"\1 ", math)  # \lceil#x#\rceil must not become \lceilx\rceil
        math = "\n".join(line.rstrip() for line in math.split("\n") if line.strip())
        math = _unescape_tex(math, in_math=True)
        if match.group("paren") or match.group("inline"):
            return self.put(math)
        return self.block(self.put(math))

    def render_environments(self, text: str) -> str:
        while True:
            rendered = _TEX_INNERMOST_ENV.sub(self.render_environment, text)
            if rendered == text:
                return rendered
            text = rendered

    def render_environment(self, match: re.Match[str]) -> str:
        name, option, body = match.group(1), match.group(2), match.group(3)
        if name in _TEX_DROPPED_ENVS:
            return ""
        if name in _TEX_LISTS:
            return self.block(_render_tex_list(name, body))
        if name in _TEX_TABLES:
            return self.block(_render_tex_table(body, _TEX_TABLES[name]))
        if name in _TEX_THEOREMS:
            label = _TEX_THEOREMS[name] + (f" ({option})" if option else "")
            return self.block(f"{label}. {body.strip()}")
        if name == "minipage":
            body = _skip_group(body)
        return self.block(body)

    def render_commands(self, text: str) -> str:
        out, position = [], 0
        while match := _TEX_COMMAND.search(text, position):
            out.append(text[position : match.start()])
            if match.group(1) is None:
                char = _TEX_CHAR_COMMANDS.get(match.group(2), "")
                out.append(self.put(char) if char in ("{", "}") else char)  # finish() drops bare braces
                position = match.end()
            else:
                replacement, position = self.render_command(match.group(1), text, match.end())
                out.append(replacement)
        out.append(text[position:])
        return "".join(out)

    def render_command(self, name: str, text: str, position: int) -> tuple[str, int]:
        arity, render = self.command_rule(name)
        if arity == 0:
            return render([]), position
        position = _skip_option(text, position)
        arguments = []
        for _ in range(arity):
            argument, position = _read_group(text, position)
            arguments.append(argument)
        return render(arguments), position

    def command_rule(self, name: str) -> tuple[int, Callable[[list[str]], str]]:
        if name in _TEX_SECTIONS:
            hashes = "#" * _TEX_SECTIONS[name]
            return 1, lambda args: self.block(f"{hashes} {collapse_spaces(self.render_commands(args[0]))}")
        if name in _TEX_DROPPED_COMMANDS or name.endswith(("label", "import")):
            return _TEX_DROPPED_COMMANDS.get(name, 1), lambda args: ""
        if name in _TEX_KEPT_ARGUMENT:
            return _TEX_KEPT_ARGUMENT[name], lambda args: self.render_commands(args[-1])
        if name in _TEX_REFERENCES:
            word = _TEX_REFERENCES[name]
            return 1, lambda args: f"{word} {args[0]}".strip()
        if name == "footnote":
            return 1, lambda args: f" ({self.render_commands(args[0]).strip()})"
        if name == "caption":
            return 1, lambda args: self.block(self.render_commands(args[0]))
        if name == "url":
            return 1, lambda args: self.put(args[0])
        symbol = _TEX_SYMBOLS.get(name, "")
        return 0, lambda args: symbol  # unknown commands vanish; a following {group} stays as text

    def finish(self, text: str) -> str:
        text = text.replace("~", " ").replace("{", "").replace("}", "")
        text = text.replace("---", "—").replace("--", "–").replace("``", "“").replace("''", "”")
        text = _TEX_SPACES.sub(" ", text)
        text = "\n".join(line.strip() for line in text.split("\n") if line.strip())
        text = re.sub(f"\\s*{_PARAGRAPH}[\\s{_PARAGRAPH}]*", BLOCK_SEPARATOR, text).strip()
        text = text.replace(_INDENT, LIST_INDENT)
        while _STASHED.search(text):
            text = _STASHED.sub(lambda m: self.stash[int(m.group(1))], text)
        return _unescape_tex(text)


def _unescape_tex(text: str, *, in_math: bool = False) -> str:
    for char, placeholder in _TEX_ESCAPES.items():
        text = text.replace(placeholder, f"\\{char}" if in_math else char)
    return text


def _render_tex_list(name: str, body: str) -> str:
    parts = _TEX_ITEM.split(body)
    lines = []
    for number, (label, item) in enumerate(zip(parts[1::2], parts[2::2], strict=True), start=1):
        item_lines = [line.strip() for line in item.replace(_PARAGRAPH, "\n").split("\n") if line.strip()]
        if name in ("enumerate", "compactenum") and label is None:
            marker = f"{number}."
        elif label is not None:
            marker = f"- {label}:" if name == "description" else f"- {label}"
        else:
            marker = "-"
        first = item_lines[0] if item_lines else ""
        lines.append(f"{marker} {first}".rstrip())
        lines.extend(f"{_INDENT}{line}" for line in item_lines[1:])
    return "\n".join(lines)


def _render_tex_table(body: str, spec_groups: int) -> str:
    for _ in range(spec_groups):
        body = _skip_group(body)
    rows = []
    for row in _TEX_ROW_END.split(body):
        cells = [collapse_spaces(cell.replace(_PARAGRAPH, " ")) for cell in row.split("&")]
        cells = [re.sub(r"\\hline\b|\\cline\{[^}]*\}", "", cell).strip() for cell in cells]
        if any(cells):
            rows.append(" | ".join(cells))
    return "\n".join(rows)


def _skip_option(text: str, position: int) -> int:
    if text.startswith("[", position):
        end = text.find("]", position)
        return position if end < 0 else end + 1
    return position


def _skip_group(text: str) -> str:
    _, position = _read_group(text, 0)
    return text[position:]


def _read_group(text: str, position: int) -> tuple[str, int]:
    """The content of the `{...}` group at `position` (after blanks) and the index after it."""
    start = position
    while start < len(text) and text[start] in " \t\n":
        start += 1
    if start >= len(text) or text[start] != "{":
        return "", position
    depth, index = 0, start
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return text[start + 1 : index], index + 1
        index += 1
    return text[start + 1 :], len(text)


# --- PreTeXt ------------------------------------------------------------------------------------

_XI_INCLUDE = "{http://www.w3.org/2001/XInclude}include"
_XML_ID = "{http://www.w3.org/XML/1998/namespace}id"
_XML_ENTITIES = frozenset({"amp", "lt", "gt", "quot", "apos"})
_NAMED_ENTITY = re.compile(r"&([A-Za-z][A-Za-z0-9]*);")
_PTX_SECTIONS = {
    "book": 1, "article": 1, "chapter": 1, "appendix": 1, "section": 2, "subsection": 3,
    "subsubsection": 4, "paragraphs": 5, "worksheet": 3, "exercises": 3, "reading-questions": 3,
}
_PTX_ENVIRONMENTS = frozenset({
    "definition", "theorem", "lemma", "corollary", "proposition", "claim", "fact", "conjecture", "axiom",
    "principle", "example", "problem", "question", "exercise", "proof", "remark", "note", "warning",
    "insight", "investigation", "activity", "project", "exploration", "algorithm", "solution", "hint",
    "answer", "assemblage",
})
_PTX_SKIPPED = frozenset({
    "idx", "index", "image", "latex-image", "sage", "pg-code", "pg-macros", "setup", "interactive",
    "jsxgraph", "notation", "response", "clearpage", "video", "audio", "docinfo", "pagebreak", "slate",
    "shortdescription",
})
_PTX_PREFORMATTED = frozenset({"program", "pre", "console", "cd"})
_PTX_DISPLAY_MATH = frozenset({"me", "men", "md", "mdn"})
_PTX_LISTS = frozenset({"ol", "ul", "dl"})
_PTX_CHARACTERS = {
    "mdash": "—", "ndash": "–", "ellipsis": "…", "nbsp": " ", "lq": "“", "rq": "”", "lsq": "‘", "rsq": "’",
    "latex": "LaTeX", "tex": "TeX", "pretext": "PreTeXt", "fillin": "___", "ie": "i.e.", "eg": "e.g.",
    "etc": "etc.", "vs": "vs.", "nb": "N.B.", "ps": "PS:", "am": "a.m.", "pm": "p.m.", "today": "",
    "var": "___",  # a WeBWorK answer blank
}
_PTX_INLINE = frozenset({
    "m", "term", "em", "alert", "q", "sq", "c", "b", "i", "u", "foreign", "span", "pubtitle",
    "articletitle", "abbr", "acro", "init", "xref", "fn", "url", "email", "taxon", "quantity", "var",
    "idx", "delete", "insert", "stale", "tag", "attr", "icon", "kbd", *_PTX_CHARACTERS,
})
_PTX_QUOTES = {"q": ("“", "”"), "sq": ("‘", "’")}
_PTX_MATH_MACROS = {"amp": "&", "lt": "<", "gt": ">"}  # PreTeXt's stand-ins for characters XML reserves
_PTX_MATH_MACRO = re.compile(r"\\(amp|lt|gt)(?![A-Za-z])")


def convert_ptx(source: str) -> ConvertedMarkup:
    """PreTeXt XML as blocks; `<m>` becomes `$...$`, display math `$$...$$`. Raises ET.ParseError."""
    root = ET.fromstring(_replace_html_entities(source))
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
            rows = [
                " | ".join(collapse_spaces(self.inline(cell)) for cell in row) for row in element.iter("row")
            ]
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
