"""File loaders: one file on disk -> LoadedDocument records with normalised, blank-line-separated text.

Guards every file first (exists, type, size, binary, UTF-8); plain text, Markdown and JSONL are read
here, HTML / LaTeX / PreTeXt go through `markup` and PDF through `pdf`.
"""

from __future__ import annotations

import datetime
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from veriground.corpus.html_markup import convert_html
from veriground.corpus.latex_markup import convert_tex
from veriground.corpus.markdown_markup import clean_markdown
from veriground.corpus.markup import ConvertedMarkup, MarkupTooDeep, find_heading_title
from veriground.corpus.normalize import normalize_text
from veriground.corpus.pdf import load_pdf
from veriground.corpus.pretext_markup import convert_ptx
from veriground.errors import InputFileError, NothingToIngest
from veriground.schema import LoadedDocument, MetadataValue
from veriground.text_input import parse_json

SUPPORTED_SUFFIXES: tuple[str, ...] = (
    ".txt",
    ".md",
    ".markdown",
    ".html",
    ".htm",
    ".pdf",
    ".tex",
    ".ptx",
    ".jsonl",
)
_LOADER_BY_SUFFIX = {
    ".txt": "txt",
    ".md": "md",
    ".markdown": "md",
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
    ".tex": "tex",
    ".ptx": "ptx",
    ".jsonl": "jsonl",
}
BINARY_SNIFF_BYTES = 8192
MAX_CONTROL_CHAR_RATIO = 0.30
BYTES_PER_MB = 1024 * 1024  # ingest.max_file_mb counts binary megabytes
UTF8_BOM = b"\xef\xbb\xbf"
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_TEXT_CONTROL_BYTES = frozenset(b"\t\n\r\f\b\x1b")

_JSON_TYPE_NAMES = {list: "an array", str: "a string", int: "a number", float: "a number", bool: "a boolean"}
_BINARY_FIX = "check the file type; rename it to its real extension"
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)^(?:---|\.\.\.)[ \t]*$\n?", re.DOTALL | re.MULTILINE)


def load_file(path: Path, *, max_bytes: int) -> list[LoadedDocument]:
    """Read one file into one LoadedDocument (several for JSONL: one per record). Raises InputFileError."""
    loader = _check_file(path, max_bytes)
    try:
        if loader == "pdf":
            return [load_pdf(path)]
        return _TEXT_LOADERS[loader](path, _read_text(path))
    except InputFileError:
        raise
    except MarkupTooDeep as err:
        raise InputFileError(path, f"cannot be read: {err}", "flatten the nesting or split the file") from None
    except RecursionError:
        raise InputFileError(
            path, "cannot be read: nesting too deep for the parser", "flatten the nesting or split the file"
        ) from None
    except Exception as err:
        raise InputFileError(
            path,
            f"could not be parsed as {loader}: {type(err).__name__}: {err}",
            "check that the file is valid for its extension",
        ) from err


# --- guards -------------------------------------------------------------------------------------


def _check_file(path: Path, max_bytes: int) -> str:
    """The loader name for `path`, after the checks that need no reading."""
    if not path.exists():
        raise InputFileError(path, "no such file or directory", "check the path")
    if path.is_dir():
        raise InputFileError(path, "is a directory", "pass a file, or ingest the folder to walk it")
    if not path.is_file():
        raise InputFileError(path, "is not a regular file", "pass a regular file")
    suffix = path.suffix.lower()
    if suffix not in _LOADER_BY_SUFFIX:
        raise InputFileError(
            path,
            f"unsupported file type '{path.suffix or '(none)'}'",
            "convert it to one of: " + ", ".join(SUPPORTED_SUFFIXES),
        )
    size = path.stat().st_size
    if size > max_bytes:
        raise InputFileError(
            path,
            f"file is {_format_size(size)}, over the {_format_size(max_bytes)} limit",
            "split the file or raise ingest.max_file_mb / --max-file-mb",
        )
    if size == 0:
        raise InputFileError(path, "file is empty", "remove it or add text")
    return _LOADER_BY_SUFFIX[suffix]


def _format_size(n_bytes: int) -> str:
    if n_bytes < BYTES_PER_MB // 10:
        return f"{n_bytes} bytes"
    return f"{n_bytes / BYTES_PER_MB:.1f} MB"


def _read_text(path: Path) -> str:
    """Strict UTF-8 text of a file that is not binary and not blank."""
    try:
        data = path.read_bytes()
    except OSError as err:
        problem = f"cannot be read: {err.strerror or err}"
        raise InputFileError(path, problem, "check the file permissions") from None
    if data.startswith(UTF16_BOMS):
        raise InputFileError(path, "is UTF-16 text, not UTF-8", "re-encode as UTF-8, e.g. iconv -f utf-16 -t utf-8")
    if _looks_binary(data[:BINARY_SNIFF_BYTES]):
        raise InputFileError(path, "looks like binary data, not text", _BINARY_FIX)
    bom_length = len(UTF8_BOM) if data.startswith(UTF8_BOM) else 0
    try:
        text = data[bom_length:].decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputFileError(
            path,
            f"not valid UTF-8 (byte 0x{err.object[err.start]:02X} at offset {err.start + bom_length})",
            "re-encode as UTF-8, e.g. iconv -f latin1 -t utf-8",
        ) from None
    if not text.strip():
        raise InputFileError(path, "file is empty", "remove it or add text")
    return text


def _looks_binary(sample: bytes) -> bool:
    if b"\x00" in sample:
        return True
    controls = sum(1 for byte in sample if (byte < 0x20 and byte not in _TEXT_CONTROL_BYTES) or byte == 0x7F)
    return bool(sample) and controls / len(sample) > MAX_CONTROL_CHAR_RATIO


