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


class JobSuperseded(JobCancelled):
    """Raised inside a job whose row no longer says this run owns it: the sweep took it
    for dead (its heartbeat went stale) and queued it again. This run stops and records
    nothing, so it cannot overwrite the new run's outcome."""


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
    # Why this run must stop (cancelled, deleted, superseded), once it is known.
    _stop: str | None = field(default=None, repr=False)

    async def emit(
        self,
        message: str,
        *,
        stage: str | None = None,
        progress: float | None = None,
        type: str = "stage",
        data: dict[str, Any] | None = None,
    ) -> None:
        """Persist an event (NOTIFY wakes live SSE streams) and update the job's stage/progress.

        Every report is also a cancellation check (stage boundaries, each file, each
        chunk group, each source all report): a job cancelled meanwhile raises
        :class:`JobCancelled` here and writes no further event."""
        self.raise_if_cancelled()
        async with self.db.transaction() as session:
            status = await jobs_repo.set_progress(
                session, self.job_id, stage=stage, progress=progress
            )
            if status == "running":
                await jobs_repo.add_event(
                    session,
                    self.job_id,
                    type=type,
                    stage=stage,
                    message=message,
                    progress=progress,
                    data=data,
                )
        self.observe_status(status)
        self.raise_if_cancelled()

    def observe_status(self, status: str | None) -> None:
        """Note the job's status as last read (by a report or a heartbeat): anything but
        ``running`` means this run must stop at its next check."""
        if status == "running" or self._stop is not None:
            return
        # None: the job was deleted with its workspace; the runner records nothing then.
        self._stop = "cancelled" if status in ("cancelled", None) else "superseded"

    async def save_checkpoint(self, **values: Any) -> None:
        """Record completed work so a resumed run can skip it."""
        self.checkpoint.update(values)
        async with self.db.transaction() as session:
            await jobs_repo.save_checkpoint(session, self.job_id, dict(self.checkpoint))

    def raise_if_cancelled(self) -> None:
        """The cooperative check long loops call (cheap: no database round trip)."""
        if self._stop == "superseded":
            raise JobSuperseded(f"job {self.job_id} was queued again by the stale-job sweep")
        if self._stop is not None:
            raise JobCancelled(f"job {self.job_id} was cancelled")

    def mark_cancelled(self) -> None:
        self._stop = self._stop or "cancelled"
