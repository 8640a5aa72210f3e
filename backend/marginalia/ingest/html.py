"""HTML parsing with trafilatura: main text as Markdown, then the Markdown path."""

from __future__ import annotations

import re

import trafilatura

from marginalia.ingest.documents import Page, ParsedDocument
from marginalia.ingest.errors import DocumentError
from marginalia.ingest.sections import markdown_headings
from marginalia.ingest.text import assemble_document


def parse_html(data: bytes) -> ParsedDocument:
    """Main content of a web page (boilerplate removed) as one Markdown page.

    trafilatura's Markdown keeps the page's h1-h6 as `#` headings, so sections come
    from the same detector as uploaded Markdown.
    """
    try:
        text = trafilatura.extract(
            data,
            output_format="markdown",
            include_formatting=True,
            include_tables=True,
            include_comments=False,
            favor_recall=True,
        )
        meta = trafilatura.extract_metadata(data)
    except Exception as exc:  # trafilatura/lxml raise many types on broken markup
        raise DocumentError(
            "unsupported_type",
            "This web page could not be read as HTML. Save it again or upload it as PDF.",
        ) from exc
    if not text or not text.strip():
        raise DocumentError(
            "no_text",
            "No readable article text was found in this web page (it may need JavaScript "
            "or be mostly navigation). Upload the article as PDF or paste its text.",
        )
    text = text.replace("\r\n", "\n")
    title = meta.title.strip() if meta is not None and meta.title else None
    authors: list[str] = []
    if meta is not None and meta.author:
        authors = [a.strip() for a in re.split(r";|\band\b", meta.author) if a.strip()]
    headings = markdown_headings(text)
    # trafilatura repeats the page title as the first "#" heading: it is not a section.
    drop = (
        bool(headings)
        and headings[0].level == 1
        and (title is None or headings[0].title.strip().lower() == title.lower())
        and headings[0].section_type == "other"
    )
    return assemble_document(
        "html",
        [Page(number=1, text=text)],
        title=title,
        authors=authors,
        markdown=True,
        drop_title_heading=drop,
    )
