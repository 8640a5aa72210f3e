"""Citation chasing (issue 36): the works a source cites and the works citing it, each
resolved to a known work (a workspace source, a catalog record, an OpenAlex work) and
marked in the workspace or not; and the works a workspace's sources point at most
(co-citation / bibliographic coupling), ranked for suggestion. Pure functions: the use
case (``usecases/citations.py``) reads the rows and the catalog and calls these.

A reference is listed only when it resolves to a known work: by DOI, arXiv id or OpenAlex
id, or by the same title rule the workspace's ``cites`` edges use
(:mod:`marginalia.knowledge.citations`). An unresolved entry is counted, never guessed.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field

from marginalia.knowledge.citations import (
    CitableSource,
    Reference,
    TitleIndex,
    match_references,
    references_from_metadata,
)
from marginalia.sources.candidate import Candidate

Origin = Literal["pdf-references", "catalog", "openalex", "workspace"]

_CATALOG_NS = uuid.UUID("5b1c1b58-5c49-4d35-9d8a-36b0d9c3e1a7")


class CitedWork(BaseModel):
    """One work in a references / cited-by / suggestions list."""

    title: str
    year: int | None = None
    authors: list[str] = Field(default_factory=list)
    venue: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    openalex_id: str | None = None
    catalog_id: str | None = Field(default=None, description="the record's id in the catalog")
    in_workspace: bool
    source_id: uuid.UUID | None = Field(
        default=None, description="the workspace source it is, when in_workspace"
    )
    origin: Origin = Field(
        description="where the link was found: the PDF's printed reference list, the "
        "catalog's reference data (unarXive bib_entries), OpenAlex, or the workspace's "
        "stored citations"
    )
    origins: list[Origin] = Field(default_factory=list, description="every place it was found")
    match: str | None = Field(
        default=None, description="how the entry was resolved: doi, arxiv, openalex or title"
    )
    reference_text: str | None = Field(default=None, description="the entry as printed")


class CitationList(BaseModel):
    source_id: uuid.UUID
    direction: Literal["references", "cited-by"]
    works: list[CitedWork]
    unresolved: int = Field(
        default=0, description="entries of the reference list matching no known work"
    )
    notes: list[str] = Field(default_factory=list, description="what could not be consulted")


class Suggestion(CitedWork):
    score: float
    cited_by_sources: list[uuid.UUID] = Field(
        default_factory=list, description="workspace sources that cite it"
    )
    cites_sources: list[uuid.UUID] = Field(
        default_factory=list, description="workspace sources it cites"
    )
    why: str


# --- known works ----------------------------------------------------------------------------


def work_key(doi: str | None, arxiv_id: str | None, openalex_id: str | None, title: str) -> str:
    """One key per work across origins: an identifier when there is one, else the title."""
    if doi:
        return f"doi:{doi.lower()}"
    if arxiv_id:
        return f"arxiv:{arxiv_id}"
    if openalex_id:
        return f"openalex:{openalex_id}"
    return "title:" + "".join(ch for ch in title.lower() if ch.isalnum())


@dataclass
class CatalogIndex:
    """The catalog's records, findable by identifier or by title as a reference names
    them, and the references each record lists (unarXive ``bib_entries``)."""

    records: list[Candidate]
    _by_uuid: dict[uuid.UUID, Candidate] = field(default_factory=dict)
    _titles: TitleIndex | None = None
    _references: dict[uuid.UUID, list[Reference]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        citable: list[CitableSource] = []
        for i, c in enumerate(self.records):
            rid = uuid.uuid5(_CATALOG_NS, f"{i}:{c.source_id or c.title}")
            self._by_uuid[rid] = c
            citable.append(
                CitableSource(
                    id=rid,
                    title=c.title,
                    year=c.year,
                    doi=c.doi,
                    arxiv_id=c.arxiv_id,
                    openalex_id=c.openalex_id,
                )
            )
            if c.references:
                self._references[rid] = references_from_metadata(
                    [r.model_dump() for r in c.references]
                )
        self._titles = TitleIndex(citable)
        self._citable = {s.id: s for s in citable}
        self._exact: dict[str, Candidate] = {}
        for c in self.records:
            for key in _keys_of(c.doi, c.arxiv_id, None, c.title):
                self._exact.setdefault(key, c)

    def same_work(
        self, *, title: str | None, year: int | None, doi: str | None, arxiv_id: str | None
    ) -> Candidate | None:
        """The catalog record of this work: same DOI, same arXiv id, or the same title
        (letters and digits, at least 20) with a year at most one apart when both have one."""
        for key in _keys_of(doi, arxiv_id, None, ""):
            if key in self._exact:
                return self._exact[key]
        for key in _keys_of(None, None, None, title or ""):
            c = self._exact.get(key)
            if c is not None and (year is None or c.year is None or abs(c.year - year) <= 1):
                return c
        return None

    def resolve(self, references: Sequence[Reference]) -> dict[int, tuple[Candidate, str]]:
        """``{reference position: (catalog record, how)}`` for the entries naming one."""
        assert self._titles is not None
        return {
            m.reference.position: (self._by_uuid[m.cited], m.how)
            for m in match_references(uuid.UUID(int=0), references, self._titles)
        }

    def by_catalog_id(self, catalog_id: str) -> Candidate | None:
        return next((c for c in self.records if c.source_id == catalog_id), None)

    def citing(self, target: CitableSource) -> list[tuple[Candidate, str]]:
        """Catalog records whose reference lists name ``target`` (never ``target`` itself,
        by identifier or title)."""
        single = TitleIndex([target])
        out: list[tuple[Candidate, str]] = []
        for rid, refs in self._references.items():
            record = self._by_uuid[rid]
            if _same_work(record, target):
                continue
            found = match_references(rid, refs, single)
            if found:
                out.append((record, found[0].how))
        return out

    def references_of(self, target: CitableSource) -> list[Reference]:
        """The reference list the catalog holds for ``target`` (the same record by id or
        title), empty when it holds none."""
        for rid, refs in self._references.items():
            if _same_work(self._by_uuid[rid], target):
                return refs
        return []


def _same_work(record: Candidate, s: CitableSource) -> bool:
    if record.doi and s.doi and record.doi == s.doi.lower():
        return True
    if record.arxiv_id and s.arxiv_id and record.arxiv_id == s.arxiv_id:
        return True
    norm = "".join(ch for ch in record.title.lower() if ch.isalnum())
    return bool(s.title) and norm == "".join(ch for ch in (s.title or "").lower() if ch.isalnum())


def work_from_candidate(
    c: Candidate, origin: Origin, *, match: str | None = None, text: str | None = None
) -> CitedWork:
    return CitedWork(
        title=c.title,
        year=c.year,
        authors=list(c.authors)[:20],
        venue=c.venue,
        doi=c.doi,
        arxiv_id=c.arxiv_id,
        openalex_id=c.openalex_id,
        catalog_id=c.source_id if c.origin == "catalog" else None,
        in_workspace=False,
        origin=origin,
        origins=[origin],
        match=match,
        reference_text=text,
    )


@dataclass(frozen=True)
class WorkspaceSource:
    """What a list needs of a workspace source."""

    id: uuid.UUID
    title: str
    year: int | None
    doi: str | None
    arxiv_id: str | None
    openalex_id: str | None
    authors: tuple[str, ...] = ()
    venue: str | None = None

    @property
    def citable(self) -> CitableSource:
        return CitableSource(
            id=self.id,
            title=self.title,
            year=self.year,
            doi=self.doi,
            arxiv_id=self.arxiv_id,
            openalex_id=self.openalex_id,
        )


def work_from_source(s: WorkspaceSource, origin: Origin, *, match: str | None = None) -> CitedWork:
    return CitedWork(
        title=s.title,
        year=s.year,
        authors=list(s.authors)[:20],
        venue=s.venue,
        doi=s.doi,
        arxiv_id=s.arxiv_id,
        openalex_id=s.openalex_id,
        in_workspace=True,
        source_id=s.id,
        origin=origin,
        origins=[origin],
        match=match,
    )


class WorkList:
    """Works collected from several origins, one entry per work (by identifier or title),
    each marked in the workspace when a workspace source is the same work."""

    def __init__(self, workspace: Iterable[WorkspaceSource]) -> None:
        self._sources = list(workspace)
        self._titles = TitleIndex([s.citable for s in self._sources])
        self._by_id = {s.id: s for s in self._sources}
        self._keys: dict[str, WorkspaceSource] = {}
        for s in self._sources:
            for key in _keys_of(s.doi, s.arxiv_id, s.openalex_id, s.title):
                self._keys[key] = s
        self.works: dict[str, CitedWork] = {}

    @property
    def title_index(self) -> TitleIndex:
        return self._titles

    def source(self, source_id: uuid.UUID) -> WorkspaceSource:
        return self._by_id[source_id]

    def in_workspace(self, work: CitedWork) -> WorkspaceSource | None:
        for key in _keys_of(work.doi, work.arxiv_id, work.openalex_id, work.title):
            if key in self._keys:
                return self._keys[key]
        return None

    def add(self, work: CitedWork, *, exclude: uuid.UUID | None = None) -> CitedWork | None:
        """Add (or merge into the entry already there); None when it is ``exclude``."""
        here = (
            self.in_workspace(work) if work.source_id is None else self._by_id.get(work.source_id)
        )
        if here is not None:
            if here.id == exclude:
                return None
            work = work.model_copy(update={"in_workspace": True, "source_id": here.id})
        key = f"source:{here.id}" if here is not None else _primary_key(work)
        old = self.works.get(key)
        if old is None:
            self.works[key] = work
            return work
        merged = old.model_copy(
            update={
                "origins": [*old.origins, *(o for o in work.origins if o not in old.origins)],
                "doi": old.doi or work.doi,
                "arxiv_id": old.arxiv_id or work.arxiv_id,
                "openalex_id": old.openalex_id or work.openalex_id,
                "catalog_id": old.catalog_id or work.catalog_id,
                "year": old.year or work.year,
                "venue": old.venue or work.venue,
                "reference_text": old.reference_text or work.reference_text,
            }
        )
        self.works[key] = merged
        return merged


def _keys_of(
    doi: str | None, arxiv_id: str | None, openalex_id: str | None, title: str
) -> list[str]:
    keys = []
    if doi:
        keys.append(f"doi:{doi.lower()}")
    if arxiv_id:
        keys.append(f"arxiv:{arxiv_id}")
    if openalex_id:
        keys.append(f"openalex:{openalex_id}")
    norm = "".join(ch for ch in title.lower() if ch.isalnum())
    if len(norm) >= 20:
        keys.append(f"title:{norm}")
    return keys


def _primary_key(work: CitedWork) -> str:
    return work_key(work.doi, work.arxiv_id, work.openalex_id, work.title)


def resolve_into(
    out: WorkList,
    refs: list[Reference],
    origin_of: Callable[[Reference], Origin],
    catalog: CatalogIndex | None,
    me: uuid.UUID,
) -> int:
    """Add each reference that resolves to a workspace source or a catalog record;
    returns how many resolved to neither."""
    in_ws = {m.reference.position: m for m in match_references(me, refs, out.title_index)}
    in_catalog = catalog.resolve(refs) if catalog is not None else {}
    unresolved = 0
    for ref in refs:
        origin = origin_of(ref)
        if ref.position in in_ws:
            m = in_ws[ref.position]
            work = work_from_source(out.source(m.cited), origin, match=m.how)
            same = in_catalog.get(ref.position)
            update: dict[str, str | None] = {"reference_text": ref.text}
            if same is not None and same[0].origin == "catalog":
                update["catalog_id"] = same[0].source_id
            out.add(work.model_copy(update=update), exclude=me)
        elif ref.position in in_catalog:
            record, how = in_catalog[ref.position]
            out.add(work_from_candidate(record, origin, match=how, text=ref.text), exclude=me)
        else:
            unresolved += 1
    return unresolved


def fill_from_catalog(candidate: Candidate, catalog: CatalogIndex) -> Candidate:
    """``candidate`` with its missing DOI, venue, pages and year filled from the catalog
    record of the same work, each filled field's origin recorded as ``catalog``."""
    record = catalog.same_work(
        title=candidate.title, year=candidate.year, doi=candidate.doi, arxiv_id=candidate.arxiv_id
    )
    if record is None:
        return candidate
    update: dict[str, object] = {}
    origins = dict(candidate.metadata_origins)
    for name in ("doi", "venue", "pages", "year"):
        if getattr(candidate, name) in (None, "") and getattr(record, name) not in (None, ""):
            update[name] = getattr(record, name)
            origins[name] = "catalog"
    if not update:
        return candidate
    return candidate.model_copy(update={**update, "metadata_origins": origins})


