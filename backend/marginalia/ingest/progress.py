"""How ingest reports progress: a stage, a message, and how much of one document is done."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Protocol


class Progress(Protocol):
    """Reports a document's stage; ``fraction`` is how much of the document's ingest is
    done (0–1), so a job can show real per-file progress."""

    def __call__(
        self, stage: str, message: str, fraction: float | None = None
    ) -> Awaitable[None]: ...


#: Where each stage starts within one document's ingest (embedding fills the gap to storing).
STAGE_FRACTION = {"parsing": 0.05, "chunking": 0.2, "embedding": 0.3, "storing": 0.9}
#: Chunk vectors are computed this many passages at a time, so embedding reports n/N.
EMBED_REPORT_EVERY = 64


async def noop(stage: str, message: str, fraction: float | None = None) -> None:
    return None
