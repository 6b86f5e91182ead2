"""LaTeX to passage-ready text: prose without markup, math kept verbatim as LaTeX source."""

from __future__ import annotations

import re
from collections.abc import Callable

from veriground.corpus.delimited import Closer, replace_delimited
from veriground.corpus.latex_commands import (
    TEX_CHAR_COMMANDS,
    TEX_DROPPED_COMMANDS,
    TEX_DROPPED_ENVS,
    TEX_KEPT_ARGUMENT,
    TEX_LISTS,
    TEX_REFERENCES,
    TEX_SECTIONS,
    TEX_SYMBOLS,
    TEX_TABLES,
    TEX_THEOREMS,
)
from veriground.corpus.markup import (
    BLOCK_SEPARATOR,
    LIST_INDENT,
    MAX_NESTING_LEVELS,
    ConvertedMarkup,
    MarkupTooDeep,
    collapse_spaces,
    find_heading_title,
)

_STASH_OPEN, _STASH_CLOSE = "\ue000", "\ue001"
_STASHED = re.compile(f"{_STASH_OPEN}(\\d+){_STASH_CLOSE}")
_PARAGRAPH = "\ue002"  # a block boundary; any other blank line left by removed markup is dropped
_INDENT = "\ue003"  # list continuation indent, kept through the line stripping
_TEX_ESCAPES = {"%": "\ue004", "#": "\ue005", "$": "\ue006", "&": "\ue007"}  # \%, \#, \$, \& in the source
_TEX_ESCAPE = re.compile(r"\\\\|\\([%#$&])")
_TEX_DOCUMENT = re.compile(r"\\begin\{document\}(.*?)(?:\\end\{document\}|\Z)", re.DOTALL)
_TEX_VERBATIM_OPEN = re.compile(r"\\begin\{(verbatim|lstlisting|Verbatim)\}")  # to its \end{...}: replace_delimited
_TEX_VERB = re.compile(r"\\verb\*?([^A-Za-z\s])(.*?)\1")
_TEX_CODE = re.compile(r"#([^#\n]+)#")  # Open Data Structures writes inline code as #name#
_TEX_COMMENT_LINE = re.compile(r"^[ \t]*%[^\n]*\n?", re.MULTILINE)
_TEX_COMMENT = re.compile(r"%[^\n]*")
# Math openers, display forms first; each closes at the nearest closer after it (delimited.replace_delimited keeps
# this linear when closers are missing: `\[` x 50,000 was quadratic as one regex). Inline $...$ holds at least one
# character and never spans a blank line.
_TEX_MATH_OPEN = re.compile(
    r"\\begin\{(equation|align|alignat|eqnarray|gather|multline|flalign|displaymath)(\*?)\}|\$\$|\\\[|\\\(|\$"
)
_TEX_MATH_CLOSERS = {"$$": "$$", "\\[": "\\]", "\\(": "\\)"}
_TEX_INLINE_OPENERS = ("\\(", "$")
_TEX_BLANK_LINE = re.compile(r"\n[ \t]*\n")
# Environments nest; each pass of render_environments renders the innermost ones, so passes = depth.
MAX_TEX_NESTING = MAX_NESTING_LEVELS
_TEX_WORD_BEFORE_CODE = re.compile(f"(\\\\[A-Za-z]+)(?={_STASH_OPEN})")
_TEX_MATH_LABEL = re.compile(r"\\(?:[A-Za-z]*label|nonumber|notag)\b(?:\{[^{}]*\})?")
_TEX_BLANK_LINES = re.compile(r"\n[ \t]*\n\s*")
# An optional argument `[...]` longer than this is text with a stray `[`: unbounded, each unclosed `[` would scan
# to the end of the document (`\begin{theorem}[` x 2,000: x15 time per 4x input).
MAX_TEX_OPTION_CHARS = 500
_TEX_OPTION = rf"\[([^\]]{{0,{MAX_TEX_OPTION_CHARS}}})\]"
_TEX_INNERMOST_ENV = re.compile(
    rf"\\begin\{{([A-Za-z]+\*?)\}}(?:{_TEX_OPTION})?((?:(?!\\begin\{{)[\s\S])*?)\\end\{{\1\}}"
)
_TEX_ITEM = re.compile(rf"\\item\b\s*(?:{_TEX_OPTION})?")
_TEX_ROW_END = re.compile(rf"\\\\(?:\[[^\]]{{0,{MAX_TEX_OPTION_CHARS}}}\])?")
_TEX_BRACE = re.compile(r"\\.|[{}]", re.DOTALL)  # an escaped character (\{ is a literal brace) or a brace
_TEX_COMMAND = re.compile(r"\\(?:([A-Za-z]+)\*?|(.))", re.DOTALL)
_TEX_SPACES = re.compile(r"(?<=\S)[ \t]{2,}")
_TEX_TITLE = re.compile(rf"\\title\s*(?:\[[^\]\n]{{0,{MAX_TEX_OPTION_CHARS}}}\])?\s*\{{")
_TEX_TITLE_BREAK = re.compile(r"\\\\(?:\[[^\]]*\])?|\\(?:newline|linebreak)\b")  # \\ in a title is a line break
_TEX_UNESCAPED_COMMENT = re.compile(r"(?<!\\)%[^\n]*")
MAX_TEX_TITLE_SOURCE_CHARS = 2_000  # a \title longer than this is not a title (and is not scanned further)


