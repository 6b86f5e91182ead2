"""Hostile input for every reader (issue 22): a seeded generator feeds each loader (txt, md, html, tex, ptx, pdf,
jsonl), the claim extractor, the citation parser and the evidence-pack reader. Two properties:

- only veriground's own errors escape (a loader raises InputFileError, the extractor InputTextError, the pack
  reader InputFileError; the citation parser raises nothing);
- cost per input byte stays bounded: the CPU time of an input made of a random unit repeated 4n times over the
  same unit repeated n times (a PDF: 4x the pages) stays well below the 16x a quadratic path gives. CPU time is
  compared within one process; no test reads a wall clock.

Deterministic (fixed seeds); about 30-60 s on a shared 2-core machine. VERIGROUND_FUZZ_ROUNDS=N multiplies the
number of inputs for a longer local hunt.
"""

from __future__ import annotations

import gc
import json
import os
import random
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from test_loaders import build_pdf
from veriground.claims import extract_claims
from veriground.claims.citations import mask_citations, parse_citations
from veriground.corpus.loaders import load_file
from veriground.errors import InputFileError, InputTextError, VerigroundError
from veriground.evidence.pack import pack_chunks, read_pack

ROUNDS = int(os.environ.get("VERIGROUND_FUZZ_ROUNDS", "1"))
CRASH_INPUTS = 100 * ROUNDS  # per target
COST_UNITS = 5 * ROUNDS  # random repeated units per target
MAX_BYTES = 50_000_000

# Linear work grows 4x when the input does, quadratic 16x (a quadratic path with a linear part measured 8-15x at
# these sizes); 8 leaves room for a noisy shared machine, where linear paths measured 3.7-6.8x.
MAX_COST_RATIO_FOR_4X_INPUT = 8.0
MIN_MEASURED_CPU_S = 0.04  # the 1x input is grown until it costs this much, so timer noise stays small
MAX_UNIT_REPEATS_BYTES = 250_000  # ... or until it is this large (the 4x input is then 1 MB)
REPEATS = 3  # the least CPU time of a few runs

WORDS = ("energy", "the", "is", "Kinetic", "mass", "x", "9.8", "m/s²", "of", "and", "E", "=", "mc^2", "é", "日本")
ODD = ("\u200b", "\ufeff", "\r", "\r\n", "\t", "\x0c", "\u2028", "😀", "\u0301", "\\", "\\\\", '"', "'", "&", "%")
SPACE = (" ", " ", " ", "\n", "\n\n")

