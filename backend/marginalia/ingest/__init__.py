"""Document ingestion: parse uploads (PDF, HTML, Markdown, text) and chunk them.

Pure functions only: no database, no network. See `parse_document` and
`chunk_document`.
"""

from marginalia.ingest.chunking import chunk_document, split_sentences
from marginalia.ingest.documents import (
    SECTION_TYPES,
    Chunk,
    Page,
    ParsedDocument,
    Section,
    text_at,
)
from marginalia.ingest.errors import DocumentError
from marginalia.ingest.parse import parse_document, sniff_kind

__all__ = [
    "SECTION_TYPES",
    "Chunk",
    "DocumentError",
    "Page",
    "ParsedDocument",
    "Section",
    "chunk_document",
    "parse_document",
    "sniff_kind",
    "split_sentences",
    "text_at",
]
