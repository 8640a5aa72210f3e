"""One normalised record for a paper, post or file found by any source.

Every source client maps its own response format into :class:`Candidate`; the dedup
stage (DESIGN §1, layer 1) compares :meth:`Candidate.identity_keys` — normalised URL,
DOI and arXiv id — before the more expensive title and embedding layers.
"""

from __future__ import annotations

import re
from typing import Literal
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from pydantic import BaseModel, Field, field_validator, model_validator

from marginalia import limits

Origin = Literal["arxiv", "openalex", "brave", "catalog", "bibtex", "ris", "csl-json", "upload"]

# --- DOI --------------------------------------------------------------------------------

_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
_DOI_SHAPE = re.compile(r"^10\.\d{4,9}/\S+$")


def normalize_doi(value: str | None) -> str | None:
    """``https://doi.org/10.1000/ABC`` → ``10.1000/abc``; None when it is not a DOI."""
    if not value:
        return None
    doi = unquote(value.strip())
    doi = _DOI_PREFIX.sub("", doi).strip().lower()
    return doi if _DOI_SHAPE.match(doi) else None


# --- arXiv ids --------------------------------------------------------------------------

# New style (2007+): 0704.0001 … 2104.12255, optional version. Old style: archive(.XX)/YYMMNNN.
_ARXIV_NEW = re.compile(r"(?<![\d.])(\d{4}\.\d{4,5})(?:v\d+)?(?![\d])")
_ARXIV_OLD = re.compile(r"(?<![A-Za-z-])([a-z][a-z-]*(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?(?!\d)")
_ARXIV_HOSTS = {"arxiv.org", "export.arxiv.org", "www.arxiv.org"}
_ARXIV_DOI_PREFIX = "10.48550/arxiv."


def normalize_arxiv_id(value: str | None) -> str | None:
    """``arXiv:2104.12255v1`` / ``https://arxiv.org/pdf/2104.12255v2.pdf`` → ``2104.12255``.

    Old-style ids keep their archive: ``astro-ph/0601001v1`` → ``astro-ph/0601001``.
    Returns None when no arXiv id is recognised.
    """
    if not value:
        return None
    text = unquote(value.strip())
    lowered = text.lower()
    if lowered.startswith(_ARXIV_DOI_PREFIX) or "doi.org/" + _ARXIV_DOI_PREFIX in lowered:
        text = text[lowered.index(_ARXIV_DOI_PREFIX) + len(_ARXIV_DOI_PREFIX) :]
    text = re.sub(r"^arxiv:\s*", "", text, flags=re.IGNORECASE)
    match = _ARXIV_NEW.search(text)
    if match:
        return match.group(1)
    match = _ARXIV_OLD.search(text)
    if match:
        return match.group(1)
    return None


def arxiv_id_from_url(url: str | None) -> str | None:
    """The arXiv id of an arxiv.org ``/abs/`` or ``/pdf/`` URL, else None."""
    if not url:
        return None
    parts = urlsplit(url.strip())
    if parts.hostname not in _ARXIV_HOSTS:
        return None
    path = parts.path
    for prefix in ("/abs/", "/pdf/"):
        if path.startswith(prefix):
            ident = path[len(prefix) :]
            ident = ident.removesuffix(".pdf")
            return normalize_arxiv_id(ident)
    return None


# --- OpenAlex ids -----------------------------------------------------------------------

_OPENALEX_ID = re.compile(r"(?:https?://(?:api\.)?openalex\.org/(?:works/)?)?(W\d+)$", re.I)


def normalize_openalex_id(value: str | None) -> str | None:
    """``https://openalex.org/W2741809807`` → ``W2741809807``; None when not a work id."""
    if not value:
        return None
    match = _OPENALEX_ID.match(value.strip())
    return match.group(1).upper() if match else None


# --- URLs -------------------------------------------------------------------------------

# Query parameters that only track where a click came from; they never change the page.
_TRACKING_PARAMS = frozenset(
    {
        "fbclid",
        "gclid",
        "dclid",
        "msclkid",
        "yclid",
        "igshid",
        "mc_cid",
        "mc_eid",
        "_ga",
        "_gl",
        "ref_src",
        "ref_url",
        "spm",
        "si",
    }
)
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _is_tracking(name: str) -> bool:
    lowered = name.lower()
    return lowered.startswith("utm_") or lowered in _TRACKING_PARAMS


