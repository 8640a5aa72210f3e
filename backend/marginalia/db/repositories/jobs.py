"""SQL for jobs and job events."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import func, or_, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col

from marginalia.db.models import Job, JobEvent, WorkspaceMember

TERMINAL = ("succeeded", "failed", "cancelled")


async def create(
    session: AsyncSession,
    *,
    kind: str,
    params: dict[str, Any],
    workspace_id: uuid.UUID | None,
    backend: str,
    user_id: uuid.UUID | None = None,
) -> Job:
    job = Job(
        kind=kind,
        params=params,
        workspace_id=workspace_id,
        user_id=user_id,
        backend=backend,
        checkpoint={},
    )
    session.add(job)
    await session.flush()
    await session.refresh(job)
    return job


async def get(session: AsyncSession, job_id: uuid.UUID) -> Job | None:
    return await session.get(Job, job_id)


async def list_recent(
    session: AsyncSession, *, limit: int = 50, visible_to: uuid.UUID | None = None
) -> list[Job]:
    """The newest jobs; with ``visible_to``, only those in that user's workspaces or
    started by them."""
    query = select(Job)
    if visible_to is not None:
        member_of = select(col(WorkspaceMember.workspace_id)).where(
            col(WorkspaceMember.user_id) == visible_to
        )
        query = query.where(
            or_(col(Job.workspace_id).in_(member_of), col(Job.user_id) == visible_to)
        )
    result = await session.execute(query.order_by(col(Job.created_at).desc()).limit(limit))
    return list(result.scalars().all())


async def claim(session: AsyncSession, job_id: uuid.UUID, worker: str) -> Job | None:
    """Move a queued job to running; None if someone else has it or it is finished."""
    result = await session.execute(
        update(Job)
        .where(col(Job.id) == job_id, col(Job.status) == "queued")
        .values(
            status="running",
            worker=worker,
            started_at=func.now(),
            heartbeat_at=func.now(),
            attempts=col(Job.attempts) + 1,
            interrupted=False,
            error=None,
        )
        .returning(Job)
    )
    return result.scalars().first()


async def heartbeat(session: AsyncSession, job_id: uuid.UUID) -> str | None:
    """Touch the heartbeat of a running job; returns the job's current status (to notice
    cancellation). A job no longer running (cancelled, requeued) keeps its old heartbeat,
    so a cancelled job's heartbeat visibly stops."""
    result = await session.execute(
        update(Job)
        .where(col(Job.id) == job_id, col(Job.status) == "running")
        .values(heartbeat_at=func.now())
        .returning(col(Job.status))
    )
    status = result.scalar_one_or_none()
    if status is not None:
        return str(status)
    return await _status(session, job_id)


async def _status(session: AsyncSession, job_id: uuid.UUID) -> str | None:
    row = await session.execute(select(col(Job.status)).where(col(Job.id) == job_id))
    status = row.scalar_one_or_none()
    return None if status is None else str(status)


async def set_progress(
    session: AsyncSession, job_id: uuid.UUID, *, stage: str | None, progress: float | None
) -> str | None:
    """Record a running job's stage/progress (and that it is alive); returns the job's
    status, so every progress report is also a cancellation check. Nothing is written
    to a job that is no longer running."""
    values: dict[str, Any] = {"heartbeat_at": func.now()}
    if stage is not None:
        values["stage"] = stage
    if progress is not None:
        values["progress"] = progress
    result = await session.execute(
        update(Job)
        .where(col(Job.id) == job_id, col(Job.status) == "running")
        .values(**values)
        .returning(col(Job.status))
    )
    status = result.scalar_one_or_none()
    if status is not None:
        return str(status)
    return await _status(session, job_id)


async def save_checkpoint(
    session: AsyncSession, job_id: uuid.UUID, checkpoint: dict[str, Any]
) -> None:
    await session.execute(update(Job).where(col(Job.id) == job_id).values(checkpoint=checkpoint))


async def finish(
    session: AsyncSession,
    job_id: uuid.UUID,
    *,
    status: str,
    result: dict[str, Any] | None = None,
    error: str | None = None,
    interrupted: bool = False,
) -> None:
    values: dict[str, Any] = {
        "status": status,
        "finished_at": func.now(),
        "error": error,
        "interrupted": interrupted,
    }
    if result is not None:
        values["result"] = result
    if status == "succeeded":
        values["progress"] = 1.0
    await session.execute(update(Job).where(col(Job.id) == job_id).values(**values))


