"""Plain text and Markdown parsing, and the assembly step every parser ends with."""

from __future__ import annotations

import re

from marginalia.ingest.documents import DocumentKind, Page, ParsedDocument, joined_text
from marginalia.ingest.sections import (
    Heading,
    build_sections,
    classify_title,
    detect_headings,
    markdown_headings,
    running_lines,
    split_references,
)


def clean_inline(text: str) -> str:
    """One-line display text: hyphenated line breaks joined, whitespace collapsed."""
    text = re.sub(r"(?<=[a-z])-\n(?=[a-z])", "", text)
    return re.sub(r"\s+", " ", text).strip()


def assemble_document(
    kind: DocumentKind,
    pages: list[Page],
    *,
    title: str | None,
    authors: list[str],
    markdown: bool,
    drop_title_heading: bool = False,
) -> ParsedDocument:
    """Detect headings, build sections, pull out the abstract and the reference list."""
    text = joined_text(pages)
    headings = markdown_headings(text) if markdown else detect_headings(pages)
    if drop_title_heading and headings and headings[0].level == 1:
        # The leading H1 is the document title, not a section: its text stays in the
        # front-matter section.
        title = title or headings[0].title
        headings = headings[1:]

    abstract: str | None = None
    references: list[str] = []
    furniture = running_lines(pages) if len(pages) > 1 else set()
    for i, h in enumerate(headings):
        body_end = headings[i + 1].start if i + 1 < len(headings) else len(text)
        body = text[h.end : body_end]
        if h.section_type == "abstract" and abstract is None and body.strip():
            abstract = clean_inline(body)
        elif h.section_type == "references":
            references.extend(split_references(body, furniture))

    return ParsedDocument(
        kind=kind,
        title=title,
        authors=authors,
        abstract=abstract,
        pages=pages,
        sections=build_sections(pages, headings),
        references=references,
        page_count=len(pages),
    )


def decode_text(data: bytes) -> str:
    """Decode uploaded text: UTF-8 (with or without BOM), else cp1252, else latin-1."""
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")


def _normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def parse_text(text: str) -> ParsedDocument:
    """A .txt document: one page, headings found by the line detector."""
    text = _normalise_newlines(text)
    pages = [Page(number=1, text=text)]
    doc = assemble_document("text", pages, title=None, authors=[], markdown=False)
    first_line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    first_heading = doc.sections[0].title if doc.sections else None
    if 0 < len(first_line) <= 200 and first_line != first_heading and not first_line.endswith("."):
        doc.title = first_line
    return doc


_FRONT_MATTER = re.compile(r"\A---\n(?P<body>.*?)\n(---|\.\.\.)\n", re.DOTALL)


def _front_matter(text: str) -> tuple[str | None, list[str]]:
    m = _FRONT_MATTER.match(text)
    if not m:
        return None, []
    title: str | None = None
    authors: list[str] = []
    for line in m["body"].splitlines():
        key, _, value = line.partition(":")
        value = value.strip().strip("'\"")
        if key.strip().lower() == "title" and value:
            title = value
        elif key.strip().lower() in ("author", "authors") and value:
            authors = [a.strip().strip("'\"") for a in re.split(r";|,|\band\b", value.strip("[]"))]
    return title, [a for a in authors if a]


def parse_markdown(text: str) -> ParsedDocument:
    """A Markdown document: one page (the raw Markdown), `#` headings as sections."""
    text = _normalise_newlines(text)
    title, authors = _front_matter(text)
    pages = [Page(number=1, text=text)]
    return assemble_document(
        "markdown",
        pages,
        title=title,
        authors=authors,
        markdown=True,
        drop_title_heading=_leading_title_heading(markdown_headings(text)),
    )


def _leading_title_heading(headings: list[Heading]) -> bool:
    """A first H1 that is not a known section name ('# Deep Nets for X') is the title."""
    if not headings or headings[0].level != 1:
        return False
    return classify_title(headings[0].title) is None