# fmt: off
FRAGMENTS: dict[str, tuple[str, ...]] = {
    "txt": (".", "!", "?", "...", "-", "#", "*", "1.", "(", ")", "[1]", "e.g.", "Dr."),
    "md": (
        "#", "## ", "---\n", "```", "~~~", "<!--", "-->", "{%", "%}", "{{", "}}", "{% comment %}",
        "{% endcomment %}", "{% raw %}", "{% page \"x", "<sup>", "</sup>", "*", "**", "_", "[", "](", ")", "> ",
        "- ", "1. ", "|", "| --- |", "<div>", "</div>", "<span a='", "$$", "\\[", "<br/>", "&amp;", "&#0;",
        "&#xD800;", "title: x\n", "    ", "===", "<a href=\"", "`", "<", ">",
    ),
    "html": (
        "<p>", "</p>", "<tr>", "<td>", "<th>", "</td>", "</tr>", "<table>", "</table>", "<div>", "</div>", "<ul>",
        "<ol>", "<li>", "</li>", "</ul>", "<br>", "<sup>", "</sup>", "<pre>", "</pre>", "<h1>", "</h1>", "<h3>",
        "<!--", "-->", "<script>", "</script>", "<![CDATA[", "]]>", "<?xml ?>", "<!DOCTYPE html>", "&amp;",
        "&#xD800;", "&#99999999;", "&#0;", "<title>", "</title>", "<main>", "<html lang='x'>", "<svg>", "<math>",
        "<b>", "<i>", "<span", " class=\"", "\">", "<", ">", "</", "<body>", "<head>", "<template>", "<select>",
    ),
    "tex": (
        "\\begin{itemize}", "\\end{itemize}", "\\begin{enumerate}", "\\item", "\\item[x]", "$", "$$", "\\[", "\\]",
        "\\(", "\\)", "{", "}", "\\section{", "\\title{", "\\footnote{", "%", "\\\\", "&", "\\begin{tabular}{ll}",
        "\\end{tabular}", "\\begin{document}", "\\end{document}", "\\verb|", "\\verb", "|", "\\newcommand",
        "\\input{", "~", "---", "\\begin{verbatim}", "\\end{verbatim}", "\\begin{equation}", "\\end{equation}",
        "\\begin{theorem}[", "]", "\\end{theorem}", "\\begin{", "\\end{", "\\label{", "#", "\\#", "\\$", "\\%",
        "\\href{", "\\multicolumn{", "\\begin{minipage}", "\\end{minipage}", "\\begin{figure}", "\\end{figure}",
        "\\hline", "\\cline{", "\\", "\\emph{", "``", "''", "\\item[", "[", "\\section[", "\\title[", "\\\\[",
    ),
    "ptx": (
        "<p>", "</p>", "<section>", "</section>", "<title>", "</title>", "<m>", "</m>", "<me>", "</me>", "<md>",
        "<mrow>", "</mrow>", "</md>", "<ol>", "</ol>", "<ul>", "</ul>", "<li>", "</li>", "<em>", "</em>",
        "<xref ref='x'/>", "<url href='u'/>", "<fn>", "</fn>", "<q>", "</q>", "<!--", "-->", "<![CDATA[", "]]>",
        "&lt;", "&amp;", "&mdash;", "&#xD800;", "&#0;", "&nope;", "<tabular>", "<row>", "<cell>", "</cell>",
        "</row>", "</tabular>", "<pre>", "</pre>", "<theorem>", "</theorem>", "<", ">", "</", "\\lt", "&",
    ),
    "claims": (
        ".", "!", "?", "[1]", "[2-4]", "[1, 1]", "[0]", "[CITATION: a#b]", "[doc/x#0123456789ab]", "[", "]",
        "(", ")", "\n- ", "\n1. ", "\n> ", "\n# ", "\n```\n", "\n---\n", "\n| a | b |\n", "**", "*", "__", "`",
        " and ", " or ", " but ", ";", ",", ":", "e.g.", "i.e.", "Dr.", "$x^2$", "=", "O(n log n)", "which",
        " because ", " that ", "vector [1, 2]", "\n\n", "[^1]", "[1]: http://x",
    ),
    "citations": (
        "[", "]", "[1]", "[1, 2]", "[1-3]", "[1–20]", "[0]", "[9999]", "[12345]", "[CITATION:", "CITATION: ",
        "a#b", "doc/x#abc", ",", ";", " ", "=", "vector", " values ", "(", ")", "[[", "]]", "x", "-", "–", "#",
        "\n", "[a", "1", "[1,", "[ 1 ]", ".",
    ),
}
PTX_ELEMENTS = ("p", "em", "m", "me", "section", "ol", "ul", "li", "fn", "q", "title", "theorem", "pre", "tabular",
                "row", "cell", "md", "mrow", "xref", "url", "proof", "definition", "statement")
# fmt: on


# --- the generator ----------------------------------------------------------------------------------------------


def random_text(rng: random.Random, target: str, pieces: int) -> str:
    """`pieces` tokens: mostly the target's own markup, with words, spaces and odd characters between."""
    fragments = FRAGMENTS[target]
    out = []
    for _ in range(pieces):
        roll = rng.random()
        if roll < 0.45:
            out.append(rng.choice(fragments))
        elif roll < 0.75:
            out.append(rng.choice(WORDS))
        elif roll < 0.93:
            out.append(rng.choice(SPACE))
        else:
            out.append(rng.choice(ODD))
    return "".join(out)


def well_formed_ptx(rng: random.Random, pieces: int, depth: int = 0) -> str:
    """Balanced PreTeXt elements with words between them, so the converter (not the XML parser) does the work."""
    out = []
    for _ in range(pieces):
        roll = rng.random()
        if roll < 0.35 and depth < 6:
            tag = rng.choice(PTX_ELEMENTS)
            out.append(f"<{tag}>{well_formed_ptx(rng, rng.randint(0, 4), depth + 1)}</{tag}>")
        elif roll < 0.45:
            out.append(rng.choice(("&lt;", "&amp;", "&mdash;", "<!-- c -->", "<xref ref='x'/>", "\\lt", "$")))
        else:
            out.append(rng.choice(WORDS) + rng.choice(SPACE))
    return "".join(out)


