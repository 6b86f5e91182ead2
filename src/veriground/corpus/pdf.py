"""PDF loader: a PDF file -> one LoadedDocument whose pages are blocks, with a page map into the text.

Each page's text is normalised on its own and pages are joined by a blank line, so page spans index the
final text directly. Scanned PDFs (no text layer) and encrypted PDFs are refused with a fix.
"""

from __future__ import annotations

from pathlib import Path

from pypdf import PdfReader
from pypdf.errors import DependencyError

from veriground.corpus.normalize import normalize_text
from veriground.errors import InputFileError
from veriground.schema import LoadedDocument, MetadataValue, PageSpan

PDF_MAGIC = b"%PDF-"
PDF_MAGIC_WINDOW = 1024  # the header may follow a little junk; readers accept it within the first 1 KiB
PAGE_SEPARATOR = "\n\n"
MAX_REASON_CHARS = 160

_DECRYPT_FIX = "remove the password (e.g. qpdf --decrypt) and ingest again"
_REPAIR_FIX = "check that it opens in a PDF viewer; re-export it or repair it (e.g. qpdf in.pdf out.pdf)"


def load_pdf(path: Path) -> LoadedDocument:
    """Read a PDF's text layer page by page; raises InputFileError when there is none to read."""
    with path.open("rb") as handle:
        if PDF_MAGIC not in handle.read(PDF_MAGIC_WINDOW):
            raise InputFileError(
                path,
                "not a readable PDF: no %PDF- header",
                "check the file type; rename it to its real extension",
            )
    try:
        reader = PdfReader(path)
        if reader.is_encrypted:
            _decrypt(reader, path)
        page_texts = _extract_pages(reader)
        info = reader.metadata
        title = info.title if info is not None else None
        author = info.author if info is not None else None
    except InputFileError:
        raise
    except Exception as err:
        raise InputFileError(path, f"not a readable PDF: {_short_reason(err)}", _REPAIR_FIX) from None
    text, spans = join_pages(page_texts)
    if not text:
        raise InputFileError(path, "PDF has no extractable text (scanned image?)", "run OCR (e.g. ocrmypdf) first")
    metadata: dict[str, MetadataValue] = {"page_count": len(page_texts)}
    if isinstance(author, str) and author.strip():
        metadata["author"] = author.strip()
    clean_title = title.strip() if isinstance(title, str) else ""
    return LoadedDocument(text=text, loader="pdf", title=clean_title or None, metadata=metadata, pages=tuple(spans))


def join_pages(page_texts: list[str]) -> tuple[str, list[PageSpan]]:
    """Normalise each page and join them; pages without text get no span but keep their number."""
    parts: list[str] = []
    spans: list[PageSpan] = []
    offset = 0
    for number, raw in enumerate(page_texts, start=1):
        page_text = normalize_text(raw)
        if not page_text:
            continue
        if parts:
            offset += len(PAGE_SEPARATOR)
        spans.append(PageSpan(page=number, char_start=offset, char_end=offset + len(page_text)))
        parts.append(page_text)
        offset += len(page_text)
    return PAGE_SEPARATOR.join(parts), spans


def _decrypt(reader: PdfReader, path: Path) -> None:
    try:
        unlocked = reader.decrypt("")
    except DependencyError:
        raise InputFileError(
            path,
            "PDF is encrypted with AES, which needs the 'cryptography' package",
            f"pip install cryptography, or {_DECRYPT_FIX}",
        ) from None
    if not unlocked:
        raise InputFileError(path, "PDF is encrypted", _DECRYPT_FIX)


def _extract_pages(reader: PdfReader) -> list[str]:
    """Every page's text; a page that fails is empty unless every page fails."""
    texts: list[str] = []
    first_error: Exception | None = None
    for page in reader.pages:
        try:
            texts.append(page.extract_text() or "")
        except Exception as err:  # one damaged page should not cost the rest of the document
            first_error = first_error or err
            texts.append("")
    if first_error is not None and not any(text.strip() for text in texts):
        raise first_error
    return texts


def _short_reason(err: Exception) -> str:
    reason = str(err).strip() or type(err).__name__
    return reason if len(reason) <= MAX_REASON_CHARS else reason[: MAX_REASON_CHARS - 3] + "..."
