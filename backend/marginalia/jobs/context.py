"""What a running job sees: its parameters, checkpoint, and a way to report progress."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from marginalia.config import Settings
from marginalia.db import Database
from marginalia.db.repositories import jobs as jobs_repo

if TYPE_CHECKING:
    from marginalia.runtime import Runtime


class JobCancelled(Exception):
    """Raised inside a job when it was cancelled from outside."""


@dataclass
class JobContext:
    job_id: uuid.UUID
    kind: str
    params: dict[str, Any]
    checkpoint: dict[str, Any]
    workspace_id: uuid.UUID | None
    db: Database
    settings: Settings
    # The process's composition root: job functions (in marginalia.usecases) run flows on it.
    runtime: Runtime
    resumed: bool = False
    _cancelled: bool = field(default=False, repr=False)

    async def emit(
        self,
        message: str,
        *,
        stage: str | None = None,
        progress: float | None = None,
        type: str = "stage",
        data: dict[str, Any] | None = None,
    ) -> None:
        """Persist an event (NOTIFY wakes live SSE streams) and update the job's stage/progress."""
        async with self.db.transaction() as session:
            await jobs_repo.add_event(
                session,
                self.job_id,
                type=type,
                stage=stage,
                message=message,
                progress=progress,
                data=data,
            )
            await jobs_repo.set_progress(session, self.job_id, stage=stage, progress=progress)

    async def save_checkpoint(self, **values: Any) -> None:
        """Record completed work so a resumed run can skip it."""
        self.checkpoint.update(values)
        async with self.db.transaction() as session:
            await jobs_repo.save_checkpoint(session, self.job_id, dict(self.checkpoint))

    def raise_if_cancelled(self) -> None:
        if self._cancelled:
            raise JobCancelled(f"job {self.job_id} was cancelled")

    def mark_cancelled(self) -> None:
        self._cancelled = True
