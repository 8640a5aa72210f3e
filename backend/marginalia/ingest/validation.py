"""What ingest refuses, and why: a document is parsed with the configured limits before
anything is stored; a refusal is an IngestRefused with a clear, user-facing message
(invariant 6)."""

from __future__ import annotations

from marginalia.config import Settings
from marginalia.errors import MarginaliaError, PayloadTooLarge, UnsupportedMedia
from marginalia.ingest.documents import ParsedDocument
from marginalia.ingest.errors import DocumentError
from marginalia.ingest.parse import parse_document


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
        return parse_document(
            data,
            filename,
            content_type=content_type,
            max_bytes=settings.ingest.max_upload_mb * 1024 * 1024,
            max_pages=settings.ingest.max_pages,
        )
    except DocumentError as exc:
        raise refused(exc, filename) from exc
