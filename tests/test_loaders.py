"""Loaders: every supported format's text, title, metadata and page map, and every refusal message."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from pypdf import PdfReader, PdfWriter

from veriground.corpus import loaders
from veriground.corpus.loaders import SUPPORTED_SUFFIXES, load_file
from veriground.errors import InputFileError
from veriground.schema import LoadedDocument

MAX_BYTES = 1024 * 1024
REAL_CORPUS = Path("/work/shared/datasets/domain-corpora")


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    return path


def load_one(path: Path) -> LoadedDocument:
    documents = load_file(path, max_bytes=MAX_BYTES)
    assert len(documents) == 1
    return documents[0]


def build_pdf(page_texts: list[str], title: str | None = None) -> bytes:
    """A minimal PDF with one Helvetica text line per page, written object by object."""
    page_ids = [4 + 2 * index for index in range(len(page_texts))]
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>"
        % (b" ".join(b"%d 0 R" % page_id for page_id in page_ids), len(page_texts)),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for page_id, text in zip(page_ids, page_texts, strict=True):
        stream = b"BT /F1 12 Tf 72 720 Td (%s) Tj ET" % text.encode("latin-1")
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % (page_id + 1)
        )
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
    info = b""
    if title is not None:
        objects.append(b"<< /Title (%s) >>" % title.encode("latin-1"))
        info = b" /Info %d 0 R" % len(objects)
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref_offset = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        info,
        xref_offset,
    )
    return bytes(out)


def encrypt_pdf(data: bytes, user_password: str, owner_password: str) -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password=user_password, owner_password=owner_password, algorithm="RC4-128")
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def test_supported_suffixes_cover_every_format():
    expected = (".txt", ".md", ".markdown", ".html", ".htm", ".pdf", ".tex", ".ptx", ".jsonl")
    assert expected == SUPPORTED_SUFFIXES


# --- plain text ---------------------------------------------------------------------------------


def test_txt_is_normalised_into_blank_line_blocks(tmp_path):
    path = write(tmp_path, "notes.txt", "\ufeffLine one  \r\nline two\r\n\r\n\r\n\r\nSecond\tparagraph.\n")
    document = load_one(path)
    assert document.loader == "txt"
    assert document.text == "Line one\nline two\n\nSecond paragraph."
    assert document.record_key is None and document.pages == ()


# --- Markdown -----------------------------------------------------------------------------------

MARKDOWN = """---
title: Overtime
source_type: policy
source_id: 18f-handbook
redirect_from:
  - /overtime/
sidebar:
  navigation: travel
updated: 2021-07-13
---
Intro line <!-- a hidden note -->
{% comment %}TODO write more{% endcomment %}
continues here.
## Rules
Ask {% slack_channel "people-ops" %} or read [the FAQ]({% page "/travel-faq/" %}).
<!--
a whole-line comment
-->
{% include "low-system.html" %}

```
step one

step two
```
Done {{ site.baseurl }}.
"""


def test_markdown_keeps_front_matter_and_drops_comments_and_liquid(tmp_path):
    document = load_one(write(tmp_path, "overtime.md", MARKDOWN))
    assert document.loader == "md"
    assert document.title == "Overtime"
    assert document.metadata == {
        "title": "Overtime",
        "source_type": "policy",
        "source_id": "18f-handbook",
        "redirect_from": ["/overtime/"],
        "sidebar": '{"navigation": "travel"}',
        "updated": "2021-07-13",
    }
    assert document.text.split("\n\n") == [
        "Intro line\ncontinues here.",
        "## Rules",
        "Ask #people-ops or read [the FAQ](/travel-faq/).",
        "```\nstep one\nstep two\n```",
        "Done .",
    ]


def test_markdown_title_falls_back_to_the_top_heading(tmp_path):
    source = "Some text.\n### Minor\n# Chapter 3: Acceleration  <!-- m1 -->\nBody.\n"
    path = write(tmp_path, "ch.markdown", source)
    document = load_one(path)
    assert document.title == "Chapter 3: Acceleration"
    assert document.text == "Some text.\n\n### Minor\n\n# Chapter 3: Acceleration\n\nBody."


def test_markdown_raw_html_keeps_only_its_text(tmp_path):
    source = (
        "Use `<br>` in code &amp; mind the entity&rsquo;s form.\n\n"
        '<div class="box">\n    <table><tr><td><strong>Where</strong></td>\n'
        "      <td>Room 5<br />Floor 2</td></tr></table>\n</div>\n"
    )
    document = load_one(write(tmp_path, "office.md", source))
    assert document.text == "Use `<br>` in code & mind the entity’s form.\n\nWhere\nRoom 5 Floor 2"


def test_markdown_bad_front_matter_names_the_line(tmp_path):
    path = write(tmp_path, "bad.md", "---\ntitle: ok\nkeywords: [unclosed\n---\nBody\n")
    with pytest.raises(InputFileError, match=r"bad\.md: invalid YAML front matter at line \d+") as info:
        load_file(path, max_bytes=MAX_BYTES)
    assert "between the '---' lines" in str(info.value)


def test_markdown_with_only_front_matter_is_refused(tmp_path):
    path = write(tmp_path, "redirect.md", "---\ntitle: Old page\nredirect_to: /new/\n---\n")
    with pytest.raises(InputFileError, match=r"redirect\.md: has only front matter, no body text .*/new/"):
        load_file(path, max_bytes=MAX_BYTES)


# --- HTML ---------------------------------------------------------------------------------------

HTML = """<!DOCTYPE html><html lang="en"><head><title> Sorting  guide </title><style>p {}</style></head>
<body><nav><a href="/">Home</a></nav><header>Site header</header>
<main><h1>Merge sort</h1>
<p>Merge sort   splits the
 array <em>in half</em>.</p><script>var x = 1;</script>
