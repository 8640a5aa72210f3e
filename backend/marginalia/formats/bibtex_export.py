"""BibTeX export with the workspace's notes (and highlights) in ``annote`` — one
paragraph per note — on top of the shared entry writer (:mod:`marginalia.sources.bibtex`,
which owns the bibliographic fields)."""

from __future__ import annotations

from collections.abc import Sequence

from bibtexparser.bibdatabase import BibDatabase
from bibtexparser.bwriter import BibTexWriter

from marginalia.formats.records import ImportRecord
from marginalia.sources.bibtex import citation_keys, record_to_entry


def _escape_paragraph(text: str) -> str:
    out = " ".join(text.split()).replace("\\", r"\textbackslash ")
    for plain in "&%$#_{}":
        out = out.replace(plain, "\\" + plain)
    return out


def annote_field(notes: Sequence[str]) -> str:
    """Notes as one ``annote`` value: paragraphs separated by a blank line."""
    return "\n\n".join(_escape_paragraph(n) for n in notes if n.strip())


def to_bibtex_with_notes(records: Sequence[ImportRecord]) -> str:
    candidates = [r.candidate for r in records]
    keys = citation_keys(candidates)
    entries = []
    for record, key in zip(records, keys, strict=True):
        entry = record_to_entry(record.candidate, key)
        if record.notes:
            entry["annote"] = annote_field(record.notes)
        entries.append(entry)
    database = BibDatabase()
    database.entries = entries
    writer = BibTexWriter()
    writer.indent = "  "
    writer.order_entries_by = None
    writer.add_trailing_comma = True
    return str(writer.write(database))
