"""BibTeX in and out of a workspace.

Import parses the file (what Zotero and friends export) and runs the entries through the
research pipeline's later stages — dedup against the workspace, safe fetch of any PDF
link, ingest (abstract-only when no PDF is reachable), knowledge update — as a
``research.import`` job. Export writes the workspace's sources as BibTeX.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any, Literal, cast

from sqlmodel import col, select

from marginalia.db.models import Job, Source
from marginalia.errors import ValidationFailed
from marginalia.services.container import Services
from marginalia.services.workspaces import get_workspace
from marginalia.sources.bibtex import BibtexError, parse_bibtex, to_bibtex
from marginalia.sources.candidate import Candidate, Origin

MAX_IMPORT_ENTRIES = 2000
_ORIGINS = {"arxiv", "openalex", "brave", "catalog", "bibtex", "upload"}


class StaticSource:
    """A fixed list of candidates as a source: every query returns all of them."""

    def __init__(self, name: str, candidates: Sequence[Candidate]) -> None:
        self.name = name
        self._candidates = list(candidates)

    async def search(self, query: str, *, limit: int) -> list[Candidate]:
        return self._candidates[: max(0, limit)]


def parse_import(text: str) -> list[Candidate]:
    """Candidates from BibTeX text; a clear ValidationFailed when it cannot be read."""
    try:
        candidates = parse_bibtex(text)
    except BibtexError as exc:
        raise ValidationFailed(f"cannot import BibTeX: {exc}") from exc
    if len(candidates) > MAX_IMPORT_ENTRIES:
        raise ValidationFailed(
            f"the BibTeX file has {len(candidates)} entries; at most {MAX_IMPORT_ENTRIES} "
            "are imported at once"
        )
    return candidates


async def submit_bibtex_import(
    services: Services, workspace_id: uuid.UUID, text: str, *, fetch: bool = True
) -> Job:
    """Validate the BibTeX (a bad file changes nothing) and submit the import job."""
    import marginalia.discovery.jobs  # noqa: F401  (registers the job kinds)

    await get_workspace(services.db, workspace_id)
    candidates = parse_import(text)
    params: dict[str, Any] = {
        "workspace_id": str(workspace_id),
        "candidates": [c.model_dump(mode="json") for c in candidates],
        "fetch": fetch,
    }
    return await services.jobs.submit("research.import", params, workspace_id=workspace_id)


def source_to_candidate(source: Source) -> Candidate:
    origin = source.origin if source.origin in _ORIGINS else "upload"
    return Candidate(
        title=source.title or source.file_name or "Untitled",
        authors=list(source.authors or []),
        year=source.year,
        abstract=source.abstract,
        url=source.url,
        pdf_url=source.pdf_url,
        doi=source.doi,
        arxiv_id=source.arxiv_id,
        openalex_id=source.openalex_id,
        citation_count=source.citation_count,
        venue=source.venue,
        origin=cast(Origin, origin),
        source_id=str(source.id),
    )


async def export_bibtex(services: Services, workspace_id: uuid.UUID) -> str:
    """The workspace's sources as BibTeX (oldest first; stable citation keys)."""
    await get_workspace(services.db, workspace_id)
    async with services.db.session() as session:
        rows = (
            await session.execute(
                select(Source)
                .where(col(Source.workspace_id) == workspace_id)
                .order_by(col(Source.created_at), col(Source.id))
            )
        ).scalars()
        sources = list(rows.all())
    records = [source_to_candidate(s) for s in sources]
    if not records:
        return ""
    return to_bibtex(records)


ExportFormat = Literal["bibtex"]
