"""Submit, resume, retry and cancel jobs — the one entry point routers and the CLI use."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy.exc import IntegrityError

from marginalia.config import Settings
from marginalia.db import Database
from marginalia.db.models import Job
from marginalia.db.repositories import jobs as jobs_repo
from marginalia.errors import ConflictError, NotFoundError, ValidationFailed
from marginalia.jobs.backends import JobBackend
from marginalia.jobs.registry import known_kinds
from marginalia.jobs.runner import notice_cancelled


class JobService:
    def __init__(self, db: Database, settings: Settings, backend: JobBackend) -> None:
        self.db = db
        self.settings = settings
        self.backend = backend

    async def submit(
        self,
        kind: str,
        params: dict[str, Any] | None = None,
        *,
        workspace_id: uuid.UUID | None = None,
        user_id: uuid.UUID | None = None,
    ) -> Job:
        if kind not in known_kinds():
            raise ValidationFailed(f"unknown job kind {kind!r}")
        try:
            async with self.db.transaction() as session:
                job = await jobs_repo.create(
                    session,
                    kind=kind,
                    params=params or {},
                    workspace_id=workspace_id,
                    backend=self.backend.name,
                    user_id=user_id,
                )
                await jobs_repo.add_event(
                    session, job.id, type="status", stage="queued", message="queued"
                )
        except IntegrityError as exc:
            # The workspace was deleted between the caller's check and this insert.
            raise NotFoundError(f"no workspace with id {workspace_id} (it was deleted)") from exc
        await self.backend.submit(job.id)
        return job

    async def get(self, job_id: uuid.UUID) -> Job:
        async with self.db.session() as session:
            job = await jobs_repo.get(session, job_id)
        if job is None:
            raise NotFoundError(f"no job with id {job_id}")
        return job

    async def list_recent(self, limit: int = 50, visible_to: uuid.UUID | None = None) -> list[Job]:
        async with self.db.session() as session:
            return await jobs_repo.list_recent(session, limit=limit, visible_to=visible_to)

    async def resume(self, job_id: uuid.UUID) -> Job:
        """Re-run a failed/cancelled job from its checkpoint."""
        return await self._requeue(job_id, keep_checkpoint=True, verb="resumed")

    async def retry(self, job_id: uuid.UUID) -> Job:
        """Re-run a failed/cancelled job from the start."""
        return await self._requeue(job_id, keep_checkpoint=False, verb="retried")

    async def _requeue(self, job_id: uuid.UUID, *, keep_checkpoint: bool, verb: str) -> Job:
        await self.recover_stale()
        async with self.db.transaction() as session:
            existing = await jobs_repo.get(session, job_id)
            if existing is None:
                raise NotFoundError(f"no job with id {job_id}")
            job = await jobs_repo.requeue(session, job_id, keep_checkpoint=keep_checkpoint)
            if job is None:
                raise ConflictError(
                    f"job {job_id} is {existing.status}; only failed or cancelled jobs can be {verb}"
                )
            await jobs_repo.add_event(session, job_id, type="status", stage="queued", message=verb)
        await self.backend.submit(job_id)
        return job

    async def cancel(self, job_id: uuid.UUID) -> Job:
        async with self.db.transaction() as session:
            existing = await jobs_repo.get(session, job_id)
            if existing is None:
                raise NotFoundError(f"no job with id {job_id}")
            job = await jobs_repo.cancel(session, job_id)
            if job is None:
                raise ConflictError(f"job {job_id} is already {existing.status}")
            await jobs_repo.add_event(
                session, job_id, type="status", stage="cancelled", message="cancelled"
            )
        # A run in this process stops at its next check; one elsewhere reads the status at
        # its next report or heartbeat.
        notice_cancelled(job_id)
        return job

    async def recover_stale(self) -> list[uuid.UUID]:
        """Mark running jobs whose heartbeat stopped as interrupted (resumable)."""
        async with self.db.transaction() as session:
            ids = await jobs_repo.mark_stale_interrupted(
                session, stale_after_s=self.settings.jobs.stale_after_s
            )
            for job_id in ids:
                await jobs_repo.add_event(
                    session,
                    job_id,
                    type="status",
                    stage="interrupted",
                    message="interrupted: its process stopped",
                )
        return ids

    async def sweep(self) -> list[uuid.UUID]:
        """The periodic sweep (API process and workers): mark stale jobs interrupted, then
        resume every interrupted job with attempts left (``jobs.max_attempts``) from its
        checkpoint; one out of attempts stays failed and says so. Returns the resumed."""
        await self.recover_stale()
        max_attempts = self.settings.jobs.max_attempts
        async with self.db.transaction() as session:
            resumed = await jobs_repo.requeue_interrupted(
                session, max_attempts=max_attempts, within_s=self.settings.jobs.resume_within_s
            )
            for job_id, attempts in resumed:
                await jobs_repo.add_event(
                    session,
                    job_id,
                    type="status",
                    stage="queued",
                    message=f"resumed automatically (attempt {attempts + 1} of {max_attempts})",
                    data={"attempt": attempts + 1, "max_attempts": max_attempts},
                )
            for job_id in await jobs_repo.give_up_interrupted(session, max_attempts=max_attempts):
                await jobs_repo.add_event(
                    session,
                    job_id,
                    type="status",
                    stage="failed",
                    message=f"interrupted {max_attempts} times: not resumed again automatically",
                )
        for job_id, _attempts in resumed:
            await self.backend.submit(job_id)
        return [job_id for job_id, _attempts in resumed]