<div>Loose div text<p>Inner paragraph.</p></div>
<ul><li>first item</li><li>second <b>item</b><ul><li>nested</li></ul></li></ul>
<table><tr><th>n</th><th>time</th></tr><tr><td>8</td><td>24</td></tr></table>
<p>Line one<br>Line two</p><!-- a comment -->
<pre>def f():

    return 1</pre>
</main><aside>Related links</aside><footer>Footer text</footer></body></html>"""


def test_html_takes_main_content_as_blocks(tmp_path):
    document = load_one(write(tmp_path, "guide.html", HTML))
    assert document.loader == "html"
    assert document.title == "Sorting guide"
    assert document.metadata == {"lang": "en"}
    assert document.text.split("\n\n") == [
        "# Merge sort",
        "Merge sort splits the array in half.",
        "Loose div text",
        "Inner paragraph.",
        "- first item\n- second item\n  - nested",
        "n | time\n8 | 24",
        "Line one\nLine two",
        "def f():\n    return 1",
    ]
    for dropped in ("Home", "Site header", "var x", "Related", "Footer", "comment"):
        assert dropped not in document.text


def test_html_without_main_uses_body_and_first_h1_as_title(tmp_path):
    path = write(tmp_path, "page.htm", "<body><nav>Menu</nav><h1>Heat</h1><p>Heat flows.</p></body>")
    document = load_one(path)
    assert document.title == "Heat"
    assert document.text == "# Heat\n\nHeat flows."


# --- LaTeX --------------------------------------------------------------------------------------

TEX = r"""\documentclass{book}
\newcommand{\n}{#1}
\begin{document}
\chapter{Sorting}\chaplabel{sorting}
% a comment line with $ and #
This chapter sorts #n# items in $O(#n#\log #n#)$ time; 50\% faster.
\index{sorting}%
It uses \emph{merge sort} and \textbf{heaps}.

\section{#MergeSort#: Divide and Conquer}
The recurrence is
\begin{equation}
  T(n) = 2T(n/2) + n \label{eq:rec}
\end{equation}
and so on.
\begin{itemize}
  \item First point
  spans two lines.
  \item Second point.
\end{itemize}
\begin{figure}
  \includegraphics{figs/x}
  \caption{A figure.}
\end{figure}
\codeimport{ods/Algorithms.mergeSort(a)}
\vspace{1em}\noindent
\begin{thm}
Every comparison sort needs $\Omega(n\log n)$ comparisons.
\end{thm}
\[ \sum_{i=1}^{n} i = \frac{n(n+1)}{2} \]
\end{document}
"""


def test_tex_keeps_math_as_source_and_unwraps_code(tmp_path):
    document = load_one(write(tmp_path, "sorting.tex", TEX))
    assert document.loader == "tex"
    assert document.title == "Sorting"
    assert document.text.split("\n\n") == [
        "# Sorting",
        "This chapter sorts n items in $O(n\\log n)$ time; 50% faster.\nIt uses merge sort and heaps.",
        "## MergeSort: Divide and Conquer",
        "The recurrence is",
        "\\begin{equation}\n  T(n) = 2T(n/2) + n\n\\end{equation}",
        "and so on.",
        "- First point\n  spans two lines.\n- Second point.",
        "Theorem. Every comparison sort needs $\\Omega(n\\log n)$ comparisons.",
        "\\[ \\sum_{i=1}^{n} i = \\frac{n(n+1)}{2} \\]",
    ]
    for dropped in ("comment", "\\index", "figs/x", "A figure", "codeimport", "\\label", "documentclass"):
        assert dropped not in document.text


def test_tex_code_in_math_braces_and_a_stray_dollar(tmp_path):
    source = "The path has length $H_{\\lceil#x#\\rceil}$ and $2#n#$ for \\{#x#\\}.\n\nCosts 5$ only.\n"
    text = load_one(write(tmp_path, "rbs.tex", source)).text
    assert text == "The path has length $H_{\\lceil x\\rceil}$ and $2n$ for {x}.\n\nCosts 5$ only."


# --- PreTeXt ------------------------------------------------------------------------------------

PTX = """<?xml version="1.0" encoding="UTF-8"?>
<section xmlns:xi="http://www.w3.org/2001/XInclude" xml:id="sec_sets">
  <title>Sets</title>
  <p>A <term>set</term><idx><h>set</h></idx> is a collection&mdash;unordered. We write <m>x \\in A</m>.</p>
  <definition><title>Subset</title>
    <statement><p>Then <me>A \\subseteq B</me> holds.</p></statement></definition>
  <p>Rows: <md><mrow>a \\amp = b</mrow><mrow>\\amp = c</mrow></md></p>
  <ul><li><p>one</p></li><li>two <fn>a note</fn></li></ul>
  <proof><p>Obvious.</p></proof>
  <xi:include href="./sec_more.ptx"/>
</section>
"""


def test_ptx_renders_inline_and_display_math(tmp_path):
    document = load_one(write(tmp_path, "sec_sets.ptx", PTX))
    assert document.loader == "ptx"
    assert document.title == "Sets"
    assert document.metadata == {"xml_id": "sec_sets", "includes": ["sec_more.ptx"]}
    assert document.text.split("\n\n") == [
        "## Sets",
        "A set is a collection—unordered. We write $x \\in A$.",
        "Definition: Subset",
        "Then",
        "$$A \\subseteq B$$",
        "holds.",
        "Rows:",
        "$$ a & = b \\\\ & = c $$",
        "- one\n- two (a note)",
        "Proof. Obvious.",
    ]


def test_ptx_chapter_of_includes_lists_them(tmp_path):
    source = (
        '<chapter xmlns:xi="http://www.w3.org/2001/XInclude"><title>Logic</title>'
        '<xi:include href="./sec_a.ptx"/><xi:include href="./sec_b.ptx"/></chapter>'
    )
    document = load_one(write(tmp_path, "ch_logic.ptx", source))
    assert document.title == "Logic"
    assert document.text == "# Logic\n\nIncludes: sec_a.ptx, sec_b.ptx"


def test_ptx_malformed_xml_names_line_and_column(tmp_path):
    path = write(tmp_path, "broken.ptx", "<section>\n<title>T</title>\n<p>unclosed\n</section>\n")
    expected = r"broken\.ptx: not well-formed PreTeXt XML at line 4, column \d+"
    with pytest.raises(InputFileError, match=expected):
        load_file(path, max_bytes=MAX_BYTES)


# --- JSONL --------------------------------------------------------------------------------------


def test_jsonl_gives_one_document_per_record(tmp_path):
    lines = [
        '{"id": "a1", "text": "First  record.\\n\\n\\nSecond block.", "metadata": {"title": "A", "year": 2020}}',
        "",
        '{"id": 7, "text": "Another record.", "metadata": {"tags": ["x", "y"], "nested": {"k": 1}}}',
    ]
    documents = load_file(write(tmp_path, "records.jsonl", "\n".join(lines) + "\n"), max_bytes=MAX_BYTES)
    assert [(doc.record_key, doc.loader, doc.title) for doc in documents] == [
        ("a1", "jsonl", "A"),
        ("7", "jsonl", None),
    ]
    assert documents[0].text == "First  record.\n\nSecond block."
    assert documents[0].metadata == {"title": "A", "year": 2020}
    assert documents[1].metadata == {"tags": ["x", "y"], "nested": '{"k": 1}'}


@pytest.mark.parametrize(
    ("bad_line", "problem"),
    [
        ("{not json", r"line 2: invalid JSON"),
        ('{"text": "no id"}', r'line 2: missing "id"'),
        ('{"id": "a", "text": "again"}', r"line 2: duplicate \"id\" 'a'"),
        ('{"id": "b", "text": "   "}', r'line 2: missing or empty "text"'),
        ('["a", "list"]', r"line 2: expected a JSON object, got an array"),
        ('{"id": "c", "text": "t", "metadata": [1]}', r'line 2: "metadata" must be a JSON object'),
    ],
)
def test_jsonl_bad_line_rejects_the_file_naming_the_line(tmp_path, bad_line, problem):
    content = '{"id": "a", "text": "fine"}\n' + bad_line + '\n{"id": "z", "text": "fine"}\n'
    path = write(tmp_path, "records.jsonl", content)
    with pytest.raises(InputFileError, match=rf"records\.jsonl: {problem}.*\(1 of 3 lines are bad\)"):
        load_file(path, max_bytes=MAX_BYTES)


def test_jsonl_counts_every_bad_line(tmp_path):
    path = write(tmp_path, "many.jsonl", '{"id": 1, "text": "ok"}\nnope\n{"id": 1, "text": "dup"}\n')
    with pytest.raises(InputFileError, match=r"line 2: invalid JSON .*\(2 of 3 lines are bad\)"):
        load_file(path, max_bytes=MAX_BYTES)


# --- PDF ----------------------------------------------------------------------------------------


def test_pdf_pages_map_to_their_text(tmp_path):
    data = build_pdf(["Hello page one", "", "Hello page three"], title="Tiny Test")
    document = load_one(write(tmp_path, "tiny.pdf", data))
    assert document.loader == "pdf"
    assert document.title == "Tiny Test"
    assert document.metadata == {"page_count": 3}
    assert document.text == "Hello page one\n\nHello page three"
    assert [span.page for span in document.pages] == [1, 3]
    assert [document.text[span.char_start : span.char_end] for span in document.pages] == [
        "Hello page one",
        "Hello page three",
    ]


def test_pdf_with_only_an_owner_password_still_loads(tmp_path):
    data = encrypt_pdf(build_pdf(["Open to read"]), user_password="", owner_password="owner")
    assert load_one(write(tmp_path, "owner.pdf", data)).text == "Open to read"


def test_pdf_with_a_user_password_is_refused(tmp_path):
    data = encrypt_pdf(build_pdf(["Secret"]), user_password="secret", owner_password="owner")
    with pytest.raises(InputFileError, match=r"locked\.pdf: PDF is encrypted \(remove the password .*qpdf"):
        load_file(write(tmp_path, "locked.pdf", data), max_bytes=MAX_BYTES)


def test_pdf_without_text_asks_for_ocr(tmp_path):
    path = write(tmp_path, "scan.pdf", build_pdf(["", ""]))
    expected = r"scan\.pdf: PDF has no extractable text \(scanned image\?\).*ocrmypdf"
    with pytest.raises(InputFileError, match=expected):
        load_file(path, max_bytes=MAX_BYTES)


def test_broken_pdf_is_not_readable(tmp_path):
    path = write(tmp_path, "broken.pdf", b"%PDF-1.4 garbage")
    with pytest.raises(InputFileError, match=r"broken\.pdf: not a readable PDF: "):
        load_file(path, max_bytes=MAX_BYTES)


def test_non_pdf_renamed_to_pdf_is_caught_by_its_header(tmp_path):
    path = write(tmp_path, "report.pdf", "Just some text, not a PDF.\n")
    with pytest.raises(InputFileError, match=r"report\.pdf: not a readable PDF: no %PDF- header"):
        load_file(path, max_bytes=MAX_BYTES)


# --- refusals before parsing --------------------------------------------------------------------


def test_missing_path(tmp_path):
    with pytest.raises(InputFileError, match=r"nowhere\.txt: no such file or directory"):
        load_file(tmp_path / "nowhere.txt", max_bytes=MAX_BYTES)


def test_directory(tmp_path):
    folder = tmp_path / "folder.md"
    folder.mkdir()
    with pytest.raises(InputFileError, match=r"folder\.md: is a directory"):
        load_file(folder, max_bytes=MAX_BYTES)


def test_unsupported_suffix_lists_the_supported_ones(tmp_path):
    path = write(tmp_path, "slides.pptx", b"PK\x03\x04")
    with pytest.raises(InputFileError, match=r"slides\.pptx: unsupported file type '\.pptx' .*\.txt, \.md"):
        load_file(path, max_bytes=MAX_BYTES)


def test_too_large_is_refused_before_reading(tmp_path):
    path = write(tmp_path, "big.txt", "x" * 200)
    expected = r"big\.txt: file is 200 bytes, over the 10 bytes limit .*--max-file-mb"
    with pytest.raises(InputFileError, match=expected):
        load_file(path, max_bytes=10)


def test_too_large_reports_megabytes(tmp_path, monkeypatch):
    path = write(tmp_path, "huge.pdf", b"%PDF-")
    real_stat = Path.stat

    def fake_stat(self, **kwargs):
        result = real_stat(self, **kwargs)
        if self.name != "huge.pdf":
            return result
        return type("Stat", (), {"st_size": 200 * 1024 * 1024, "st_mode": result.st_mode})()

    monkeypatch.setattr(Path, "stat", fake_stat)
    with pytest.raises(InputFileError, match=r"huge\.pdf: file is 200\.0 MB, over the 50\.0 MB limit"):
        load_file(path, max_bytes=50 * 1024 * 1024)


@pytest.mark.parametrize("content", [b"", b"  \n\t\n"])
def test_empty_file(tmp_path, content):
    with pytest.raises(InputFileError, match=r"empty\.txt: file is empty"):
        load_file(write(tmp_path, "empty.txt", content), max_bytes=MAX_BYTES)


@pytest.mark.parametrize("content", [b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", bytes(range(1, 32)) * 20])
def test_binary_data_renamed_to_text(tmp_path, content):
    expected = r"image\.tex: looks like binary data, not text \(check the file type"
    with pytest.raises(InputFileError, match=expected):
        load_file(write(tmp_path, "image.tex", content), max_bytes=MAX_BYTES)


def test_invalid_utf8_reports_byte_and_offset(tmp_path):
    path = write(tmp_path, "latin.md", b"Caf\xe9 au lait\n")
    with pytest.raises(InputFileError, match=r"latin\.md: not valid UTF-8 \(byte 0xE9 at offset 3\) .*iconv"):
        load_file(path, max_bytes=MAX_BYTES)


def test_utf16_is_named(tmp_path):
    path = write(tmp_path, "wide.txt", "hello".encode("utf-16"))
    with pytest.raises(InputFileError, match=r"wide\.txt: is UTF-16 text, not UTF-8"):
        load_file(path, max_bytes=MAX_BYTES)


def test_unexpected_parser_error_is_wrapped(tmp_path, monkeypatch):
    def explode(source: str):
        raise RuntimeError("boom")

    monkeypatch.setattr(loaders, "convert_html", explode)
    path = write(tmp_path, "page.html", "<p>hi</p>")
    with pytest.raises(InputFileError, match=r"page\.html: could not be parsed as html: RuntimeError: boom"):
        load_file(path, max_bytes=MAX_BYTES)


# --- real sources -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "relative",
    [
        "open-data-structures/arrays.tex",
        "discrete-math-levin/sec_logic-statements.ptx",
        "18f-handbook/travel-and-leave/overtime.md",
        "openstax-physics/04_acceleration.md",
    ],
)
def test_real_corpus_files_load_cleanly(relative):
    path = REAL_CORPUS / relative
    if not path.is_file():
        pytest.skip(f"{path} is not present on this machine")
    document = load_one(path)
    assert document.title
    assert "\n\n\n" not in document.text
    leftover_markup = r"\\(begin|end)\{(itemize|figure|center|tabular)\}|\\index\{|<!--|\{%"
    assert not re.search(leftover_markup, document.text)


def test_aes_pdf_with_only_an_owner_password_loads(tmp_path):
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(build_pdf(["Hello page one", "Page two text"]))))
    writer.encrypt(user_password="", owner_password="owner-secret", algorithm="AES-256")
    path = tmp_path / "permissions-only.pdf"
    writer.write(path)
    (document,) = load_file(path, max_bytes=MAX_BYTES)
    assert document.text == "Hello page one\n\nPage two text"
    assert [span.page for span in document.pages] == [1, 2]
