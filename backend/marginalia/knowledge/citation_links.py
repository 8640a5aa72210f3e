"""The update side of paper -> paper citations: store a source's reference list (the one
printed in its document and the one its record names), match it against the workspace,
and match the workspace's stored references against the source.

Per new source the work is bounded by its own references and the few stored references
the indexes return (:func:`~marginalia.knowledge.repository.citations.references_that_may_cite`),
not by the number of (reference, source) pairs in the workspace. Matching its own
references still reads every source's title and identifiers into a
:class:`~marginalia.knowledge.citations.TitleIndex` (its rarest-word keys depend on the whole
workspace's titles); a source without references (abstract-only) skips that read.
"""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from marginalia.ingest.documents import Page
from marginalia.knowledge.citations import (
    Reference,
    TitleIndex,
    match_pair,
    match_references,
    references_from_metadata,
    references_from_pages,
    title_query,
)
from marginalia.knowledge.repository import citations as cite_repo
from marginalia.knowledge.repository import get_source


def source_references(
    kind: str, pages: list[Page], metadata: list[dict[str, Any]] | None
) -> list[Reference]:
    """The reference list printed in the document, then the references its record names
    (OpenAlex ``referenced_works``, unarXive ``bib_entries``)."""
    printed = references_from_pages(kind, pages)
    return [*printed, *references_from_metadata(metadata, start=len(printed))]


async def link_source(
    session: AsyncSession,
    workspace_id: uuid.UUID,
    source_id: uuid.UUID,
    *,
    extra: list[Reference] | None = None,
) -> int:
    """(Re)read ``source_id``'s references, store them with their matches, and point the
    other sources' references that cite it at it. Returns the source's cites edges (both
    directions)."""
    source = await get_source(session, source_id)
    if source is None:
        return 0
    pages = await cite_repo.source_pages(session, source_id)
    references = source_references(source.kind, pages, source.metadata_references)
    if extra:
        references = [
            *references,
            *(
                Reference(
                    position=len(references) + i,
                    text=r.text,
                    norm=r.norm,
                    doi=r.doi,
                    arxiv_id=r.arxiv_id,
                    openalex_id=r.openalex_id,
                    year=r.year,
                )
                for i, r in enumerate(extra)
            ),
        ]
    # The title index covers the workspace: built only when there are references to match
    # (an abstract-only source has none; its incoming matches below are index look-ups).
    matches = (
        match_references(
            source_id,
            references,
            TitleIndex(await cite_repo.citable_sources(session, workspace_id)),
        )
        if references
        else []
    )
    await cite_repo.replace_references(session, workspace_id, source_id, references, matches)

    me = next(iter(await cite_repo.citable_sources(session, workspace_id, [source_id])), None)
    incoming = 0
    if me is not None:
        updates: list[tuple[int, uuid.UUID | None, str | None, float | None]] = []
        for stored in await cite_repo.references_that_may_cite(
            session, workspace_id, me, title_query(me.title)
        ):
            m = match_pair(stored.reference, me)
            if m is None:
                continue
            better = stored.cited_source_id is None or (
                stored.match == "title"
                and (m.how != "title" or m.score > (stored.match_score or 0.0))
            )
            if better:
                updates.append((stored.id, source_id, m.how, m.score))
                incoming += 1
        await cite_repo.set_cited(session, updates)
    return len({m.cited for m in matches}) + incoming


async def relink_workspace(session: AsyncSession, workspace_id: uuid.UUID) -> int:
    """Read every source's references again and match them against the whole workspace
    (the rebuild). Returns the workspace's cites edges."""
    sources = await cite_repo.citable_sources(session, workspace_id)
    index = TitleIndex(sources)
    pairs: set[tuple[uuid.UUID, uuid.UUID]] = set()
    for s in sources:
        source = await get_source(session, s.id)
        if source is None:
            continue
        references = source_references(
            source.kind, await cite_repo.source_pages(session, s.id), source.metadata_references
        )
        matches = match_references(s.id, references, index)
        await cite_repo.replace_references(session, workspace_id, s.id, references, matches)
        pairs |= {(s.id, m.cited) for m in matches}
    return len(pairs)
