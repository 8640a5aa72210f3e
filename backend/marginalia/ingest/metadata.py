"""Bibliographic metadata read from the document itself (issue 13, item 4).

A PDF carries its own identity in three places that often disagree: the PDF metadata
dictionary (Title/Author/Subject, set by the typesetter — sometimes a production id or
the first author only), the first page (the venue line, the title, the names as printed,
``doi:`` in the header) and running headers/footers or the last page ("Cite this article
as ...", ``doi:`` above it). :func:`enrich` reads all three and keeps a value only where
the sources agree or where one of them is unambiguous:

- **DOI**: a DOI in the metadata (Subject/Keywords/doi); else the first DOI printed on
  page 1; else one printed on at least two pages (a running footer); else one on the last
  page beside "Cite this article" or on a line of its own. DOIs inside reference entries
  (an entry's text ends with it) are never the paper's own, except one that is also
  printed in a running header or a "Cite this article" block.
- **arXiv id**: the arXiv stamp on page 1 (``arXiv:2004.07180v4 [cs.CL] 20 May 2020``)
  or the metadata; an id merely cited in the text is not the paper's.
- **year**: the venue line of page 1 ("Proceedings of NAACL-HLT 2018, pages 84–91",
  "Clinical Science (2014) 126", "BMC Health Services Research 2014, 14:1", "Volume
  2010, Article ID"), then "Published <date>", then the arXiv id, then "Accepted <date>",
  then a copyright line, then the PDF's creation date — never later than the file itself.
- **venue**: the same venue line, without pages and volume.
- **authors**: the names as printed on page 1 when they agree with the metadata's (same
  count, same surnames) — the page keeps middle initials and case ("Daniel S. Weld",
  "Lucy Lu Wang") that metadata often drops or lower-cases.
- **abstract**: without the front matter that follows it in two-column layouts
  (keywords, "* Correspondence:", affiliations, licence text, the running header); when
  no "Abstract" heading exists, the structured abstract ("Objectives. ... Conclusions.")
  of page 1.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import date
from difflib import SequenceMatcher

from marginalia.ingest.documents import Page, ParsedDocument
from marginalia.sources.candidate import normalize_arxiv_id, normalize_doi

# --- DOI --------------------------------------------------------------------------------

# A DOI as printed: "10.1042/CS20130403", "doi:10.1155/2010/157939", "DOI 10.7717/peerj-cs.118".
_DOI_TEXT = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>{}]+)")
_CITE_THIS = re.compile(r"cite this article|how to cite|please cite|citation:", re.I)


def _clean_doi(raw: str) -> str | None:
    doi = raw.rstrip(".,;:)]}'’”")
    # A closing parenthesis is part of some DOIs ("10.1002/(SICI)..."): keep balanced ones.
    while doi.count(")") > doi.count("(") and doi.endswith(")"):
        doi = doi[:-1]
    return normalize_doi(doi)


def _dois(text: str) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for m in _DOI_TEXT.finditer(text):
        doi = _clean_doi(m.group(1))
        if doi:
            out.append((m.start(), doi))
    return out


def find_doi(pages: list[Page], metadata: dict[str, str], references: list[str]) -> str | None:
    """The document's own DOI, or None (see the module docstring for the order)."""
    for key in ("doi", "DOI", "Subject", "Keywords", "Title"):
        value = metadata.get(key)
        found = _dois(value) if value else []
        if found:
            return found[0][1]
    if not pages:
        return None
    # DOIs that end a reference entry belong to the cited work.
    cited = Counter(doi for ref in references for _, doi in _dois(ref))
    first = _dois(pages[0].text)
    per_page = Counter(doi for page in pages for doi in {d for _, d in _dois(page.text)})
    repeated = [doi for doi, n in per_page.most_common() if n >= 2 and n > cited.get(doi, 0)]
    if first:
        own = [d for _, d in first if d in repeated or not cited.get(d)]
        if own:
            return own[0]
    if repeated:
        return repeated[0]
    last = pages[-1].text
    for pos, doi in _dois(last):
        near = last[pos : pos + 400]
        line_start = last.rfind("\n", 0, pos) + 1
        line_end = last.find("\n", pos)
        line = last[line_start : line_end if line_end >= 0 else len(last)]
        alone = re.fullmatch(r"\s*(doi:?\s*)?" + re.escape(doi) + r"\s*", line, re.I) is not None
        if _CITE_THIS.search(near) or (alone and not cited.get(doi)):
            return doi
    return None


# --- arXiv id ---------------------------------------------------------------------------

# The stamp arXiv prints down the left margin of page 1.
_ARXIV_STAMP = re.compile(
    r"arXiv:\s*(\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(v\d+)?\s*\[[A-Za-z.\-]+\]"
)


