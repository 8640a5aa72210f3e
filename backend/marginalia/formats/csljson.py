"""CSL-JSON (a list of items, or one item), as Zotero, Mendeley and Pandoc write it:
parsed into import records, and written from them."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from marginalia.formats.limits import checked_record
from marginalia.formats.records import ImportFailure, ImportFormatError, ImportRecord, ParsedImport
from marginalia.sources.candidate import normalize_arxiv_id, origins_text, parse_origins

_CONFERENCE = re.compile(r"proceedings|conference|workshop|symposium|meeting|findings", re.I)


def _name(person: Any) -> str | None:
    if not isinstance(person, dict):
        return None
    if person.get("literal"):
        return str(person["literal"]).strip()
    given = str(person.get("given") or "").strip()
    family = " ".join(
        str(person.get(k) or "").strip() for k in ("non-dropping-particle", "family")
    ).strip()
    name = f"{given} {family}".strip()
    return name or None


def _year(item: dict[str, Any]) -> int | None:
    for key in ("issued", "published-print", "published-online", "created"):
        date = item.get(key)
        if not isinstance(date, dict):
            continue
        parts = date.get("date-parts")
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            try:
                return int(parts[0][0])
            except (TypeError, ValueError):
                pass
        match = re.search(r"\b(\d{4})\b", str(date.get("raw") or date.get("literal") or ""))
        if match:
            return int(match.group(1))
    return None


def _custom_origins(item: dict[str, Any]) -> dict[str, str]:
    custom = item.get("custom")
    return parse_origins(custom.get("metadata-origin")) if isinstance(custom, dict) else {}


def _text(item: dict[str, Any], key: str) -> str | None:
    value = item.get(key)
    if isinstance(value, str) and value.strip():
        return " ".join(value.split())
    return None


def _arxiv(item: dict[str, Any]) -> str | None:
    for key in ("number", "archive_location", "note", "URL", "DOI"):
        value = _text(item, key) or ""
        if "arxiv" in value.lower():
            found = normalize_arxiv_id(re.sub(r"(?i)^.*?arxiv[:\s]*", "", value))
            if found or (found := normalize_arxiv_id(value)):
                return found
    return None


def _record(item: Any, position: int) -> ImportRecord | ImportFailure:
    if not isinstance(item, dict):
        return ImportFailure(f"#{position}", "not_an_item", "a CSL-JSON item must be an object")
    key = str(item.get("citation-key") or item.get("id") or f"#{position}")
    title = _text(item, "title")
    if not title:
        return ImportFailure(key, "no_title", f"CSL-JSON item {key} has no title")
    authors = [n for p in item.get("author") or [] if (n := _name(p))]
    raw_note = item.get("note") if isinstance(item.get("note"), str) else ""
    notes = [
        " ".join(n.split())
        for n in re.split(r"\n\s*\n", raw_note or "")
        if n.strip() and not re.match(r"^\s*(?:arxiv|publisher|doi)\s*:", n, re.I)
    ]
    abstract = _text(item, "abstract")
    url = _text(item, "URL")
    doi = _text(item, "DOI")
    venue = _text(item, "container-title") or _text(item, "event-title")
    raw_files = item.get("file")
    files = raw_files if isinstance(raw_files, list) else [raw_files]
    attachments = [f for f in files if isinstance(f, str) and f.strip()]
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
        year=_year(item),
        arxiv_id=_arxiv(item),
        pages=_text(item, "page"),
        metadata_origins=_custom_origins(item),
        origin="csl-json",
        source_id=key,
    )


def parse_csl_json(text: str) -> ParsedImport:
    """Records (and failures) of a CSL-JSON file; :class:`ImportFormatError` when the text
    is not JSON or holds no item."""
    try:
        data = json.loads(text.lstrip("\ufeff"))
    except json.JSONDecodeError as exc:
        raise ImportFormatError(f"cannot parse CSL-JSON: {exc}") from exc
    except RecursionError:
        raise ImportFormatError("cannot parse CSL-JSON: it is nested too deeply") from None
    if isinstance(data, dict) and isinstance(data.get("items"), list):
        data = data["items"]
    items = data if isinstance(data, list) else [data]
    if not items:
        raise ImportFormatError("the CSL-JSON file holds no items")
    parsed = ParsedImport("csl-json", [])
    for i, item in enumerate(items, start=1):
        out = _record(item, i)
        if isinstance(out, ImportFailure):
            parsed.failures.append(out)
        else:
            parsed.records.append(out)
    return parsed


def _csl_person(name: str) -> dict[str, str]:
    parts = name.split()
    if len(parts) < 2:
        return {"literal": name}
    return {"family": parts[-1], "given": " ".join(parts[:-1])}


def to_csl_json(records: Sequence[ImportRecord], keys: Sequence[str] | None = None) -> str:
    """CSL-JSON for ``records`` (notes joined in ``note``); ``keys`` are the item ids."""
    items: list[dict[str, Any]] = []
    for i, record in enumerate(records):
        c = record.candidate
        kind = "article"
        if c.venue:
            kind = "paper-conference" if _CONFERENCE.search(c.venue) else "article-journal"
        item: dict[str, Any] = {
            "id": (keys[i] if keys else None) or c.source_id or f"item{i + 1}",
            "type": kind,
            "title": c.title,
        }
        if c.authors:
            item["author"] = [_csl_person(a) for a in c.authors]
        if c.year:
            item["issued"] = {"date-parts": [[c.year]]}
        if c.venue:
            item["container-title"] = c.venue
        if c.pages:
            item["page"] = c.pages.replace("--", "-")
        if c.doi:
            item["DOI"] = c.doi
        if c.url:
            item["URL"] = c.url
        if c.arxiv_id:
            item["number"] = f"arXiv:{c.arxiv_id}"
        if c.abstract:
            item["abstract"] = c.abstract
        if record.notes:
            item["note"] = "\n\n".join(record.notes)
        if c.metadata_origins:
            item["custom"] = {"metadata-origin": origins_text(c.metadata_origins)}
        items.append(item)
    return json.dumps(items, ensure_ascii=False, indent=2) + "\n"
