"""RIS (``TY  - JOUR`` … ``ER  -``), as Zotero, Mendeley and EndNote write it: parsed
into import records, and written from them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import unquote, urlsplit

from marginalia.formats.limits import checked_record
from marginalia.formats.records import ImportFailure, ImportFormatError, ImportRecord, ParsedImport
from marginalia.sources.candidate import normalize_arxiv_id, origins_text, parse_origins

_LINE = re.compile(r"^([A-Z][A-Z0-9])  -(?: (.*))?$")
_CONFERENCE = re.compile(r"proceedings|conference|workshop|symposium|meeting|findings", re.I)


def _tags(lines: list[tuple[str, list[str]]]) -> dict[str, list[str]]:
    """Each tag's values; a value's wrapped lines joined with spaces."""
    tags: dict[str, list[str]] = {}
    for tag, parts in lines:
        value = " ".join(parts).strip()
        if value:
            tags.setdefault(tag, []).append(value)
    return tags


def _author(value: str) -> str:
    """``Last, First`` (RIS's form) → ``First Last``."""
    parts = [p.strip() for p in value.split(",")]
    if len(parts) >= 2 and parts[0] and parts[1]:
        return " ".join([parts[1], parts[0], *parts[2:]]).strip()
    return value.strip()


def _path_of(link: str) -> str | None:
    """An attachment path from ``L1``: a ``file://`` URL or a plain (relative) path."""
    link = link.strip()
    if link.lower().startswith("file://"):
        return unquote(urlsplit(link).path) or None
    if "://" in link:
        return None  # a web link, not an attachment
    return link or None


def _record(tags: dict[str, list[str]], position: int) -> ImportRecord | ImportFailure:
    def first(*names: str) -> str | None:
        for name in names:
            if tags.get(name):
                return tags[name][0].strip()
        return None

    key = first("ID") or f"#{position}"
    title = first("TI", "T1", "CT")
    if not title:
        return ImportFailure(key, "no_title", f"RIS record {key} has no title (TI)")
    year_text = first("PY", "Y1", "DA") or ""
    year = re.search(r"\b(\d{4})\b", year_text)
    urls = [u.strip() for u in tags.get("UR", [])]
    doi = first("DO")
    arxiv = None
    for value in [*(tags.get("N1", [])), *(tags.get("AN", [])), *urls, doi or ""]:
        if "arxiv" in value.lower():
            arxiv = normalize_arxiv_id(re.sub(r"(?i)^.*?arxiv[:\s]*", "", value)) or (
                normalize_arxiv_id(value)
            )
            if arxiv:
                break
    attachments = [p for link in tags.get("L1", []) if (p := _path_of(link))]
    notes = [n.strip() for n in tags.get("N1", []) if n.strip() and not _identifier(n)]
    authors = [_author(a) for a in [*tags.get("AU", []), *tags.get("A1", [])]]
    abstract = first("AB", "N2")
    venue = first("T2", "JO", "JF", "BT", "J2")
    url = urls[0] if urls else None
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
        year=int(year.group(1)) if year else None,
        arxiv_id=arxiv,
        pages=_pages(first("SP"), first("EP")),
        metadata_origins=_origins(tags.get("C8", [])),
        origin="ris",
        source_id=first("ID"),
    )


def _pages(start: str | None, end: str | None) -> str | None:
    if start and end and end != start:
        return f"{start}--{end}"
    return start or None


_ORIGIN_PREFIX = "metadata-origin:"


def _origins(values: list[str]) -> dict[str, str]:
    for value in values:
        if value.strip().lower().startswith(_ORIGIN_PREFIX):
            return parse_origins(value.strip()[len(_ORIGIN_PREFIX) :])
    return {}


def _identifier(note: str) -> bool:
    return bool(re.match(r"^\s*(?:arxiv|publisher|doi|pmid|isbn)\s*:", note, re.I))


def parse_ris(text: str) -> ParsedImport:
    """Records (and failures) of a RIS file; :class:`ImportFormatError` when it holds no
    ``TY  -`` record."""
    text = text.lstrip("\ufeff")
    parsed = ParsedImport("ris", [])
    # (tag, the value's lines): joined once per record, not once per wrapped line.
    current: list[tuple[str, list[str]]] | None = None
    seen = 0
    for raw in text.splitlines():
        line = raw.rstrip()
        match = _LINE.match(line)
        if match is None:
            if current and line.strip():  # a wrapped value continues the last tag
                current[-1][1].append(line.strip())
            continue
        tag, value = match.group(1), (match.group(2) or "").strip()
        if tag == "TY":
            current = [(tag, [value])]
        elif tag == "ER":
            if current is not None:
                seen += 1
                out = _record(_tags(current), seen)
                if isinstance(out, ImportFailure):
                    parsed.failures.append(out)
                else:
                    parsed.records.append(out)
            current = None
        elif current is not None:
            current.append((tag, [value]))
    if current is not None:
        seen += 1
        parsed.failures.append(
            ImportFailure(f"#{seen}", "truncated", "the last RIS record has no ER line")
        )
    if seen == 0:
        raise ImportFormatError("no RIS records found (expected lines like 'TY  - JOUR')")
    return parsed


def _ris_author(name: str) -> str:
    parts = name.split()
    if len(parts) < 2:
        return name
    return f"{parts[-1]}, {' '.join(parts[:-1])}"


def to_ris(records: Sequence[ImportRecord]) -> str:
    """RIS for ``records`` (notes in ``N1``, one per note)."""
    out: list[str] = []
    for record in records:
        c = record.candidate
        kind = "GEN"
        if c.venue:
            kind = "CONF" if _CONFERENCE.search(c.venue) else "JOUR"
        lines = [("TY", kind), ("TI", c.title)]
        lines += [("AU", _ris_author(a)) for a in c.authors]
        if c.year:
            lines.append(("PY", str(c.year)))
        if c.venue:
            lines.append(("T2", c.venue))
        if c.pages:
            start, _, end = c.pages.partition("--")
            lines.append(("SP", start))
            if end:
                lines.append(("EP", end))
        if c.doi:
            lines.append(("DO", c.doi))
        if c.url:
            lines.append(("UR", c.url))
        if c.arxiv_id:
            lines.append(("AN", f"arXiv:{c.arxiv_id}"))
        if c.abstract:
            lines.append(("AB", " ".join(c.abstract.split())))
        if c.source_id:
            lines.append(("ID", c.source_id))
        if c.metadata_origins:
            lines.append(("C8", _ORIGIN_PREFIX + " " + origins_text(c.metadata_origins)))
        lines += [("N1", " ".join(n.split())) for n in record.notes]
        lines.append(("ER", ""))
        out += [f"{tag}  - {value}".rstrip() for tag, value in lines]
        out.append("")
    return "\n".join(out)