def random_json_value(rng: random.Random, depth: int = 0) -> object:
    roll = rng.random()
    if depth > 3 or roll < 0.35:
        return rng.choice(
            [
                "Kinetic energy is the energy of motion.",
                "",
                " ",
                "\ud800",
                "x\udfffy",
                0,
                -1,
                1.5,
                True,
                None,
                "a#b",
                "doc/x#0123456789ab",
                "textbook",
                "nope",
            ]
        )
    if roll < 0.7:
        keys = ("id", "text", "metadata", "title", "passages", "passage_id", "doc_id", "source_type", "query", "x")
        return {rng.choice(keys): random_json_value(rng, depth + 1) for _ in range(rng.randint(0, 4))}
    return [random_json_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]


def hostile_json(rng: random.Random, depths: tuple[int, ...] = (50, 900, 5_000, 100_000)) -> str:
    """JSON text with the shapes that broke readers before: deep nesting, huge numbers, lone surrogates."""
    roll = rng.random()
    if roll < 0.1:
        depth = rng.choice(depths)
        opener, closer = rng.choice([("[", "]"), ('{"a":', "}")])
        return opener * depth + "1" + closer * depth
    if roll < 0.2:
        return '{"id": 1, "text": "x", "n": ' + "9" * rng.choice([10, 4_301, 20_000]) + "}"
    if roll < 0.3:
        return rng.choice(['{"text": "\\ud800"}', '{"id": "\\udc00", "text": "t"}', "[1e999]", "[NaN]", "{"])
    return json.dumps(random_json_value(rng), ensure_ascii=rng.random() < 0.5)


def random_jsonl(rng: random.Random, lines: int) -> str:
    return "\n".join(hostile_json(rng) for _ in range(lines))


