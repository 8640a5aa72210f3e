"""BibTeX import (what Zotero and friends export) and export, with bibtexparser 1.x."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from bibtexparser.bibdatabase import BibDatabase
from bibtexparser.bwriter import BibTexWriter
from bibtexparser.latexenc import latex_to_unicode

from marginalia import limits
from marginalia.sources.bibtex_macros import MacroBomb, load_bounded
from marginalia.sources.candidate import Candidate, normalize_arxiv_id, origins_text


class BibtexError(ValueError):
    """The input is not BibTeX we can read."""


# --- cleaning ---------------------------------------------------------------------------

# \emph{x}, \textit{x}, \textbf{x}, \textsc{x}, \mkbibquote{x}, ... → x
_FORMAT_CMD = re.compile(r"\\(?:emph|textit|textbf|textsc|textrm|texttt|textsf|mkbib\w+)\s*\{")
_ESCAPES = {r"\&": "&", r"\%": "%", r"\$": "$", r"\#": "#", r"\_": "_", r"\{": "{", r"\}": "}"}


def clean_latex(value: str) -> str:
    """Braces and LaTeX accents/escapes to plain Unicode text, whitespace collapsed."""
    text = _FORMAT_CMD.sub("{", value)
    # Protect escaped braces from latex_to_unicode's brace removal.
    text = text.replace(r"\{", "\x00").replace(r"\}", "\x01")
    text = latex_to_unicode(text)
    for escaped, plain in _ESCAPES.items():
        text = text.replace(escaped, plain)
    text = text.replace("\x00", "{").replace("\x01", "}")
    text = text.replace("~", " ")
    return " ".join(text.split())


def escape_latex(value: str) -> str:
    """Plain text to a BibTeX field value (Unicode kept; specials escaped)."""
    out = value.replace("\\", r"\textbackslash ")
    for plain in "&%$#_{}":
        out = out.replace(plain, "\\" + plain)
    return " ".join(out.split())


def _split_authors(value: str) -> list[str]:
    """``"Last, First and {Org Name} and First Last"`` → ``["First Last", "Org Name", ...]``."""
    names: list[str] = []
    for raw in re.split(r"\s+and\s+", value.strip()):
        if not raw.strip() or raw.strip().lower() == "others":
            continue
        if raw.strip().startswith("{") and raw.strip().endswith("}") and raw.count("{") == 1:
            names.append(clean_latex(raw))  # corporate author, kept whole
            continue
        parts = [p.strip() for p in _split_top_level_commas(raw)]
        if len(parts) == 2:  # Last, First
            name = f"{parts[1]} {parts[0]}"
        elif len(parts) == 3:  # Last, Jr, First
            name = f"{parts[2]} {parts[0]} {parts[1]}"
        else:
            name = raw
        cleaned = clean_latex(name)
        if cleaned:
            names.append(cleaned)
    return names


def _split_top_level_commas(value: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in value:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return parts


def _year(entry: dict[str, str]) -> int | None:
    for key in ("year", "date"):
        match = re.search(r"\b(\d{4})\b", entry.get(key, ""))
        if match:
            return int(match.group(1))
    return None


def _arxiv_id(entry: dict[str, str]) -> str | None:
    prefix = entry.get("archiveprefix", entry.get("eprinttype", "")).lower()
    eprint = entry.get("eprint", "")
    if eprint and (prefix == "arxiv" or not prefix):
        found = normalize_arxiv_id(eprint)
        if found:
            return found
    for key in ("arxiv", "arxivid"):
        if entry.get(key):
            return normalize_arxiv_id(entry[key])
    journal = entry.get("journal", "")
    if journal.lower().startswith("arxiv"):
        return normalize_arxiv_id(journal)
    return None


def _pdf_from_file_field(value: str) -> str | None:
    """Zotero's ``file = {Full Text PDF:files/12/x.pdf:application/pdf;...}``."""
    for item in value.split(";"):
        for part in item.split(":"):
            if part.strip().lower().endswith(".pdf"):
                return part.strip()
    return None


def entry_to_candidate(entry: dict[str, str]) -> Candidate | None:
    raw_title = entry.get("title", "")
    title = clean_latex(raw_title)
    if not title:
        return None
    venue_raw = entry.get("journal") or entry.get("booktitle") or entry.get("journaltitle")
    url = entry.get("url", "").strip() or None
    file_field = entry.get("file", "")
    pdf = _pdf_from_file_field(file_field) if file_field else None
    if pdf is None and url and url.lower().endswith(".pdf"):
        pdf = url
    abstract = clean_latex(entry.get("abstract", "")) or None
    return Candidate(
        title=title,
        authors=_split_authors(entry.get("author", "")) if entry.get("author") else [],
        year=_year(entry),
        abstract=abstract,
        url=url,
        pdf_url=pdf,
        doi=entry.get("doi"),
        arxiv_id=_arxiv_id(entry),
        venue=clean_latex(venue_raw) if venue_raw else None,
        pages=entry.get("pages"),
        metadata_origins=entry.get("metadata-origin") or {},
        origin="bibtex",
        source_id=entry.get("ID"),
    )