# --- suggestions: co-citation and bibliographic coupling -------------------------------------


@dataclass
class _Tally:
    work: CitedWork
    cited_by: set[uuid.UUID] = field(default_factory=set)
    cites: set[uuid.UUID] = field(default_factory=set)


def rank_suggestions(
    references: dict[uuid.UUID, list[CitedWork]],
    citing: dict[uuid.UUID, list[CitedWork]],
    titles: dict[uuid.UUID, str],
    *,
    limit: int = 50,
) -> list[Suggestion]:
    """Works not in the workspace, ranked by how many workspace sources cite them
    (co-citation: works cited together by the workspace's papers) plus how many
    workspace sources they cite (bibliographic coupling: works sharing references
    with the workspace). ``references``/``citing``: per source, its resolved references
    and the works citing it. Ties: more citing sources first, then title."""
    tally: dict[str, _Tally] = {}
    for source_id, works in references.items():
        for w in works:
            if w.in_workspace:
                continue
            t = tally.setdefault(_primary_key(w), _Tally(w))
            t.cited_by.add(source_id)
    for source_id, works in citing.items():
        for w in works:
            if w.in_workspace:
                continue
            t = tally.setdefault(_primary_key(w), _Tally(w))
            t.cites.add(source_id)
    out: list[Suggestion] = []
    for t in tally.values():
        score = float(len(t.cited_by) + len(t.cites))
        out.append(
            Suggestion(
                **t.work.model_dump(),
                score=score,
                cited_by_sources=sorted(t.cited_by, key=str),
                cites_sources=sorted(t.cites, key=str),
                why=_why(t, titles),
            )
        )
    out.sort(key=lambda s: (-s.score, -len(s.cited_by_sources), s.title.lower()))
    return out[:limit]


def _why(t: _Tally, titles: dict[uuid.UUID, str]) -> str:
    def names(ids: set[uuid.UUID]) -> str:
        shown = sorted((titles.get(i) or str(i) for i in ids), key=str.lower)
        text = "; ".join(f"“{n}”" for n in shown[:3])
        return text + (f" and {len(shown) - 3} more" if len(shown) > 3 else "")

    parts = []
    if t.cited_by:
        n = len(t.cited_by)
        parts.append(f"cited by {n} workspace source{'s' if n != 1 else ''}: {names(t.cited_by)}")
    if t.cites:
        n = len(t.cites)
        parts.append(f"cites {n} workspace source{'s' if n != 1 else ''}: {names(t.cites)}")
    return "; ".join(parts)