def random_pack(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return hostile_json(rng)
    passages = [random_json_value(rng, 1) for _ in range(rng.randint(0, 4))]
    for passage in passages:
        if isinstance(passage, dict) and rng.random() < 0.6:
            passage["text"] = rng.choice(["Energy is conserved.", "\ud800", " ", 3])
            passage.pop("x", None)
    pack: object = {"passages": passages, "query": "q"} if rng.random() < 0.7 else passages
    return json.dumps(pack, ensure_ascii=rng.random() < 0.5)


def damaged_pdf(rng: random.Random) -> bytes:
    """A valid small PDF, then cut, overwritten or spliced at random places."""
    data = bytearray(build_pdf(["Kinetic energy is the energy of motion.", "Page two (x) \\ y"]))
    for _ in range(rng.randint(1, 6)):
        at = rng.randrange(max(1, len(data)))
        roll = rng.random()
        if roll < 0.25:
            del data[at:]
            data += b"%%EOF"[: rng.randint(0, 5)]
        elif roll < 0.6:
            data[at : at + 1] = bytes([rng.randrange(256)])
        elif roll < 0.8:
            data[at:at] = rng.choice([b"<<", b">>", b"[", b"(", b"obj", b" 0 R", b"9999999999", b"/Length -1"])
        else:
            data[at:at] = data[rng.randrange(max(1, len(data))) :][: rng.randint(1, 200)]
    return bytes(data)


# --- the calls --------------------------------------------------------------------------------------------------

SUFFIXES = {"txt": ".txt", "md": ".md", "html": ".html", "tex": ".tex", "ptx": ".ptx", "jsonl": ".jsonl"}
PREFIXES = {
    "txt": "",
    "md": "---\ntitle: T\n---\n",
    "html": "<!DOCTYPE html><html><body>",
    "tex": "\\begin{document}\n",
    "ptx": "<pretext><article><title>T</title>",
    "jsonl": "",
}


def load_text(folder: Path, target: str, content: str | bytes) -> None:
    path = folder / f"input{SUFFIXES.get(target, '.' + target)}"
    if isinstance(content, str):
        content = content.encode("utf-8", "surrogatepass")  # a lone surrogate makes the file invalid UTF-8
    path.write_bytes(content)
    load_file(path, max_bytes=MAX_BYTES)


def loader_input(rng: random.Random, target: str) -> str:
    if target == "jsonl":
        return random_jsonl(rng, rng.randint(1, 6))
    if target == "ptx" and rng.random() < 0.5:
        return f"<pretext><article>{well_formed_ptx(rng, rng.randint(1, 30))}</article></pretext>"
    body = random_text(rng, target, rng.randint(1, 400))
    return (PREFIXES[target] if rng.random() < 0.6 else "") + body


def call_claims(text: str) -> None:
    claims = extract_claims(text, answer_id="fuzz", max_claims=1_000_000)
    for claim in claims:  # every span indexes the input
        start, end = claim.answer_char_span
        assert 0 <= start <= end <= len(text)


def call_citations(text: str) -> None:
    citations = parse_citations(text)
    assert len(mask_citations(text, citations)) == len(text)


def read_pack_file(folder: Path, content: str) -> None:
    path = folder / "pack.json"
    path.write_bytes(content.encode("utf-8", "surrogatepass"))
    pack_chunks(read_pack(path))


# --- only our own errors escape ---------------------------------------------------------------------------------


class NoError(VerigroundError):
    """Raised by nothing: the citation parser may raise no error at all."""


def run_expecting(call: Callable[[], None], allowed: type[VerigroundError], what: str) -> None:
    try:
        call()
    except allowed:
        pass
    except Exception as err:  # the property under test: nothing else may escape
        pytest.fail(f"{type(err).__name__} escaped from {what}: {str(err)[:300]}")


@pytest.mark.parametrize("target", ["txt", "md", "html", "tex", "ptx", "jsonl"])
def test_loaders_raise_only_input_file_errors(tmp_path: Path, target: str) -> None:
    rng = random.Random(f"loader-{target}")
    for number in range(CRASH_INPUTS):
        content = loader_input(rng, target)
        run_expecting(
            lambda content=content: load_text(tmp_path, target, content), InputFileError, f"{target} input {number}"
        )


def test_damaged_pdfs_raise_only_input_file_errors(tmp_path: Path) -> None:
    rng = random.Random("pdf")
    for number in range(CRASH_INPUTS):
        data = damaged_pdf(rng)
        run_expecting(lambda data=data: load_text(tmp_path, "pdf", data), InputFileError, f"pdf input {number}")


def test_claim_extractor_raises_only_input_text_errors() -> None:
    rng = random.Random("claims")
    for number in range(CRASH_INPUTS):
        text = random_text(rng, "claims", rng.randint(0, 400))
        run_expecting(lambda text=text: call_claims(text), InputTextError, f"claims input {number}")


def test_citation_parser_never_raises() -> None:
    rng = random.Random("citations")
    for number in range(CRASH_INPUTS * 5):
        text = random_text(rng, "citations", rng.randint(0, 200))
        run_expecting(lambda text=text: call_citations(text), NoError, f"citations {number}")


def test_evidence_pack_reader_raises_only_input_file_errors(tmp_path: Path) -> None:
    rng = random.Random("pack")
    for number in range(CRASH_INPUTS * 2):
        content = random_pack(rng)
        run_expecting(lambda content=content: read_pack_file(tmp_path, content), InputFileError, f"pack {number}")


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("[" * 100_000 + "]" * 100_000, "JSON nesting too deep"),
        ('{"passages": [{"text": "a", "title": ' + "9" * 5_000 + "}]}", "5000 digits"),
        ('{"passages": [{"text": "bad \\ud800 text"}]}', "\\ud800"),
        ('{"passages": [{"text": "ok", "passage_id": "a\\udfff"}]}', "\\udfff"),
    ],
)
def test_evidence_pack_problems_are_named(tmp_path: Path, content: str, problem: str) -> None:
    with pytest.raises(InputFileError, match=problem.replace("\\", "\\\\")):
        read_pack_file(tmp_path, content)


# --- cost per input byte stays bounded --------------------------------------------------------------------------


def cpu_seconds(call: Callable[[], object]) -> float:
    """The least CPU time of a few runs of `call` (any of our own errors counts as an answer). The cyclic garbage
    collector is off while it runs: its passes cost more as live objects pile up (a 4x input measured 6-7x with
    it on, 4x with it off), which is the interpreter's cost, not a super-linear path in our code."""
    times = []
    for _ in range(REPEATS):
        gc.collect()
        gc.disable()
        started = time.process_time()
        try:
            call()
        except VerigroundError:
            pass
        finally:
            times.append(time.process_time() - started)
            gc.enable()
    return min(times)


