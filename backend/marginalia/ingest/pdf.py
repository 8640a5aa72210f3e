"""PDF parsing with pypdfium2: page text, sections, title/authors/abstract."""

from __future__ import annotations

import re
import statistics
import threading
from collections.abc import Callable
from dataclasses import dataclass

import pypdfium2 as pdfium

from marginalia.ingest.documents import Page, ParsedDocument
from marginalia.ingest.errors import DocumentError
from marginalia.ingest.metadata import enrich
from marginalia.ingest.text import assemble_document

# PDFium error codes (fpdfview.h).
_ERR_PASSWORD = 4
_ERR_SECURITY = 5

# A page "has text" above this many non-space characters; below it on average the
# PDF is a scan (image-only) and we cannot read it without OCR.
_MIN_CHARS_PER_PAGE = 20

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def normalise_page_text(raw: str) -> str:
    """Page text as stored: PDFium's text with only line endings and markers normalised.

    "\\r\\n" becomes "\\n". PDFium reports a hyphenated line break as U+FFFE with the
    break itself removed ("ingre\\ufffedient"); we restore what the page shows,
    "ingre-\\n" + "dient", so the later quote normaliser's de-hyphenation applies.
    Stray control characters (unmapped math glyphs) become spaces. Hyphenated breaks
    are NOT joined here.
    """
    text = raw.replace("\r\n", "\n").replace("\r", "\n").replace("\ufffe", "-\n")
    return _CONTROL.sub(" ", text)


#: PDFium is not thread-safe: two documents parsed at once in two threads (the ingest
#: pipeline parses ahead in worker threads) corrupted the heap. Every PDFium call, from
#: opening a document to closing its last page, happens under this lock.
_PDFIUM = threading.Lock()


def parse_pdf(
    data: bytes, *, max_pages: int, on_page: Callable[[int], None] | None = None
) -> ParsedDocument:
    with _PDFIUM:
        return _parse_pdf_locked(data, max_pages=max_pages, on_page=on_page)


def _parse_pdf_locked(
    data: bytes, *, max_pages: int, on_page: Callable[[int], None] | None
) -> ParsedDocument:
    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        code = getattr(exc, "err_code", None)
        if code in (_ERR_PASSWORD, _ERR_SECURITY):
            raise DocumentError(
                "encrypted_pdf",
                "This PDF is password-protected, so its text cannot be read. "
                "Remove the password (e.g. print it to a new PDF) and upload it again.",
            ) from exc
        raise DocumentError(
            "corrupt_pdf",
            "This PDF is damaged or incomplete (it may have been cut off while "
            "downloading) and cannot be opened. Download it again and re-upload it.",
        ) from exc
    try:
        return _parse_open_pdf(pdf, max_pages=max_pages, on_page=on_page)
    finally:
        pdf.close()


def _parse_open_pdf(
    pdf: pdfium.PdfDocument, *, max_pages: int, on_page: Callable[[int], None] | None
) -> ParsedDocument:
    page_count = len(pdf)
    if page_count == 0:
        raise DocumentError(
            "corrupt_pdf", "This PDF has no pages. Check the file and upload it again."
        )
    if page_count > max_pages:
        raise DocumentError(
            "too_many_pages",
            f"This PDF has {page_count} pages; the limit is {max_pages}. "
            "Split it into smaller parts and upload those.",
        )
    pages: list[Page] = []
    first_page_lines: list[_SizedLine] = []
    try:
        for i in range(page_count):
            page = pdf[i]
            try:
                textpage = page.get_textpage()
                try:
                    raw = textpage.get_text_range()
                    if i == 0:
                        first_page_lines = _sized_lines(textpage, raw)
                finally:
                    textpage.close()
            finally:
                # Closed here, under the lock, never later by the garbage collector.
                page.close()
            pages.append(Page(number=i + 1, text=normalise_page_text(raw)))
            if on_page is not None:
                on_page(i + 1)
        metadata = {k: v for k, v in pdf.get_metadata_dict().items() if v}
    except pdfium.PdfiumError as exc:
        raise DocumentError(
            "corrupt_pdf",
            "Part of this PDF is damaged and its text cannot be read. "
            "Download it again and re-upload it.",
        ) from exc

    visible = sum(len(re.sub(r"\s", "", p.text)) for p in pages)
    if visible < _MIN_CHARS_PER_PAGE * page_count:
        raise DocumentError(
            "image_only_pdf",
            "This PDF contains no extractable text (it looks like scanned images). "
            "OCR is not supported: upload a PDF with a text layer, or paste the text.",
        )

    doc = assemble_document("pdf", pages, title=None, authors=[], markdown=False)
    doc.metadata = {k: str(v) for k, v in metadata.items()}
    title_lines = _title_from_layout(first_page_lines)
    doc.title = _metadata_title(metadata.get("Title")) or (
        " ".join(ln.text for ln in title_lines) if title_lines else None
    )
    doc.authors = _metadata_authors(metadata.get("Author"))
    return enrich(doc, page_authors=_authors_after_title(first_page_lines, title_lines))


