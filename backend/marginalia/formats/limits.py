"""Field limits on imported entries (issue 34, item 5), the same for BibTeX, RIS and
CSL-JSON: an entry with a field over its limit (``marginalia/limits.py``) is **refused,
not truncated** — it is listed in the import's summary as failed (``too_long``: which
field, how long, the limit) and the file's other entries are imported; a file none of
whose entries can be imported is a 422 with the reasons. A clipped title would silently
be another record (and could dedup against the wrong source); the person fixes the
entry in their reference manager instead.

Also the budgets of a whole import: the text (``MAX_IMPORT_BYTES``) and, for BibTeX,
what its ``@string`` macros may expand to (``MAX_EXPANDED_CHARS``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from marginalia import limits
from marginalia.formats.records import ImportFailure, ImportRecord
from marginalia.sources.bibtex_macros import shown_key
from marginalia.sources.candidate import Candidate

#: Largest import file (the API's text bodies stop at 8 MB before this).
MAX_IMPORT_BYTES = 32 * 1024 * 1024
#: All fields of a BibTeX file together, after macro expansion.
MAX_EXPANDED_CHARS = 64 * 1024 * 1024

# The BibTeX fields the importer reads, with the most raw characters (LaTeX markup and
# braces included) each may expand to: twice the stored limit, plus room for markup.
_AUTHORS_FIELD = 200_000  # 5,000 names "Last, First and …" fit comfortably
BIBTEX_FIELDS: dict[str, int] = {
    "title": 2 * limits.TITLE + 100,
    "abstract": 2 * limits.ABSTRACT + 100,
    **{name: 2 * limits.VENUE + 100 for name in ("journal", "journaltitle", "booktitle")},
    "author": _AUTHORS_FIELD,
    "url": limits.URL,
    **{
        name: limits.IDENTIFIER
        for name in ("doi", "eprint", "eprinttype", "archiveprefix", "arxiv", "arxivid")
    },
    **{name: 200 for name in ("year", "date")},
    **{name: 600 for name in ("pages", "metadata-origin")},
    **{name: 2 * limits.VENUE for name in ("number", "howpublished", "publisher")},
    **{name: limits.NOTE for name in ("note", "annote", "annotation")},
    "file": limits.ATTACHMENTS * limits.URL,
}


# What a refusal names as a BibTeX field's limit: the limit once its LaTeX is read.
BIBTEX_STATED: dict[str, int] = {
    "title": limits.TITLE,
    "abstract": limits.ABSTRACT,
    **{name: limits.VENUE for name in ("journal", "journaltitle", "booktitle")},
}


def field_failure(
    key: str,
    *,
    title: str | None = None,
    abstract: str | None = None,
    venue: str | None = None,
    authors: Sequence[str] = (),
    url: str | None = None,
    doi: str | None = None,
    notes: Sequence[str] = (),
    attachments: Sequence[str] = (),
) -> ImportFailure | None:
    """The entry's first field over its limit, as a failure; None when all fit."""
    checks: list[tuple[str, int, int]] = [
        ("entry key", len(key), limits.IDENTIFIER),
        ("title", len(title or ""), limits.TITLE),
        ("abstract", len(abstract or ""), limits.ABSTRACT),
        ("venue", len(venue or ""), limits.VENUE),
        ("author list", len(authors), limits.AUTHORS),
        ("longest author name", max(map(len, authors), default=0), limits.AUTHOR),
        ("URL", len(url or ""), limits.URL),
        ("DOI", len(doi or ""), limits.IDENTIFIER),
        ("note list", len(notes), limits.NOTES),
        ("longest note", max(map(len, notes), default=0), limits.NOTE),
        ("attachment list", len(attachments), limits.ATTACHMENTS),
        ("longest attachment path", max(map(len, attachments), default=0), limits.URL),
    ]
    for name, length, limit in checks:
        if length > limit:
            shown = shown_key(key)
            unit = "entries" if name.endswith("list") else "characters"
            return ImportFailure(
                shown,
                "too_long",
                f"entry {shown}: the {name} is {length:,} {unit} long (at most {limit:,}); "
                "the entry was not imported",
            )
    return None


def checked_record(
    key: str,
    fields: dict[str, Any],
    *,
    notes: list[str],
    attachments: list[str],
    **candidate: Any,
) -> ImportRecord | ImportFailure:
    """The entry as a record — ``fields`` (title, abstract, venue, authors, url, doi) and
    ``candidate``'s other fields —, or the failure of its first field over its limit."""
    too_long = field_failure(key, notes=notes, attachments=attachments, **fields)
    if too_long is not None:
        return too_long
    return ImportRecord(
        candidate=Candidate(**fields, **candidate), attachments=attachments, notes=notes
    )
