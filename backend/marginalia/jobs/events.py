"""Follow a job's events live: replay what is stored, then wake on LISTEN/NOTIFY."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import psycopg

from marginalia.db import Database
from marginalia.db.models import JobEvent
from marginalia.db.repositories import jobs as jobs_repo

CHANNEL = "job_events"
_BATCH = 500


def event_payload(event: JobEvent) -> dict[str, Any]:
    return {
        "id": event.id,
        "job_id": str(event.job_id),
        "type": event.type,
        "stage": event.stage,
        "message": event.message,
        "progress": event.progress,
        "data": event.data,
        "created_at": event.created_at.isoformat() if event.created_at else None,
    }


async def follow_events(
    db: Database, job_id: uuid.UUID, *, after_id: int = 0, wait_s: float = 2.0
) -> AsyncIterator[JobEvent]:
    """Yield the job's events with id > after_id, until the job is finished and drained.

    NOTIFY only wakes us; the events themselves are always read from the table, so a
    missed notification costs at most `wait_s` of latency, never an event.
    """
    listener = await psycopg.AsyncConnection.connect(db.location.url, autocommit=True)
    try:
        await listener.execute(f"LISTEN {CHANNEL}")
        while True:
            async with db.session() as session:
                state = await jobs_repo.status_of(session, job_id)
                if state is None:
                    return
                events = await jobs_repo.events_after(session, job_id, after_id, limit=_BATCH)
            for event in events:
                assert event.id is not None
                after_id = event.id
                yield event
            if len(events) == _BATCH:
                continue
            if state[0] in jobs_repo.TERMINAL:
                return
            async for _note in listener.notifies(timeout=wait_s, stop_after=1):
                pass
    finally:
        await listener.close()
