"""What ingest refuses, and why: a document is parsed with the configured limits — in the
parse sandbox, under its memory, time and decompression budgets (``ingest/untrusted.py``)
— before anything is stored; a refusal is an IngestRefused with a clear, user-facing
message (invariant 6). What the document says about itself is clipped to the field
limits (``marginalia/limits.py``)."""

from __future__ import annotations

from marginalia import limits
from marginalia.config import Settings
from marginalia.errors import MarginaliaError, PayloadTooLarge, UnsupportedMedia
from marginalia.ingest.documents import ParsedDocument
from marginalia.ingest.errors import DocumentError
from marginalia.ingest.untrusted import parse_untrusted


class IngestRefused(MarginaliaError):
    """A document we will not ingest; `code` says why (DocumentError codes)."""

    status_code = 422

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code


_STATUS_FOR_CODE = {
    "too_large": PayloadTooLarge.status_code,
    "unsupported_type": UnsupportedMedia.status_code,
}


def refused(error: DocumentError, filename: str) -> IngestRefused:
    # Name the file: an upload may carry several.
    message = error.message if filename in error.message else f"“{filename}”: {error.message}"
    exc = IngestRefused(error.code, message)
    exc.status_code = _STATUS_FOR_CODE.get(error.code, 422)
    return exc


def validate_document(
    data: bytes, filename: str, content_type: str | None, settings: Settings
) -> ParsedDocument:
    """Parse with the configured limits; refusals become IngestRefused with a clear message."""
    try:
        document = parse_untrusted(data, filename, content_type, settings.ingest)
    except DocumentError as exc:
        raise refused(exc, filename) from exc
    document.title = limits.clip(document.title, limits.TITLE)
    document.abstract = limits.clip(document.abstract, limits.ABSTRACT)
    document.venue = limits.clip(document.venue, limits.VENUE)
    document.authors = limits.clip_names(document.authors)
    document.doi = limits.clip(document.doi, limits.IDENTIFIER)
    return document