# The fields entry_to_candidate reads, each expanded up to these raw lengths (an entry
# with a longer one is skipped), and what a whole file may expand to.
_FIELDS = {
    "title": 2 * limits.TITLE + 100,
    "abstract": 2 * limits.ABSTRACT + 100,
    **{k: 2 * limits.VENUE + 100 for k in ("journal", "booktitle", "journaltitle")},
    "author": 200_000,
    **{k: limits.URL for k in ("url", "file")},
    **{k: limits.IDENTIFIER for k in ("doi", "eprint", "archiveprefix", "eprinttype")},
    **{k: limits.IDENTIFIER for k in ("arxiv", "arxivid", "year", "date")},
    **{k: 600 for k in ("pages", "metadata-origin")},
}
_EXPANDED_CHARS = 64 * 1024 * 1024


def parse_bibtex(text: str) -> list[Candidate]:
    """Candidates from BibTeX text (entries without a title are skipped).

    Raises :class:`BibtexError` when the text holds no readable entry.
    """
    if not text or not text.strip():
        raise BibtexError("empty BibTeX input")
    try:
        loaded = load_bounded(text, _FIELDS, budget=_EXPANDED_CHARS)
    except MacroBomb as exc:
        raise BibtexError(str(exc)) from None
    except Exception as exc:  # bibtexparser raises pyparsing and assorted errors
        raise BibtexError(f"cannot parse BibTeX: {exc}") from exc
    entries = loaded.entries
    if not entries:
        raise BibtexError(
            "no BibTeX entries found (expected entries like @article{key, title = {...}, ...})"
        )
    out = [c for e in entries if (c := entry_to_candidate(e)) is not None]
    if not out:
        raise BibtexError(f"none of the {len(entries)} BibTeX entries has a title")
    return out


# --- export -----------------------------------------------------------------------------

_KEY_STOP = frozenset({"a", "an", "the", "on", "of", "in", "for", "and", "to", "with", "from"})
_CONFERENCE_HINT = re.compile(
    r"proceedings|conference|workshop|symposium|meeting|findings|congress", re.I
)


def _ascii_word(value: str) -> str:
    folded = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]", "", folded.lower())


def _last_name(author: str) -> str:
    parts = author.split()
    return parts[-1] if parts else author


def base_key(record: Candidate) -> str:
    """firstauthorlastname + year + first significant title word, ASCII lower-case."""
    last = _ascii_word(_last_name(record.authors[0])) if record.authors else ""
    words = [_ascii_word(w) for w in record.title.split()]
    first = next((w for w in words if w and w not in _KEY_STOP), "")
    return f"{last or 'anon'}{record.year or 'nd'}{first or 'untitled'}"


def citation_keys(records: Sequence[Candidate]) -> list[str]:
    """Stable, unique keys in record order: repeats get ``a``, ``b``, … suffixes."""
    bases = [base_key(r) for r in records]
    taken = set(bases)
    seen: set[str] = set()
    keys: list[str] = []
    for key in bases:
        if key not in seen:
            seen.add(key)
            keys.append(key)
            continue
        for suffix in _suffixes():
            candidate = key + suffix
            if candidate not in taken:
                taken.add(candidate)
                keys.append(candidate)
                break
    return keys


def _suffixes() -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return list(letters) + [a + b for a in letters for b in letters]


def _author_field(name: str) -> str:
    parts = name.split()
    if len(parts) < 2:
        return "{" + escape_latex(name) + "}"
    return f"{escape_latex(parts[-1])}, {escape_latex(' '.join(parts[:-1]))}"


def record_to_entry(record: Candidate, key: str) -> dict[str, str]:
    entry: dict[str, str] = {"ID": key, "title": escape_latex(record.title)}
    venue = record.venue
    if venue and _CONFERENCE_HINT.search(venue):
        entry["ENTRYTYPE"] = "inproceedings"
        entry["booktitle"] = escape_latex(venue)
    elif venue:
        entry["ENTRYTYPE"] = "article"
        entry["journal"] = escape_latex(venue)
    else:
        entry["ENTRYTYPE"] = "misc"
    if record.authors:
        entry["author"] = " and ".join(_author_field(a) for a in record.authors)
    if record.year:
        entry["year"] = str(record.year)
    if record.doi:
        entry["doi"] = record.doi
    if record.pages:
        entry["pages"] = record.pages
    if record.url:
        entry["url"] = record.url
    if record.arxiv_id:
        entry["eprint"] = record.arxiv_id
        entry["archiveprefix"] = "arXiv"
    if record.abstract:
        entry["abstract"] = escape_latex(record.abstract)
    if record.metadata_origins:
        entry["metadata-origin"] = origins_text(record.metadata_origins)
    return entry


_FIELD_ORDER = [
    "title",
    "author",
    "year",
    "journal",
    "booktitle",
    "pages",
    "doi",
    "url",
    "eprint",
    "archiveprefix",
    "abstract",
    "metadata-origin",
]


def to_bibtex(records: Sequence[Candidate]) -> str:
    """BibTeX for ``records`` with stable unique citation keys (see :func:`citation_keys`)."""
    database = BibDatabase()
    database.entries = [
        record_to_entry(r, k) for r, k in zip(records, citation_keys(records), strict=True)
    ]
    writer = BibTexWriter()
    writer.indent = "  "
    writer.order_entries_by = None
    writer.display_order = _FIELD_ORDER
    writer.add_trailing_comma = True
    return str(writer.write(database))