def convert_tex(source: str) -> ConvertedMarkup:
    """LaTeX body as blocks: sections as `# ...` lines, lists as `- ` lines, math kept as source.

    The title is the document's `\\title{...}` as plain text, else its top-level section heading."""
    text = _TexConverter().convert(source)
    return ConvertedMarkup(text=text, title=find_tex_title(source) or find_heading_title(text))


def find_tex_title(source: str) -> str | None:
    """The plain text of the first uncommented `\\title[short]{long}` (the long form), or None."""
    uncommented = _TEX_UNESCAPED_COMMENT.sub("", source)
    match = _TEX_TITLE.search(uncommented)
    if match is None:
        return None
    window = uncommented[match.end() - 1 : match.end() - 1 + MAX_TEX_TITLE_SOURCE_CHARS]  # from the title's `{`
    close = _match_braces(window).get(0)
    if close is None:
        return None
    return collapse_spaces(_TexConverter().convert(_TEX_TITLE_BREAK.sub(" ", window[1:close]))) or None


class _TexConverter:
    """One conversion: pieces that must survive untouched wait in `stash` behind placeholders."""

    def __init__(self) -> None:
        self.stash: list[str] = []
        self.depth = 0  # render_commands nesting: \section{\footnote{...}} renders its arguments recursively

    def convert(self, source: str) -> str:
        text = _TEX_ESCAPE.sub(lambda m: _TEX_ESCAPES[m.group(1)] if m.group(1) else m.group(0), source)
        if document := _TEX_DOCUMENT.search(text):
            text = document.group(1)
        text = replace_delimited(text, _TEX_VERBATIM_OPEN, lambda m: f"\\end{{{m.group(1)}}}", self.stash_verbatim)
        text = _TEX_VERB.sub(lambda m: self.put(_unescape_tex(m.group(2))), text)
        text = _TEX_CODE.sub(lambda m: self.put(_unescape_tex(m.group(1))), text)
        text = _TEX_COMMENT.sub("", _TEX_COMMENT_LINE.sub("", text))
        text = replace_delimited(text, _TEX_MATH_OPEN, _tex_math_closer, self.stash_math)
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

    def stash_verbatim(self, opener: re.Match[str], span: str) -> str:
        body = span[len(opener.group(0)) : -len(f"\\end{{{opener.group(1)}}}")]
        return self.block(self.put(_unescape_tex(body.strip("\n"))))

    def stash_math(self, opener: re.Match[str], math: str) -> str:
        math = _TEX_MATH_LABEL.sub("", math)
        math = _TEX_WORD_BEFORE_CODE.sub(r"\1 ", math)  # \lceil#x#\rceil must not become \lceilx\rceil
        math = "\n".join(line.rstrip() for line in math.split("\n") if line.strip())
        math = _unescape_tex(math, in_math=True)
        if opener.group(0) in _TEX_INLINE_OPENERS:
            return self.put(math)
        return self.block(self.put(math))

    def render_environments(self, text: str) -> str:
        for _ in range(MAX_TEX_NESTING + 1):
            rendered = _TEX_INNERMOST_ENV.sub(self.render_environment, text)
            if rendered == text:
                return rendered
            text = rendered
        raise MarkupTooDeep("LaTeX environment", MAX_TEX_NESTING)

    def render_environment(self, match: re.Match[str]) -> str:
        name, option, body = match.group(1), match.group(2), match.group(3)
        if name in TEX_DROPPED_ENVS:
            return ""
        if name in TEX_LISTS:
            return self.block(_render_tex_list(name, body))
        if name in TEX_TABLES:
            return self.block(_render_tex_table(body, TEX_TABLES[name]))
        if name in TEX_THEOREMS:
            label = TEX_THEOREMS[name] + (f" ({option})" if option else "")
            return self.block(f"{label}. {body.strip()}")
        if name == "minipage":
            body = _skip_group(body)
        return self.block(body)

    def render_commands(self, text: str) -> str:
        if self.depth >= MAX_NESTING_LEVELS:
            raise MarkupTooDeep("LaTeX command argument")
        self.depth += 1
        try:
            return self._render_commands(text)
        finally:
            self.depth -= 1

    def _render_commands(self, text: str) -> str:
        out, position = [], 0
        closers = _match_braces(text)
        while match := _TEX_COMMAND.search(text, position):
            out.append(text[position : match.start()])
            if match.group(1) is None:
                char = TEX_CHAR_COMMANDS.get(match.group(2), "")
                out.append(self.put(char) if char in ("{", "}") else char)  # finish() drops bare braces
                position = match.end()
            else:
                replacement, position = self.render_command(match.group(1), text, match.end(), closers)
                out.append(replacement)
        out.append(text[position:])
        return "".join(out)

    def render_command(self, name: str, text: str, position: int, closers: dict[int, int]) -> tuple[str, int]:
        arity, render = self.command_rule(name)
        if arity == 0:
            return render([]), position
        position = _skip_option(text, position)
        arguments = []
        for _ in range(arity):
            argument, position = _read_group(text, position, closers)
            arguments.append(argument)
        return render(arguments), position

    def command_rule(self, name: str) -> tuple[int, Callable[[list[str]], str]]:
        if name in TEX_SECTIONS:
            hashes = "#" * TEX_SECTIONS[name]
            return 1, lambda args: self.block(f"{hashes} {collapse_spaces(self.render_commands(args[0]))}")
        if name in TEX_DROPPED_COMMANDS or name.endswith(("label", "import")):
            return TEX_DROPPED_COMMANDS.get(name, 1), lambda args: ""
        if name in TEX_KEPT_ARGUMENT:
            return TEX_KEPT_ARGUMENT[name], lambda args: self.render_commands(args[-1])
        if name in TEX_REFERENCES:
            word = TEX_REFERENCES[name]
            return 1, lambda args: f"{word} {args[0]}".strip()
        if name == "footnote":
            return 1, lambda args: f" ({self.render_commands(args[0]).strip()})"
        if name == "caption":
            return 1, lambda args: self.block(self.render_commands(args[0]))
        if name == "url":
            return 1, lambda args: self.put(args[0])
        symbol = TEX_SYMBOLS.get(name, "")
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