async def requeue(session: AsyncSession, job_id: uuid.UUID, *, keep_checkpoint: bool) -> Job | None:
    values: dict[str, Any] = {
        "status": "queued",
        "finished_at": None,
        "error": None,
        "interrupted": False,
    }
    if not keep_checkpoint:
        values.update(checkpoint={}, progress=0.0, stage=None, result=None)
    result = await session.execute(
        update(Job)
        .where(col(Job.id) == job_id, col(Job.status).in_(("failed", "cancelled")))
        .values(**values)
        .returning(Job)
    )
    return result.scalars().first()


async def cancel(session: AsyncSession, job_id: uuid.UUID) -> Job | None:
    result = await session.execute(
        update(Job)
        .where(col(Job.id) == job_id, col(Job.status).in_(("queued", "running")))
        .values(status="cancelled", finished_at=func.now())
        .returning(Job)
    )
    return result.scalars().first()


async def mark_stale_interrupted(session: AsyncSession, *, stale_after_s: float) -> list[uuid.UUID]:
    """Running jobs whose heartbeat stopped: the process that ran them died."""
    result = await session.execute(
        text(
            """
            UPDATE jobs
               SET status = 'failed', interrupted = true, finished_at = now(),
                   error = 'interrupted: the process running this job stopped '
                           || '(last heartbeat ' || to_char(heartbeat_at, 'YYYY-MM-DD HH24:MI:SS')
                           || ' UTC); resume or retry it'
             WHERE status = 'running'
               AND (heartbeat_at IS NULL OR heartbeat_at < now() - make_interval(secs => :stale))
            RETURNING id
            """
        ),
        {"stale": stale_after_s},
    )
    return [row[0] for row in result.all()]


async def requeue_interrupted(
    session: AsyncSession, *, max_attempts: int, within_s: float
) -> list[tuple[uuid.UUID, int]]:
    """Interrupted jobs (their process died or shut down mid-run) that have attempts left
    and were interrupted within ``within_s``: queued again, checkpoint kept. Returns
    (id, attempts so far) of each."""
    result = await session.execute(
        text(
            """
            UPDATE jobs
               SET status = 'queued', finished_at = NULL, error = NULL
             WHERE status = 'failed' AND interrupted AND attempts < :max_attempts
               AND finished_at > now() - make_interval(secs => :within)
            RETURNING id, attempts
            """
        ),
        {"max_attempts": max_attempts, "within": within_s},
    )
    return [(row[0], int(row[1])) for row in result.all()]


async def give_up_interrupted(session: AsyncSession, *, max_attempts: int) -> list[uuid.UUID]:
    """Interrupted jobs out of attempts: they stay failed, now saying why (once)."""
    result = await session.execute(
        text(
            """
            UPDATE jobs
               SET error = 'gave up after ' || attempts || ' interrupted attempts (not '
                           || 'resumed again automatically; resume or retry it): '
                           || coalesce(error, '')
             WHERE status = 'failed' AND interrupted AND attempts >= :max_attempts
               AND coalesce(error, '') NOT LIKE 'gave up after %'
            RETURNING id
            """
        ),
        {"max_attempts": max_attempts},
    )
    return [row[0] for row in result.all()]


async def add_event(
    session: AsyncSession,
    job_id: uuid.UUID,
    *,
    type: str,
    stage: str | None = None,
    message: str | None = None,
    progress: float | None = None,
    data: dict[str, Any] | None = None,
) -> JobEvent:
    event = JobEvent(
        job_id=job_id, type=type, stage=stage, message=message, progress=progress, data=data or {}
    )
    session.add(event)
    await session.flush()
    return event


async def events_after(
    session: AsyncSession, job_id: uuid.UUID, after_id: int, *, limit: int = 500
) -> list[JobEvent]:
    result = await session.execute(
        select(JobEvent)
        .where(col(JobEvent.job_id) == job_id, col(JobEvent.id) > after_id)
        .order_by(col(JobEvent.id))
        .limit(limit)
    )
    return list(result.scalars().all())


async def status_of(session: AsyncSession, job_id: uuid.UUID) -> tuple[str, datetime | None] | None:
    row = (
        await session.execute(
            select(col(Job.status), col(Job.finished_at)).where(col(Job.id) == job_id)
        )
    ).first()
    return (row[0], row[1]) if row else None


async def pending_of_kind(session: AsyncSession, kind: str, workspace_id: uuid.UUID) -> Job | None:
    """The oldest queued or running job of ``kind`` for a workspace, if any."""
    result = await session.execute(
        select(Job)
        .where(
            col(Job.kind) == kind,
            col(Job.workspace_id) == workspace_id,
            col(Job.status).in_(("queued", "running")),
        )
        .order_by(col(Job.created_at))
        .limit(1)
    )
    return result.scalars().first()
