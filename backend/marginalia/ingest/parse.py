"""One entry point for every upload: sniff the type from the bytes, then parse."""

from __future__ import annotations

import os
from collections.abc import Callable

from marginalia.ingest.documents import DocumentKind, ParsedDocument
from marginalia.ingest.errors import DocumentError
from marginalia.ingest.html import parse_html
from marginalia.ingest.pdf import parse_pdf
from marginalia.ingest.text import decode_text, parse_markdown, parse_text

# Magic numbers of formats people upload by mistake, to say what the file really is.
_BINARY_MAGIC: list[tuple[bytes, str]] = [
    (b"MZ", "a Windows program"),
    (b"\x7fELF", "a program"),
    (b"PK\x03\x04", "a ZIP archive (or a Word/Excel/EPUB file)"),
    (b"\xd0\xcf\x11\xe0", "an old Microsoft Office file"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"%!PS", "a PostScript file"),
    (b"{\\rtf", "an RTF document"),
]
_HTML_MARKERS = (b"<!doctype html", b"<html", b"<head", b"<body", b"<article", b"<meta ")
_MARKDOWN_EXT = {".md", ".markdown", ".mdown", ".mkd"}
_HTML_EXT = {".html", ".htm", ".xhtml"}
_SUPPORTED = "PDF, HTML, Markdown (.md) or plain text (.txt)"


def parse_document(
    data: bytes,
    filename: str,
    *,
    content_type: str | None = None,
    max_bytes: int,
    max_pages: int,
    on_page: Callable[[int], None] | None = None,
) -> ParsedDocument:
    """Parse an uploaded document, or raise DocumentError saying why not. ``on_page`` is
    told each PDF page read (the sandbox's progress; see ``ingest/untrusted.py``)."""
    if len(data) == 0:
        raise DocumentError(
            "empty_file", f"“{filename}” is empty (0 bytes). Check the file and upload it again."
        )
    if len(data) > max_bytes:
        raise DocumentError(
            "too_large",
            f"“{filename}” is {len(data) / 1e6:.1f} MB; the limit is {max_bytes / 1e6:.0f} MB. "
            "Upload a smaller file (e.g. without embedded images or supplements).",
        )
    kind = sniff_kind(data, filename, content_type)
    if kind == "pdf":
        return parse_pdf(data, max_pages=max_pages, on_page=on_page)
    if kind == "html":
        return parse_html(data)
    text = decode_text(data)
    if not text.strip():
        raise DocumentError(
            "empty_file",
            f"“{filename}” contains only whitespace. Check the file and upload it again.",
        )
    return parse_markdown(text) if kind == "markdown" else parse_text(text)


def sniff_kind(data: bytes, filename: str, content_type: str | None = None) -> DocumentKind:
    """The document's type from its content; the name and content type only break ties."""
    head = data[:1024]
    if b"%PDF-" in head:
        return "pdf"  # PDF readers accept junk before the header; so do we
    ext = os.path.splitext(filename)[1].lower()
    for magic, what in _BINARY_MAGIC:
        if head.startswith(magic):
            raise DocumentError(
                "unsupported_type",
                f"“{filename}” looks like {what}, not a document we can read. Upload {_SUPPORTED}.",
            )
    if not _looks_like_text(data[:8192]):
        raise DocumentError(
            "unsupported_type",
            f"“{filename}” is not a {_SUPPORTED} file (its content is binary). "
            f"Upload {_SUPPORTED}.",
        )
    lowered = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    looks_html = lowered.startswith((b"<!doctype html", b"<html", b"<?xml")) or any(
        marker in lowered for marker in _HTML_MARKERS
    )
    ctype = (content_type or "").split(";")[0].strip().lower()
    if ext == ".pdf" or ctype == "application/pdf":
        what = "a web page" if looks_html else "text"
        raise DocumentError(
            "unsupported_type",
            f"“{filename}” is named like a PDF but contains {what}, not a PDF (often a "
            "login or error page saved instead of the paper). Download the real PDF.",
        )
    if looks_html and ext not in _MARKDOWN_EXT:
        return "html"
    if ext in _MARKDOWN_EXT or ctype in ("text/markdown", "text/x-markdown"):
        return "markdown"
    if ext in _HTML_EXT or ctype in ("text/html", "application/xhtml+xml"):
        return "html"
    return "text"


def _looks_like_text(sample: bytes) -> bool:
    if b"\x00" in sample:
        return False  # also rejects UTF-16; such uploads are rare enough to refuse
    try:
        decoded = sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(sample) - 4:  # not just a cut multi-byte char at the end
            decoded = sample.decode("cp1252", errors="replace")
        else:
            decoded = sample[: exc.start].decode("utf-8")
    control = sum(1 for ch in decoded if ord(ch) < 32 and ch not in "\n\r\t\f")
    return control <= len(decoded) * 0.01