def _tex_math_closer(opener: re.Match[str]) -> Closer:
    if opener.group(1):
        return f"\\end{{{opener.group(1)}{opener.group(2)}}}"
    return _TEX_MATH_CLOSERS.get(opener.group(0), _close_inline_math)


def _close_inline_math(text: str, position: int) -> int:
    """After the `$` that closes inline math opened at `position`: one character at least, no blank line."""
    end = text.find("$", position)
    if end <= position or _TEX_BLANK_LINE.search(text, position, end):
        return -1
    return end + 1


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
        end = text.find("]", position, position + MAX_TEX_OPTION_CHARS + 2)
        return position if end < 0 else end + 1
    return position


def _skip_group(text: str) -> str:
    _, position = _read_group(text, 0, _match_braces(text))
    return text[position:]


def _match_braces(text: str) -> dict[int, int]:
    """Index of each `{` that closes -> index of its `}`, in one pass (a group's end is then a lookup: scanning for it
    from every opener was quadratic when many never close)."""
    closers: dict[int, int] = {}
    open_at: list[int] = []
    for token in _TEX_BRACE.finditer(text):
        if token.group() == "{":
            open_at.append(token.start())
        elif token.group() == "}" and open_at:
            closers[open_at.pop()] = token.start()
    return closers


def _read_group(text: str, position: int, closers: dict[int, int]) -> tuple[str, int]:
    """The content of the `{...}` group at `position` (after blanks) and the index after it; no group when the
    brace never closes (its `{` stays text, which finish() drops)."""
    start = position
    while start < len(text) and text[start] in " \t\n":
        start += 1
    end = closers.get(start)
    if end is None:
        return "", position
    return text[start + 1 : end], end + 1
