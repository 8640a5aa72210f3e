"""BibTeX import as Zotero, Better BibTeX and Mendeley write it.

Beyond the classic fields this reads biblatex's (``journaltitle``, ``date``,
``eprinttype``), Better BibTeX's arXiv conventions (``eprint``/``eprinttype = {arxiv}``,
``number = {arXiv:…}``, arXiv DOIs), notes (``annote``, ``annotation``, a ``note`` that is
more than an identifier) and Zotero's ``file`` field — ``Description:path:mime;…`` with
``\\:`` and ``\\\\`` escaped, or Better BibTeX's bare ``path;path`` — as attachment paths,
left for :mod:`marginalia.formats.attachments` to resolve.

Macros are expanded under a budget and fields checked against their limits
(:mod:`marginalia.sources.bibtex_macros`, :mod:`marginalia.formats.limits`): a macro bomb
refuses the file, an over-long field refuses its entry.
"""

from __future__ import annotations

import re

from marginalia.formats.limits import (
    BIBTEX_FIELDS,
    BIBTEX_STATED,
    MAX_EXPANDED_CHARS,
    checked_record,
)
from marginalia.formats.records import ImportFailure, ImportFormatError, ImportRecord, ParsedImport
from marginalia.sources.bibtex import _arxiv_id, _split_authors, _year, clean_latex
from marginalia.sources.bibtex_macros import MacroBomb, load_bounded
from marginalia.sources.candidate import normalize_arxiv_id

_IDENTIFIER_NOTE = re.compile(r"^\s*(?:arxiv|publisher|doi|pmid|pmcid|isbn|issn)\s*:", re.I)
_MIMES = ("application/", "text/", "image/")


def split_file_field(value: str) -> list[str]:
    """The attachment paths of a Zotero/Better BibTeX ``file`` field, in order."""
    paths: list[str] = []
    for item in _split_unescaped(value, ";"):
        parts = [_unescape(p).strip() for p in _split_unescaped(item, ":")]
        parts = [p for p in parts if p]
        if not parts:
            continue
        if len(parts) >= 3:
            # Description:path:mime — a Windows drive letter splits the path once more.
            middle = parts[1:-1] if parts[-1].lower().startswith(_MIMES) else parts[1:]
            path = ":".join(middle)
        elif len(parts) == 2:
            if parts[1].lower().startswith(_MIMES):
                path = parts[0]  # path:mime
            elif len(parts[0]) == 1 and parts[0].isalpha():
                path = f"{parts[0]}:{parts[1]}"  # C:\…
            else:
                path = parts[1]  # Description:path
        else:
            path = parts[0]
        if path:
            paths.append(path)
    return paths


def _split_unescaped(value: str, sep: str) -> list[str]:
    out: list[str] = []
    current: list[str] = []
    escaped = False
    for ch in value:
        if escaped:
            current.append("\\" + ch)
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == sep:
            out.append("".join(current))
            current = []
        else:
            current.append(ch)
    if escaped:
        current.append("\\")
    out.append("".join(current))
    return out


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def _arxiv(entry: dict[str, str]) -> str | None:
    found = _arxiv_id(entry)
    if found:
        return found
    prefix = entry.get("eprinttype", entry.get("archiveprefix", "")).lower()
    if prefix == "arxiv" and entry.get("eprint"):
        return normalize_arxiv_id(entry["eprint"])
    for key in ("number", "note", "howpublished", "publisher"):
        value = entry.get(key, "")
        if "arxiv" in value.lower():
            found = normalize_arxiv_id(re.sub(r"(?i)^.*?arxiv[:\s]*", "", value))
            if found:
                return found
    return None


def _notes(entry: dict[str, str]) -> list[str]:
    notes: list[str] = []
    for key in ("annote", "annotation", "note"):
        value = entry.get(key, "").strip()
        if not value or (key == "note" and _IDENTIFIER_NOTE.match(clean_latex(value))):
            continue
        for paragraph in re.split(r"\n\s*\n", value):  # one note per paragraph
            text = clean_latex(paragraph)
            if text and text not in notes:
                notes.append(text)
    return notes


def entry_to_record(entry: dict[str, str]) -> ImportRecord | ImportFailure:
    key = entry.get("ID") or "?"
    title = clean_latex(entry.get("title", ""))
    if not title:
        return ImportFailure(key, "no_title", f"entry {key} has no title")
    raw_venue = entry.get("journal") or entry.get("journaltitle") or entry.get("booktitle")
    venue = clean_latex(raw_venue) if raw_venue else None
    authors = _split_authors(entry["author"]) if entry.get("author") else []
    abstract = clean_latex(entry.get("abstract", "")) or None
    url = entry.get("url", "").strip() or None
    doi = entry.get("doi", "").strip() or None
    attachments = split_file_field(entry["file"]) if entry.get("file") else []
    notes = _notes(entry)
    fields = {
        "title": title,
        "abstract": abstract,
        "venue": venue,
        "authors": authors,
        "url": url,
        "doi": doi,
    }
    return checked_record(
        key,
        fields,
        notes=notes,
        attachments=attachments,
        year=_year(entry),
        arxiv_id=_arxiv(entry),
        pages=entry.get("pages"),
        metadata_origins=entry.get("metadata-origin") or {},
        origin="bibtex",
        source_id=key,
    )


def parse_bibtex_export(text: str) -> ParsedImport:
    """Records (and failures) of a BibTeX export; :class:`ImportFormatError` when the
    text holds no BibTeX entry at all."""
    if not text.strip():
        raise ImportFormatError("empty BibTeX input")
    try:
        loaded = load_bounded(text, BIBTEX_FIELDS, budget=MAX_EXPANDED_CHARS, stated=BIBTEX_STATED)
    except MacroBomb as exc:
        raise ImportFormatError(str(exc)) from None
    except Exception as exc:  # bibtexparser raises pyparsing and assorted errors
        raise ImportFormatError(f"cannot parse BibTeX: {exc}") from exc
    if not loaded.entries and not loaded.too_long:
        raise ImportFormatError(
            "no BibTeX entries found (expected entries like @article{key, title = {...}, ...})"
        )
    parsed = ParsedImport("bibtex", [])
    parsed.failures += [ImportFailure(t.entry, "too_long", t.detail) for t in loaded.too_long]
    for entry in loaded.entries:
        out = entry_to_record(entry)
        if isinstance(out, ImportFailure):
            parsed.failures.append(out)
        else:
            parsed.records.append(out)
    return parsed
