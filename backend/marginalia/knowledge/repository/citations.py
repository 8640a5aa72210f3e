"""Reference lists and paper -> paper ``cites`` edges (``source_references``)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import delete, func, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col

from marginalia.db.models import Source, SourcePage, SourceReference
from marginalia.ingest.documents import Page
from marginalia.knowledge.citations import CitableSource, Match, Reference


async def source_pages(session: AsyncSession, source_id: uuid.UUID) -> list[Page]:
    result = await session.execute(
        select(col(SourcePage.page_number), col(SourcePage.text))
        .where(col(SourcePage.source_id) == source_id)
        .order_by(col(SourcePage.page_number))
    )
    return [Page(number=n, text=t) for n, t in result.all()]


async def citable_sources(
    session: AsyncSession, workspace_id: uuid.UUID, ids: Sequence[uuid.UUID] | None = None
) -> list[CitableSource]:
    """The workspace's ready sources (with ``ids``: those of them) with what citation
    matching reads."""
    query = select(
        col(Source.id),
        col(Source.title),
        col(Source.year),
        col(Source.doi),
        col(Source.arxiv_id),
        col(Source.openalex_id),
    ).where(col(Source.workspace_id) == workspace_id, col(Source.status) == "ready")
    if ids is not None:
        query = query.where(col(Source.id).in_(list(ids)))
    result = await session.execute(query)
    return [
        CitableSource(id=r[0], title=r[1], year=r[2], doi=r[3], arxiv_id=r[4], openalex_id=r[5])
        for r in result.all()
    ]


async def replace_references(
    session: AsyncSession,
    workspace_id: uuid.UUID,
    source_id: uuid.UUID,
    references: Sequence[Reference],
    matches: Sequence[Match],
) -> None:
    """Store ``source_id``'s reference list (replacing the one stored), with its matches."""
    await session.execute(
        delete(SourceReference).where(col(SourceReference.source_id) == source_id)
    )
    if not references:
        return
    by_position = {m.reference.position: m for m in matches}
    rows = []
    for ref in references:
        m = by_position.get(ref.position)
        rows.append(
            {
                "workspace_id": workspace_id,
                "source_id": source_id,
                "position": ref.position,
                "text": ref.text,
                "norm": ref.norm,
                "doi": ref.doi,
                "arxiv_id": ref.arxiv_id,
                "openalex_id": ref.openalex_id,
                "year": ref.year,
                "cited_source_id": m.cited if m else None,
                "match": m.how if m else None,
                "match_score": m.score if m else None,
            }
        )
    await session.execute(insert(SourceReference), rows)


@dataclass(frozen=True)
class StoredReference:
    id: int
    source_id: uuid.UUID
    cited_source_id: uuid.UUID | None
    match: str | None
    match_score: float | None
    reference: Reference


async def references_that_may_cite(
    session: AsyncSession, workspace_id: uuid.UUID, source: CitableSource, tsquery: str | None
) -> list[StoredReference]:
    """Other sources' references that name ``source``'s DOI, arXiv id or OpenAlex id, or
    contain the words of ``tsquery`` — read through the indexes, not by a scan."""
    conditions = []
    if source.doi:
        conditions.append(col(SourceReference.doi) == source.doi.lower())
    if source.arxiv_id:
        conditions.append(col(SourceReference.arxiv_id) == source.arxiv_id)
    if source.openalex_id:
        conditions.append(col(SourceReference.openalex_id) == source.openalex_id)
    if tsquery:
        conditions.append(col(SourceReference.terms).op("@@")(func.to_tsquery("simple", tsquery)))
    if not conditions:
        return []
    result = await session.execute(
        select(SourceReference).where(
            col(SourceReference.workspace_id) == workspace_id,
            col(SourceReference.source_id) != source.id,
            or_(*conditions),
        )
    )
    return [_stored(r) for r in result.scalars().all()]


def _stored(r: SourceReference) -> StoredReference:
    return StoredReference(
        id=int(r.id or 0),
        source_id=r.source_id,
        cited_source_id=r.cited_source_id,
        match=r.match,
        match_score=r.match_score,
        reference=Reference(
            position=r.position,
            text=r.text,
            norm=r.norm,
            doi=r.doi,
            arxiv_id=r.arxiv_id,
            openalex_id=r.openalex_id,
            year=r.year,
        ),
    )


