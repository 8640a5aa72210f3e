"""Document model shared by every parser, the section detector and the chunker.

All spans are in *page coordinates*: a page number (1-based) plus a character
offset into that page's text. A span that crosses pages is read as the page
slices joined with "\n" (see `text_at`), which is exactly a slice of the pages'
texts joined with "\n" (`joined_text`); `PageIndex` converts between the two.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Literal

DocumentKind = Literal["pdf", "html", "markdown", "text"]

SECTION_TYPES: tuple[str, ...] = (
    "abstract",
    "introduction",
    "related_work",
    "methods",
    "results",
    "discussion",
    "conclusion",
    "references",
    "other",
)

PAGE_SEPARATOR = "\n"


@dataclass(frozen=True)
class Page:
    number: int  # 1-based
    text: str


@dataclass(frozen=True)
class Section:
    section_type: str
    title: str | None
    page_start: int
    char_start: int
    page_end: int
    char_end: int


@dataclass
class ParsedDocument:
    kind: DocumentKind
    title: str | None
    authors: list[str]
    abstract: str | None
    pages: list[Page]
    sections: list[Section]
    references: list[str]
    page_count: int
    # Free-form facts a parser found on the way (e.g. PDF metadata); not relied upon.
    metadata: dict[str, str] = field(default_factory=dict)
    # Bibliographic facts read from the document (ingest/metadata.py), when found.
    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None


@dataclass(frozen=True)
class Chunk:
    index: int
    text: str
    section_type: str
    section_title: str | None
    page_start: int
    page_end: int
    char_start: int  # offset into page `page_start`'s text
    char_end: int  # offset into page `page_end`'s text (exclusive)
    token_count: int  # model tokens including special tokens


def text_at(
    pages: list[Page], page_start: int, char_start: int, page_end: int, char_end: int
) -> str:
    """The text of a span; slices of different pages are joined with "\\n"."""
    by_number = {p.number: p for p in pages}
    if page_start == page_end:
        return by_number[page_start].text[char_start:char_end]
    parts = [by_number[page_start].text[char_start:]]
    parts.extend(by_number[n].text for n in range(page_start + 1, page_end))
    parts.append(by_number[page_end].text[:char_end])
    return PAGE_SEPARATOR.join(parts)


def joined_text(pages: list[Page]) -> str:
    return PAGE_SEPARATOR.join(p.text for p in pages)


class PageIndex:
    """Maps offsets in `joined_text(pages)` to (page number, offset in page) and back."""

    def __init__(self, pages: list[Page]) -> None:
        self.pages = pages
        self.starts: list[int] = []
        pos = 0
        for page in pages:
            self.starts.append(pos)
            pos += len(page.text) + len(PAGE_SEPARATOR)
        self.length = max(pos - len(PAGE_SEPARATOR), 0)

    def locate(self, offset: int) -> tuple[int, int]:
        """(page number, char offset) of a global offset.

        An offset on a page separator maps to the end of the page before it, which
        keeps `text_at` equal to the global slice for both span starts and ends.
        """
        i = max(bisect_right(self.starts, offset) - 1, 0)
        return self.pages[i].number, offset - self.starts[i]

    def offset(self, page_number: int, char: int) -> int:
        i = page_number - self.pages[0].number
        return self.starts[i] + char


def content_type_for(kind: str) -> str:
    """The media type stored for a document of ``kind`` whose upload named none."""
    return {
        "pdf": "application/pdf",
        "html": "text/html",
        "markdown": "text/markdown",
        "text": "text/plain",
    }.get(kind, "application/octet-stream")


_UNSAFE_NAME = re.compile(r"[\x00-\x1f\x7f]+")


def safe_file_name(name: str | None, default: str = "upload") -> str:
    """A file name as stored and echoed: its last path component only (``../../x.pdf`` →
    ``x.pdf``, ``C:\\a\\b.pdf`` → ``b.pdf``), control characters dropped, no leading
    dots (no ``..``, no hidden files), at most 200 characters."""
    last = re.split(r"[/\\]", name or "")[-1]
    cleaned = _UNSAFE_NAME.sub("", last).strip().lstrip(".").strip()
    return cleaned[:200] or default