def _finish(path: Path, converted: ConvertedMarkup, loader: str) -> LoadedDocument:
    text = normalize_text(converted.text)
    if not text:
        raise InputFileError(path, "has no text once markup is removed", "check that the file has body text")
    return LoadedDocument(text=text, loader=loader, title=converted.title, metadata=converted.metadata)


# --- formats ------------------------------------------------------------------------------------


def _load_txt(path: Path, text: str) -> list[LoadedDocument]:
    return [_finish(path, ConvertedMarkup(text), "txt")]


def _load_html(path: Path, text: str) -> list[LoadedDocument]:
    return [_finish(path, convert_html(text), "html")]


def _load_tex(path: Path, text: str) -> list[LoadedDocument]:
    return [_finish(path, convert_tex(text), "tex")]


def _load_ptx(path: Path, text: str) -> list[LoadedDocument]:
    try:
        converted = convert_ptx(text)
    except ET.ParseError as err:
        line, column = err.position
        raise InputFileError(
            path,
            f"not well-formed PreTeXt XML at line {line}, column {column + 1}",
            "fix the XML (an xmllint --noout run shows the same spot)",
        ) from None
    return [_finish(path, converted, "ptx")]


def _load_md(path: Path, text: str) -> list[LoadedDocument]:
    """Markdown source stays Markdown; front matter becomes metadata; comments, Liquid and HTML tags go."""
    metadata: dict[str, MetadataValue] = {}
    if front_matter := _FRONT_MATTER.match(text):
        metadata = _parse_front_matter(path, front_matter.group(1))
        text = text[front_matter.end() :]
    body = clean_markdown(text)
    if front_matter and not body.strip():
        redirect = metadata.get("redirect_to")
        problem = "has only front matter, no body text" + (f" (a redirect to {redirect})" if redirect else "")
        raise NothingToIngest(path, problem, "skipped: nothing to cite")
    title = metadata.get("title")
    if not isinstance(title, str) or not title.strip():
        title = find_heading_title(body)
    return [_finish(path, ConvertedMarkup(body, title.strip() if title else None, metadata), "md")]


def _parse_front_matter(path: Path, source: str) -> dict[str, MetadataValue]:
    try:
        data = yaml.safe_load(source)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""  # +1 for 1-based, +1 for the "---"
        reason = getattr(err, "problem", None) or str(err).split("\n")[0]
        raise InputFileError(
            path,
            f"invalid YAML front matter{where}: {reason}",
            "fix the front matter between the '---' lines",
        ) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InputFileError(
            path,
            f"front matter is a YAML {type(data).__name__}, not a mapping",
            "write it as 'key: value' lines",
        )
    return _simplify_metadata(data)


def _simplify_metadata(raw: dict[Any, Any]) -> dict[str, MetadataValue]:
    """Scalars and lists of scalars stay; dates become ISO strings; anything nested becomes JSON text."""
    simple: dict[str, MetadataValue] = {}
    for key, value in raw.items():
        if value is None or isinstance(value, str | int | float | bool):
            simple[str(key)] = value
        elif isinstance(value, datetime.date):
            simple[str(key)] = value.isoformat()
        elif isinstance(value, list) and all(isinstance(item, str | int | float | bool) for item in value):
            simple[str(key)] = [str(item) for item in value]
        else:
            simple[str(key)] = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return simple


def _load_jsonl(path: Path, text: str) -> list[LoadedDocument]:
    """One document per line; any bad line rejects the whole file, naming the first one."""
    documents: list[LoadedDocument] = []
    problems: list[str] = []
    seen: set[str] = set()
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            document = _read_jsonl_record(line, seen)
        except ValueError as err:
            problems.append(f"line {number}: {err}")
            continue
        documents.append(document)
    if problems:
        total = sum(1 for line in lines if line.strip())
        raise InputFileError(
            path,
            f"{problems[0]} ({len(problems)} of {total} lines are bad)",
            'fix the lines and ingest again; each line is a JSON object with "id" and a non-empty "text"',
        )
    return documents


def _read_jsonl_record(line: str, seen: set[str]) -> LoadedDocument:
    try:
        record = parse_json(line)  # deep nesting, huge numbers, lone surrogates: a ValueError naming the field
    except json.JSONDecodeError as err:
        raise ValueError(f"invalid JSON ({err.msg} at column {err.colno})") from None
    if not isinstance(record, dict):
        raise ValueError(f"expected a JSON object, got {_JSON_TYPE_NAMES.get(type(record), 'a value')}")
    record_id = record.get("id")
    if isinstance(record_id, bool) or not isinstance(record_id, str | int) or str(record_id) == "":
        raise ValueError('missing "id" (a string or an integer)')
    key = str(record_id)
    if key in seen:
        raise ValueError(f'duplicate "id" {key!r}')
    seen.add(key)
    raw_text = record.get("text")
    text = normalize_text(raw_text) if isinstance(raw_text, str) else ""
    if not text:
        raise ValueError('missing or empty "text"')
    raw_metadata = record.get("metadata", {})
    if not isinstance(raw_metadata, dict):
        raise ValueError('"metadata" must be a JSON object')
    metadata = _simplify_metadata(raw_metadata)
    title = metadata.get("title", record.get("title"))
    return LoadedDocument(
        text=text,
        loader="jsonl",
        record_key=key,
        title=title if isinstance(title, str) and title else None,
        metadata=metadata,
    )


_TEXT_LOADERS: dict[str, Callable[[Path, str], list[LoadedDocument]]] = {
    "txt": _load_txt,
    "md": _load_md,
    "html": _load_html,
    "tex": _load_tex,
    "ptx": _load_ptx,
    "jsonl": _load_jsonl,
}