def find_arxiv_id(pages: list[Page], metadata: dict[str, str]) -> str | None:
    for key in ("arXiv", "arxiv", "arXivID"):
        found = normalize_arxiv_id(metadata.get(key))
        if found:
            return found
    for page in pages[:1]:
        m = _ARXIV_STAMP.search(page.text)
        if m:
            return normalize_arxiv_id(m.group(1))
    return None


# --- venue and year ---------------------------------------------------------------------

_YEAR = r"(19[5-9]\d|20\d\d)"
# "Proceedings of the 58th Annual Meeting of the ACL, pages 2270–2282"
_PROCEEDINGS = re.compile(r"^((?:Proceedings|Findings) of [^\n]{5,200}?),?\s+pages?\s+\d+", re.M)
# "Clinical Science (2014) 126, 305–313"
_JOURNAL_PAREN = re.compile(r"^([A-Z][A-Za-z&.,:' -]{3,80}?)\s+\(" + _YEAR + r"\)\s+\d+", re.M)
# "Datta et al. Journal of Trauma Management & Outcomes 2010, 4:1"
_ET_AL_HEADER = re.compile(
    r"\bet al\.?[:,]?\s+([A-Z][A-Za-z&.,:' -]{3,100}?)\s+" + _YEAR + r",\s*\d+:\w+"
)
# "Rehabilitation Research and Practice\nVolume 2010, Article ID 157939"
_VOLUME_LINE = re.compile(
    r"^([A-Z][^\n]{3,100})\n\s*Volume\s+(\d+),\s*(?:Issue\s+\d+,\s*)?Article ID", re.M
)
# "Webb et al. (2017), PeerJ Comput. Sci., DOI 10.7717/peerj-cs.118"
_ET_AL_PAREN = re.compile(
    r"\bet al\.?\s+\(" + _YEAR + r"\),\s+([A-Z][A-Za-z&.' -]{3,80}?)[,.]?\s+(?:DOI|doi|\d)"
)
_PUBLISHED = re.compile(r"\bPublished(?: online)?:?\s+(?:\d{1,2}\s+)?[A-Z][a-z]+\.?\s+" + _YEAR)
_ACCEPTED = re.compile(r"\bAccepted:?\s+(?:\d{1,2}\s+)?[A-Z][a-z]+\.?\s+(?:\d{1,2},\s+)?" + _YEAR)
_COPYRIGHT = re.compile(r"(?:©|\(c\)|copyright)\s*" + _YEAR, re.I)
_ANY_YEAR = re.compile(r"\b" + _YEAR + r"\b")


def _creation_year(metadata: dict[str, str]) -> int | None:
    for key in ("CreationDate", "ModDate"):
        m = re.match(r"D:(\d{4})", metadata.get(key, ""))
        if m:
            return int(m.group(1))
    return None


def find_venue_and_year(
    pages: list[Page], metadata: dict[str, str], arxiv_id: str | None
) -> tuple[str | None, int | None]:
    """The venue as printed and the publication year (see the module docstring)."""
    head = pages[0].text[:3000] if pages else ""
    # Running headers repeat on later pages: page 2's top helps when page 1 has none.
    around = "\n".join(p.text[:600] + "\n" + p.text[-600:] for p in pages[:3])
    latest = (_creation_year(metadata) or date.today().year) + 1
    venue: str | None = None
    year: int | None = None

    m = _PROCEEDINGS.search(head)
    if m:
        venue = _tidy_venue(m.group(1))
        years = _ANY_YEAR.findall(head[m.start() : m.end() + 120])
        year = int(years[0]) if years else None
    for pattern, venue_group, year_group, text in (
        (_JOURNAL_PAREN, 1, 2, head),
        (_ET_AL_HEADER, 1, 2, around),
        (_VOLUME_LINE, 1, 2, head),
        (_ET_AL_PAREN, 2, 1, around),
    ):
        if venue is not None:
            break
        m = pattern.search(text)
        if m:
            venue = _tidy_venue(m.group(venue_group))
            year = int(m.group(year_group))
    if venue is None:
        subject = metadata.get("Subject", "")
        m = re.match(r"^([A-Z][A-Za-z&.,' -]{3,100}?)(?:\s+" + _YEAR + r"\b|$)", subject)
        if m and not re.search(r"\d", m.group(1)) and "," not in m.group(1):
            venue = _tidy_venue(m.group(1))
    if year is None or not 1950 <= year <= latest:
        year = _fallback_year(head, around, arxiv_id, latest, metadata)
    return venue, year


def _fallback_year(
    head: str, around: str, arxiv_id: str | None, latest: int, metadata: dict[str, str]
) -> int | None:
    candidates: list[int] = []
    m = _PUBLISHED.search(head) or _PUBLISHED.search(around)
    if m:
        candidates.append(int(m.group(1)))
    if arxiv_id and re.match(r"\d{4}\.", arxiv_id):
        candidates.append(2000 + int(arxiv_id[:2]))
    for pattern in (_ACCEPTED, _COPYRIGHT):
        m = pattern.search(head)
        if m:
            candidates.append(int(m.group(1)))
    created = _creation_year(metadata)
    if created:
        candidates.append(created)
    return next((y for y in candidates if 1950 <= y <= latest), None)


