"""Metadata-only sources: an imported entry with neither full text nor an abstract is
still a source — title, authors, year, venue and identifiers, ``kind = "metadata"``, no
pages, no passages, no file — so the workspace lists everything its bibliography holds.
When a document of the same work arrives later (a PDF attached or found by research,
matched by identifier or title), the ingest pipeline upgrades that source in place
(``repositories.sources.upgrade_source``): same id, now with its full text."""

from __future__ import annotations

import uuid
from typing import Any

from marginalia.db.repositories import sources as sources_repo
from marginalia.errors import NotFoundError
from marginalia.ingest.dedup import DedupRecord, identifier_columns, identity_keys
from marginalia.ingest.known_sources import KnownSources
from marginalia.ingest.pipeline import IngestContext, IngestOutcome, SourceMetadata
from marginalia.sources.candidate import normalized_url

METADATA_KIND = "metadata"


async def store_metadata_only(
    ctx: IngestContext,
    workspace_id: uuid.UUID,
    meta: SourceMetadata,
    *,
    name: str,
    sources: KnownSources | None = None,
) -> IngestOutcome:
    """A metadata-only source for ``meta`` (a duplicate outcome when the workspace
    already has the work, by identifier or title). ``sources``: the workspace's sources
    as a caller storing many keeps them (``ingest.known_sources.KnownSources``)."""
    sources = sources if sources is not None else KnownSources(workspace_id)
    keys = identity_keys(
        url=meta.url, doi=meta.doi, arxiv_id=meta.arxiv_id, openalex_id=meta.openalex_id
    )
    record = DedupRecord(
        id=uuid.uuid4(),
        title=meta.title,
        keys=keys,
        authors=tuple(meta.authors),
        year=meta.year,
    )
    async with ctx.db.transaction() as session:
        from marginalia.db.repositories import workspaces as workspaces_repo

        if await workspaces_repo.get(session, workspace_id) is None:
            raise NotFoundError(f"no workspace with id {workspace_id}")
        known = await sources.current(session)
        match = known.match(record, title_threshold=ctx.settings.ingest.dedup_title_jaccard)
        if match is not None:
            return IngestOutcome(name, "duplicate", match.existing_id, match.layer, match.score)
        fields: dict[str, Any] = {
            "id": record.id,
            "kind": METADATA_KIND,
            "origin": meta.origin,
            "title": meta.title,
            "authors": list(meta.authors),
            "year": meta.year,
            "venue": meta.venue,
            "pages": meta.pages,
            "metadata_origins": dict(meta.metadata_origins),
            "abstract": meta.abstract,
            "url": meta.url,
            "normalized_url": normalized_url(meta.url) if meta.url else None,
            "pdf_url": meta.pdf_url,
            **identifier_columns(keys),
            "citation_count": meta.citation_count,
            "metadata_concepts": list(meta.concepts),
            "metadata_references": list(meta.references),
            "page_count": 0,
        }
        source = await sources_repo.insert_source(
            session, workspace_id=workspace_id, fields=fields, pages=[], chunks=[]
        )
    sources.stored(fields)
    return IngestOutcome(name, "created", source.id)