def cost_ratio(run: Callable[[str], object], prefix: str, unit: str, suffix: str) -> tuple[float, int]:
    """CPU time of `prefix + unit * 4n + suffix` over that of `prefix + unit * n + suffix`, with n grown until the
    smaller input costs MIN_MEASURED_CPU_S (or is MAX_UNIT_REPEATS_BYTES long); also returns n."""
    gc.collect()
    gc.freeze()  # what exists now is never garbage here: the collections between runs skip it
    try:
        repeats = 1
        while True:
            base = cpu_seconds(lambda repeats=repeats: run(prefix + unit * repeats + suffix))
            if base >= MIN_MEASURED_CPU_S or len(unit) * repeats * 2 > MAX_UNIT_REPEATS_BYTES:
                break
            repeats *= 2
        larger = cpu_seconds(lambda: run(prefix + unit * (4 * repeats) + suffix))
    finally:
        gc.unfreeze()
    return larger / max(base, 1e-3), repeats


def cost_targets(tmp_path: Path) -> dict[str, Callable[[str], object]]:
    targets: dict[str, Callable[[str], object]] = {
        target: (lambda text, target=target: load_text(tmp_path, target, text)) for target in SUFFIXES
    }
    targets["claims"] = call_claims
    targets["citations"] = call_citations
    targets["pack"] = lambda text: read_pack_file(tmp_path, text)
    return targets


def random_unit(rng: random.Random, target: str) -> tuple[str, str, str]:
    """(prefix, unit, suffix) for a cost comparison."""
    if target == "jsonl":  # small lines: a unit of 100,000 brackets would leave no room to repeat it
        return "", "\n".join(hostile_json(rng, depths=(50, 900)) for _ in range(rng.randint(1, 3))) + "\n", ""
    if target == "pack":
        passage = json.dumps({"text": random_text(rng, "claims", rng.randint(3, 30))})
        return '{"passages": [' + passage, "," + passage, "]}"
    if target == "ptx":
        return "<pretext><article>", well_formed_ptx(rng, rng.randint(1, 8)), "</article></pretext>"
    unit = random_text(rng, target, rng.randint(1, 12))
    return PREFIXES.get(target, ""), unit, ""


# Units the generator found quadratic once (x10-x16 the time for 4x the input), kept so they stay found.
FOUND_UNITS: dict[str, tuple[str, ...]] = {
    "html": ("a<br>", "a<!-- c -->", "a<script>x</script>", "a<sup>2</sup>", " </<th>mass"),
    "tex": (" ''\\begin{theorem}[ \\end{figure}the", "\\begin{verbatim}x"),
    "claims": (" but ", ":__é*"),
}


@pytest.mark.parametrize("target", [*SUFFIXES, "claims", "citations", "pack"])
def test_cost_per_byte_stays_bounded(tmp_path: Path, target: str) -> None:
    run = cost_targets(tmp_path)[target]
    rng = random.Random(f"cost-{target}")
    found = [(PREFIXES.get(target, ""), unit, "") for unit in FOUND_UNITS.get(target, ())]
    for prefix, unit, suffix in found + [random_unit(rng, target) for _ in range(COST_UNITS)]:
        ratio, repeats = cost_ratio(run, prefix, unit, suffix)
        assert ratio < MAX_COST_RATIO_FOR_4X_INPUT, f"{target}: {ratio:.1f}x the time for 4x of {unit!r} x {repeats}"


def test_pdf_cost_per_page_stays_bounded(tmp_path: Path) -> None:
    def pdf_of(pages: int) -> Path:
        path = tmp_path / f"{pages}.pdf"
        path.write_bytes(build_pdf([f"Kinetic energy is the energy of motion, page {n}." for n in range(pages)]))
        return path

    small, large = pdf_of(100), pdf_of(400)
    ratio = cpu_seconds(lambda: load_file(large, max_bytes=MAX_BYTES)) / cpu_seconds(
        lambda: load_file(small, max_bytes=MAX_BYTES)
    )
    assert ratio < MAX_COST_RATIO_FOR_4X_INPUT
