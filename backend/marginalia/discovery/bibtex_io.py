"""BibTeX in and out of a workspace: the parts the research pipeline and the use case
(:mod:`marginalia.usecases.research`) share.

Import parses the file (what Zotero and friends export) into candidates the research
pipeline's later stages take — dedup against the workspace, safe fetch of any PDF link,
ingest (abstract-only when no PDF is reachable), knowledge update — as a
``research.import`` job. Export turns the workspace's sources back into candidates.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, cast

from marginalia.db.models import Source
from marginalia.errors import ValidationFailed
from marginalia.sources.bibtex import BibtexError, parse_bibtex
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
        pages=source.pages,
        metadata_origins=dict(source.metadata_origins or {}),
        origin=cast(Origin, origin),
        source_id=str(source.id),
    )


ExportFormat = Literal["bibtex"]