def _tidy_venue(value: str) -> str | None:
    venue = re.sub(r"\s+", " ", value).strip(" ,;:-")
    venue = re.sub(r",?\s*(?:Vol\.?|Volume)\s*\d+.*$", "", venue)
    return venue if len(re.findall(r"[A-Za-z]{2,}", venue)) >= 1 and len(venue) >= 4 else None


# --- authors ----------------------------------------------------------------------------


def _surname(name: str) -> str:
    parts = [p for p in re.split(r"\s+", name.strip()) if p]
    return parts[-1].lower().strip(".,") if parts else ""


def _same_surname(a: str, b: str) -> bool:
    """Same surname, a typo aside ("Wilhelm" printed, "Willhelm" in the metadata)."""
    x, y = _surname(a), _surname(b)
    return x == y or SequenceMatcher(None, x, y).ratio() >= 0.85


def reconcile_authors(metadata_authors: list[str], page_authors: list[str]) -> list[str]:
    """The names as printed on page 1 when they are the metadata's people; else the
    metadata's (or whichever list exists)."""
    if not page_authors:
        return metadata_authors
    if not metadata_authors:
        return page_authors
    if len(page_authors) == len(metadata_authors) and all(
        _same_surname(a, b) for a, b in zip(page_authors, metadata_authors, strict=True)
    ):
        return page_authors
    # Some publishers put only the first author in the metadata.
    if len(metadata_authors) == 1 and _surname(metadata_authors[0]) == _surname(page_authors[0]):
        return page_authors
    return metadata_authors


# --- abstract ---------------------------------------------------------------------------

# Where the front matter that follows an abstract begins (two-column layouts put the
# keywords, correspondence address, affiliations and licence right after it).
_ABSTRACT_END = re.compile(
    r"\s(?:Key\s?words?|Index Terms)\s*[:.—–-]\s|\s(?:Keywords|Subjects)\s+(?=[A-Z])"
    r"|\s\*\s*Correspondence\b|\sCorrespondence(?: should be addressed)?\s*(?:to)?\s*:"
    r"|\sFull list of author information"
    r"|\s(?:©|\(c\))\s*(?:19|20)\d\d\b|\sCopyright\s+(?:©\s*)?(?:19|20)\d\d\b"
    r"|\sThis is an open access article|\sThis is an Open Access article"
    r"|\sReceived:?\s+\d{1,2}\s+[A-Z][a-z]+\s+(?:19|20)\d\d"
)


def clean_abstract(text: str | None) -> str | None:
    """The abstract without the keywords, addresses and licence text printed after it."""
    if not text:
        return None
    m = _ABSTRACT_END.search(text)
    if m and m.start() >= 80:
        text = text[: m.start()]
    text = re.sub(r"\s+", " ", text).strip()
    return text or None


_STRUCTURED_START = re.compile(
    r"^(?:Objectives?|Background|Purpose|Aims?|Context|Introduction)[.:]\s", re.M
)
_BODY_START = re.compile(r"^\s*(?:1\.?|I\.)\s+(?:Introduction|Background)\b", re.M)


def structured_abstract(pages: list[Page]) -> str | None:
    """A page-1 abstract that has no heading: "Objectives. ... Conclusions. ..."."""
    if not pages:
        return None
    text = pages[0].text
    m = _STRUCTURED_START.search(text)
    if not m:
        return None
    end = _BODY_START.search(text, m.start())
    body = text[m.start() : end.start() if end else len(text)]
    body = re.sub(r"(?<=[a-z])-\n(?=[a-z])", "", body)
    cleaned = clean_abstract(body)
    return cleaned if cleaned and len(cleaned) >= 200 else None


# --- all together -----------------------------------------------------------------------


def enrich(doc: ParsedDocument, page_authors: list[str] | None = None) -> ParsedDocument:
    """Fill ``doc``'s DOI, arXiv id, venue and year, reconcile its authors with those
    printed on page 1, and clean its abstract (in place; also returned)."""
    meta = doc.metadata
    doc.doi = doc.doi or find_doi(doc.pages, meta, doc.references)
    doc.arxiv_id = doc.arxiv_id or find_arxiv_id(doc.pages, meta)
    venue, year = find_venue_and_year(doc.pages, meta, doc.arxiv_id)
    doc.venue = doc.venue or venue
    doc.year = doc.year or year
    if page_authors is not None:
        doc.authors = reconcile_authors(doc.authors, page_authors)
    doc.abstract = clean_abstract(doc.abstract) or (
        structured_abstract(doc.pages) if doc.kind == "pdf" else None
    )
    return doc