def normalized_url(url: str) -> str:
    """A comparison key for a URL (not meant to be fetched).

    Lower-cases scheme and host, treats ``http`` as ``https``, strips ``www.``, default
    ports, fragments, tracking parameters (``utm_*``, ``fbclid``, …) and a trailing
    slash, and sorts the remaining query parameters. arXiv ``/abs/``, ``/pdf/`` (with or
    without version or ``.pdf``) map to ``https://arxiv.org/abs/<id>``; doi.org links map
    to ``https://doi.org/<normalised doi>``. Strings without a scheme (local file paths)
    come back stripped and otherwise unchanged.
    """
    raw = url.strip()
    parts = urlsplit(raw)
    if not parts.scheme or not parts.netloc:
        return raw
    arxiv_id = arxiv_id_from_url(raw)
    if arxiv_id:
        return f"https://arxiv.org/abs/{arxiv_id}"
    scheme = parts.scheme.lower()
    if scheme == "http":
        scheme = "https"
    host = (parts.hostname or "").lower()
    host = host.removeprefix("www.")
    if host in {"doi.org", "dx.doi.org"}:
        doi = normalize_doi(parts.path.lstrip("/"))
        if doi:
            return f"https://doi.org/{doi}"
    port = parts.port
    netloc = host
    if port is not None and port != _DEFAULT_PORTS.get(parts.scheme.lower()):
        netloc = f"{host}:{port}"
    path = parts.path.rstrip("/")
    query_items = [
        (k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _is_tracking(k)
    ]
    query = urlencode(sorted(query_items))
    return urlunsplit((scheme, netloc, path, query, ""))


# --- the record -------------------------------------------------------------------------


class MetadataConcept(BaseModel):
    """A concept or topic a source's record names (OpenAlex ``concepts`` / ``topics``),
    with its level on the record's own scale (OpenAlex concepts: 0 = a field such as
    "Computer science" … 5 = most specific)."""

    name: str
    level: int = 1
    score: float | None = None
    kind: Literal["concept", "topic"] = "concept"


class MetadataReference(BaseModel):
    """One work a source's record says it cites (OpenAlex ``referenced_works``, an
    unarXive ``bib_entries`` entry): its text, when known, and its identifiers."""

    text: str = ""
    doi: str | None = None
    arxiv_id: str | None = None
    openalex_id: str | None = None
    year: int | None = None

    @field_validator("doi", mode="before")
    @classmethod
    def _doi(cls, value: object) -> str | None:
        return normalize_doi(value) if isinstance(value, str) else None

    @field_validator("arxiv_id", mode="before")
    @classmethod
    def _arxiv(cls, value: object) -> str | None:
        return normalize_arxiv_id(value) if isinstance(value, str) else None

    @field_validator("openalex_id", mode="before")
    @classmethod
    def _openalex(cls, value: object) -> str | None:
        return normalize_openalex_id(value) if isinstance(value, str) else None


class Candidate(BaseModel):
    """A paper, post or file as any source found it, before dedup and ingest.

    Identifiers are normalised on construction: ``doi`` lower-case without resolver
    prefix, ``arxiv_id`` without version (derived from an arXiv DOI or arxiv.org URL when
    not given), ``openalex_id`` as ``W…``.
    """

    title: str
    authors: list[str] = Field(default_factory=list)
    year: int | None = None
    abstract: str | None = None
    url: str | None = None
    pdf_url: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    openalex_id: str | None = None
    citation_count: int | None = None
    venue: str | None = None
    pages: str | None = None
    # Per bibliographic field filled from elsewhere than the record itself: where from
    # ({"doi": "catalog"}), kept through export and import (issue 36).
    metadata_origins: dict[str, str] = Field(default_factory=dict)
    origin: Origin
    # The record's id inside its source: catalog id, BibTeX key, file name, ...
    source_id: str | None = None
    # An imported entry's attachment, already in the file store (formats/attachments.py):
    # ingested instead of fetching anything.
    file_key: str | None = None
    file_name: str | None = None
    # What the record says about the work's subject and references (issue 13): OpenAlex
    # concepts/topics, OpenAlex referenced_works or unarXive bib_entries.
    concepts: list[MetadataConcept] = Field(default_factory=list)
    references: list[MetadataReference] = Field(default_factory=list)

    @field_validator("pages", mode="before")
    @classmethod
    def _pages(cls, value: object) -> str | None:
        return normalize_pages(value)

    @field_validator("metadata_origins", mode="before")
    @classmethod
    def _origins(cls, value: object) -> dict[str, str]:
        if isinstance(value, str):
            return parse_origins(value)
        if isinstance(value, dict):
            return parse_origins(origins_text({str(k): str(v) for k, v in value.items()}))
        return {}

    @field_validator("doi", mode="before")
    @classmethod
    def _doi(cls, value: object) -> str | None:
        return normalize_doi(value) if isinstance(value, str) else None

    @field_validator("arxiv_id", mode="before")
    @classmethod
    def _arxiv(cls, value: object) -> str | None:
        return normalize_arxiv_id(value) if isinstance(value, str) else None

    @field_validator("openalex_id", mode="before")
    @classmethod
    def _openalex(cls, value: object) -> str | None:
        return normalize_openalex_id(value) if isinstance(value, str) else None

    @field_validator("title", mode="before")
    @classmethod
    def _title(cls, value: object) -> object:
        return (
            limits.clip(" ".join(value.split()), limits.TITLE) if isinstance(value, str) else value
        )

    # What a search result says is clipped to the field limits (marginalia/limits.py);
    # imports refuse an over-long entry before it becomes a Candidate.
    @field_validator("abstract", mode="after")
    @classmethod
    def _abstract(cls, value: str | None) -> str | None:
        return limits.clip(value, limits.ABSTRACT)

    @field_validator("venue", mode="after")
    @classmethod
    def _venue(cls, value: str | None) -> str | None:
        return limits.clip(value, limits.VENUE)

    @field_validator("url", "pdf_url", mode="after")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        return value if value is None or len(value) <= limits.URL else None  # a cut URL is wrong

    @field_validator("authors", mode="after")
    @classmethod
    def _authors(cls, value: list[str]) -> list[str]:
        return limits.clip_names(value)

    @model_validator(mode="after")
    def _derive_arxiv_id(self) -> Candidate:
        if self.arxiv_id is None:
            from_doi = (
                normalize_arxiv_id(self.doi)
                if self.doi and self.doi.startswith(_ARXIV_DOI_PREFIX)
                else None
            )
            derived = from_doi or arxiv_id_from_url(self.url) or arxiv_id_from_url(self.pdf_url)
            if derived:
                self.arxiv_id = derived
        return self

    def identity_keys(self) -> set[str]:
        """Normalised keys for dedup layer 1: two candidates sharing any key are one work.

        Keys are prefixed by kind: ``url:…``, ``doi:…``, ``arxiv:…``, ``openalex:…``.
        """
        keys: set[str] = set()
        for link in (self.url, self.pdf_url):
            if link and link.strip():
                keys.add("url:" + normalized_url(link))
        if self.doi:
            keys.add("doi:" + self.doi)
        if self.arxiv_id:
            keys.add("arxiv:" + self.arxiv_id)
        if self.openalex_id:
            keys.add("openalex:" + self.openalex_id)
        return keys


# --- page ranges and field origins (issue 36) -----------------------------------------------

_PAGE_RANGE = re.compile(r"^\s*([A-Za-z]?\d+)\s*(?:-{1,2}|\u2013|\u2014)\s*([A-Za-z]?\d+)\s*$")
ORIGIN_FIELDS = ("doi", "pages", "venue", "year", "authors", "abstract", "arxiv_id")
_ORIGIN_VALUE = re.compile(r"^[a-z][a-z0-9-]{0,30}$")


def normalize_pages(value: object) -> str | None:
    """A page range as BibTeX writes it ("4171--4186"; any dash between two numbers), a
    single page or article number as given; None when empty or implausibly long."""
    if not isinstance(value, str):
        return None
    text = " ".join(value.split())
    if not text or len(text) > 60:
        return None
    m = _PAGE_RANGE.match(text)
    return f"{m.group(1)}--{m.group(2)}" if m else text


def origins_text(origins: dict[str, str]) -> str:
    """``{"doi": "catalog"}`` as the one-line form exports carry: ``doi=catalog``."""
    return "; ".join(f"{k}={origins[k]}" for k in ORIGIN_FIELDS if k in origins)


def parse_origins(text: object) -> dict[str, str]:
    """The inverse of :func:`origins_text`; unknown fields and odd values are dropped."""
    out: dict[str, str] = {}
    if not isinstance(text, str):
        return out
    for part in text[:500].split(";"):
        name, _, value = part.partition("=")
        name, value = name.strip().lower(), value.strip().lower()
        if name in ORIGIN_FIELDS and _ORIGIN_VALUE.match(value):
            out[name] = value
    return out
