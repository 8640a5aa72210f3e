"""What the cheap dedup layers of ingest compare a document against: the workspace's
sources, kept across one ingest or import (:class:`KnownSources`), and the documents
accepted but not yet stored (:class:`PendingSources`)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from marginalia.db.repositories import sources as sources_repo
from marginalia.ingest.dedup import DedupIndex, DedupRecord, record_from_row


class KnownSources:
    """The workspace's sources as the cheap dedup layers (identity, title) see them: read
    once (``sources_repo.identities``) into a :class:`DedupIndex` and kept for a whole
    ingest or import, instead of read and scanned again for every document (quadratic in a
    2,000-entry import). What the ingest stores itself is added as it commits
    (:meth:`stored`); each use first counts the workspace's sources (one small query) and
    reads them again when someone else added or removed one meanwhile."""

    def __init__(self, workspace_id: uuid.UUID) -> None:
        self.workspace_id = workspace_id
        self._index: DedupIndex | None = None
        self._metadata_only: set[uuid.UUID] = set()

    async def current(self, session: AsyncSession) -> DedupIndex:
        """The index, read again unless it holds every source the workspace has."""
        index = self._index
        if index is None or await sources_repo.count_in_workspace(
            session, self.workspace_id
        ) != len(index):
            rows = await sources_repo.identities(session, self.workspace_id)
            index = DedupIndex(record_from_row(row) for row in rows)
            self._metadata_only = {r["id"] for r in rows if r.get("kind") == "metadata"}
            self._index = index
        return index

    @property
    def metadata_only(self) -> set[uuid.UUID]:
        """The metadata-only sources among them (as of :meth:`current`)."""
        return self._metadata_only

    def stored(self, fields: dict[str, Any]) -> None:
        """A source this ingest has just committed (its ``insert_source`` fields)."""
        if self._index is not None:
            self._index.add(record_from_row(fields))
            if fields.get("kind") == "metadata":
                self._metadata_only.add(fields["id"])

    def invalidate(self) -> None:
        """A source changed in place (a metadata-only one filled in): read them again."""
        self._index = None


@dataclass
class PendingSources:
    """Documents accepted by ``ingest_many`` but not yet stored: a later document that
    matches one of them is set aside until they are (see ``ingest_many``)."""

    digests: set[str] = field(default_factory=set)
    records: list[DedupRecord] = field(default_factory=list)

    def add(self, digest: str, record: DedupRecord) -> None:
        self.digests.add(digest)
        self.records.append(record)

    def discard(self, digest: str, record: DedupRecord) -> None:
        """Stored (the database now answers for it) or failed (nothing to match)."""
        self.digests.discard(digest)
        self.records.remove(record)

    def clear(self) -> None:
        self.digests.clear()
        self.records.clear()