async def set_cited(
    session: AsyncSession, rows: Sequence[tuple[int, uuid.UUID | None, str | None, float | None]]
) -> None:
    """``(reference id, cited source, how, score)`` for each reference given."""
    for ref_id, cited, how, score in rows:
        await session.execute(
            update(SourceReference)
            .where(col(SourceReference.id) == ref_id)
            .values(cited_source_id=cited, match=how, match_score=score)
        )


async def clear_citations_of_workspace(session: AsyncSession, workspace_id: uuid.UUID) -> None:
    await session.execute(
        update(SourceReference)
        .where(col(SourceReference.workspace_id) == workspace_id)
        .values(cited_source_id=None, match=None, match_score=None)
    )


async def references_of_workspace(
    session: AsyncSession, workspace_id: uuid.UUID
) -> list[StoredReference]:
    result = await session.execute(
        select(SourceReference).where(col(SourceReference.workspace_id) == workspace_id)
    )
    return [_stored(r) for r in result.scalars().all()]


@dataclass(frozen=True)
class CitationEdge:
    citing: uuid.UUID
    cited: uuid.UUID
    how: str
    score: float
    reference: str


async def citation_edges(
    session: AsyncSession, workspace_id: uuid.UUID, *, source_id: uuid.UUID | None = None
) -> list[CitationEdge]:
    """One edge per (citing, cited) pair of the workspace (the best-matched reference),
    optionally only those touching ``source_id``."""
    query = (
        select(
            col(SourceReference.source_id),
            col(SourceReference.cited_source_id),
            col(SourceReference.match),
            col(SourceReference.match_score),
            col(SourceReference.text),
        )
        .where(
            col(SourceReference.workspace_id) == workspace_id,
            col(SourceReference.cited_source_id).is_not(None),
        )
        .order_by(
            col(SourceReference.source_id),
            col(SourceReference.cited_source_id),
            col(SourceReference.match_score).desc(),
            col(SourceReference.position),
        )
    )
    if source_id is not None:
        query = query.where(
            or_(
                col(SourceReference.source_id) == source_id,
                col(SourceReference.cited_source_id) == source_id,
            )
        )
    edges: dict[tuple[uuid.UUID, uuid.UUID], CitationEdge] = {}
    for citing, cited, how, score, text in (await session.execute(query)).all():
        if cited is None:
            continue
        edge = CitationEdge(citing, cited, how or "title", float(score or 0.0), text)
        edges.setdefault((citing, cited), edge)
    return list(edges.values())


async def citation_counts(
    session: AsyncSession, workspace_id: uuid.UUID
) -> dict[uuid.UUID, tuple[int, int]]:
    """``{source: (cited by N sources here, cites N sources here)}`` for sources with any."""
    out: dict[uuid.UUID, tuple[int, int]] = {}
    for e in await citation_edges(session, workspace_id):
        by, cites = out.get(e.cited, (0, 0))
        out[e.cited] = (by + 1, cites)
        by, cites = out.get(e.citing, (0, 0))
        out[e.citing] = (by, cites + 1)
    return out


@dataclass(frozen=True)
class SourceWork:
    """What citation chasing lists of a workspace source."""

    id: uuid.UUID
    kind: str
    title: str | None
    year: int | None
    doi: str | None
    arxiv_id: str | None
    openalex_id: str | None
    authors: list[str]
    venue: str | None
    metadata_references: list[dict[str, object]]


async def source_works(
    session: AsyncSession, workspace_id: uuid.UUID, ids: Sequence[uuid.UUID] | None = None
) -> list[SourceWork]:
    """The workspace's ready sources (with ``ids``: those of them) as works."""
    query = select(
        col(Source.id),
        col(Source.kind),
        col(Source.title),
        col(Source.year),
        col(Source.doi),
        col(Source.arxiv_id),
        col(Source.openalex_id),
        col(Source.authors),
        col(Source.venue),
        col(Source.metadata_references),
    ).where(col(Source.workspace_id) == workspace_id, col(Source.status) == "ready")
    if ids is not None:
        query = query.where(col(Source.id).in_(list(ids)))
    result = await session.execute(query.order_by(col(Source.created_at), col(Source.id)))
    return [
        SourceWork(
            id=r[0],
            kind=r[1],
            title=r[2],
            year=r[3],
            doi=r[4],
            arxiv_id=r[5],
            openalex_id=r[6],
            authors=list(r[7] or []),
            venue=r[8],
            metadata_references=list(r[9] or []),
        )
        for r in result.all()
    ]
