"""The LaTeX vocabulary the converter (corpus/latex_markup.py) knows: what each environment and command becomes.

Sections become `#` headings, lists `- ` lines, theorem-like environments a labelled block, references a word and
a number; a command not named here vanishes and its `{group}` stays as text.
"""

from __future__ import annotations

TEX_SECTIONS = {"part": 1, "chapter": 1, "section": 2, "subsection": 3, "subsubsection": 4, "paragraph": 4}
TEX_LISTS = ("itemize", "enumerate", "description", "tablenotes", "compactitem", "compactenum")
TEX_DROPPED_ENVS = ("figure", "figure*", "wrapfigure", "tikzpicture", "picture", "comment")
TEX_TABLES = {"tabular": 1, "tabular*": 2, "tabularx": 2, "array": 1}  # how many spec groups to skip
TEX_THEOREMS = {
    "thm": "Theorem",
    "theorem": "Theorem",
    "lem": "Lemma",
    "lemma": "Lemma",
    "prp": "Proposition",
    "proposition": "Proposition",
    "cor": "Corollary",
    "corollary": "Corollary",
    "exc": "Exercise",
    "exercise": "Exercise",
    "proof": "Proof",
    "defn": "Definition",
    "definition": "Definition",
    "example": "Example",
    "remark": "Remark",
}
TEX_REFERENCES = {
    "figref": "Figure",
    "Figref": "Figure",
    "secref": "Section",
    "sref": "Section",
    "chapref": "Chapter",
    "lemref": "Lemma",
    "thmref": "Theorem",
    "excref": "Exercise",
    "corref": "Corollary",
    "prpref": "Proposition",
    "tabref": "Table",
    "eqref": "Equation",
    "myeqref": "Equation",
    "ref": "",
}
TEX_SYMBOLS = {
    "ldots": "...",
    "dots": "...",
    "cdots": "...",
    "LaTeX": "LaTeX",
    "TeX": "TeX",
    "etal": "et al.",
    "lang": "Java",  # Open Data Structures macro: the edition's language; its Java parts are kept
    "enspace": " ",
    "quad": " ",
    "qquad": " ",
    "item": "- ",
    "i": "i",
    "j": "j",
    "ss": "ss",
    "textbackslash": "\\",
    "S": "§",
    "copyright": "©",
}
TEX_CHAR_COMMANDS = {"\\": "\n", " ": " ", "{": "{", "}": "}", "_": "_", "\n": " ", ",": " ", ";": " "}
TEX_DROPPED_COMMANDS = {
    "index": 1,
    "label": 1,
    "cite": 1,
    "citep": 1,
    "citet": 1,
    "pageref": 1,
    "includegraphics": 1,
    "vspace": 1,
    "hspace": 1,
    "newlength": 1,
    "pagenumbering": 1,
    "input": 1,
    "include": 1,
    "cline": 1,
    "bibliography": 1,
    "bibliographystyle": 1,
    "begin": 1,
    "end": 1,
    "thispagestyle": 1,
    "pagestyle": 1,
    "cpponly": 1,
    "pcodeonly": 1,
    "tnote": 1,  # Open Data Structures: C++ and pseudocode editions
    "setlength": 2,
    "addtolength": 2,
    "setcounter": 2,
    "newcommand": 2,
    "renewcommand": 2,
    "addcontentsline": 3,
}
TEX_KEPT_ARGUMENT = {"multicolumn": 3, "resizebox": 3, "href": 2}  # keep the last argument