# --- title and authors ------------------------------------------------------------------


@dataclass(frozen=True)
class _SizedLine:
    index: int
    text: str
    height: float  # median loose glyph height: a proxy for font size


def _sized_lines(textpage: pdfium.PdfTextPage, raw: str) -> list[_SizedLine]:
    """Page-1 lines with their glyph height; [] if char indices don't line up with text."""
    if textpage.count_chars() != len(raw):
        return []
    out: list[_SizedLine] = []
    pos = 0
    for n, line in enumerate(raw.split("\r\n")):
        heights = []
        for j, ch in enumerate(line):
            if ch.isalpha():
                _, bottom, _, top = textpage.get_charbox(pos + j, loose=True)
                heights.append(top - bottom)
        if len(heights) >= 4:
            out.append(_SizedLine(n, line.strip(), round(statistics.median(heights), 1)))
        pos += len(line) + 2
        if n > 80:
            break
    return out


_ARTICLE_LABEL = re.compile(
    r"(research|review|original|short|brief|case)?\s*(article|paper|communication|report|review)",
    re.IGNORECASE,
)


def _title_from_layout(lines: list[_SizedLine]) -> list[_SizedLine]:
    """The first run of adjacent largest-font lines near the top of page 1."""
    candidates = [ln for ln in lines[:40] if not _ARTICLE_LABEL.fullmatch(ln.text)]
    if not candidates:
        return []
    top = max(ln.height for ln in candidates)
    run: list[_SizedLine] = []
    for ln in candidates:
        if ln.height >= 0.95 * top:
            if run and ln.index != run[-1].index + 1:
                break
            run.append(ln)
        elif run:
            break
    text = " ".join(ln.text for ln in run)
    if not 8 <= len(text) <= 400 or len(run) > 6:
        return []
    return run


def _metadata_title(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    title = re.sub(r"\s+", " ", value).strip()
    words = re.findall(r"[A-Za-z]{2,}", title)
    if len(words) < 3 or ".." in title or re.search(r"\.(dvi|docx?|pdf|tex|indd)$", title, re.I):
        return None
    if title.lower().startswith(("microsoft word", "untitled")):
        return None
    return title


def _metadata_authors(value: object) -> list[str]:
    if not isinstance(value, str) or "et al" in value or "{" in value:
        return []
    parts = value.split(";") if ";" in value else re.split(r",|\band\b", value)
    names = [re.sub(r"\s+", " ", p).strip() for p in parts]
    return [n for n in names if 1 <= len(n.split()) <= 6 and any(c.isalpha() for c in n)]


_AFFILIATION = re.compile(
    r"universit|institut|department|dept\.|school|college|hospital|cent(er|re)|laborator"
    r"|division|faculty|@|abstract|correspond|received|www\.|http",
    re.IGNORECASE,
)
_MARKERS = re.compile(r"[∗*†‡§¶♠♢♡♣♦#\x80-\x9f]+|(?<=[^\W\d_])\d+(?:,\d+)*")
# Lower-case name particles ("Madeleine van Zuylen").
_PARTICLES = frozenset(
    {"van", "von", "der", "den", "de", "da", "di", "du", "del", "la", "le", "dos"}
)


def _authors_after_title(lines: list[_SizedLine], title: list[_SizedLine]) -> list[str]:
    if not title:
        return []
    after = [ln for ln in lines if ln.index > title[-1].index][:6]
    block: list[str] = []
    for ln in after:
        if _AFFILIATION.search(ln.text) or ln.text[:1] in "∗*†‡§¶♠♢♡♣♦" or ln.text[:1].isdigit():
            break
        block.append(ln.text)
    names: list[str] = []
    for part in re.split(r",|\band\b|\|", _MARKERS.sub("|", " ".join(block))):
        name = re.sub(r"\s+", " ", part).strip()
        words = name.split()
        if 2 <= len(words) <= 5 and all(
            w[0].isupper() for w in words if w[0].isalpha() and w not in _PARTICLES
        ):
            names.append(
                " ".join(w.capitalize() if w.isupper() and len(w) > 2 else w for w in words)
            )
    return names
