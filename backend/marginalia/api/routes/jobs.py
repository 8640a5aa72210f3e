from __future__ import annotations

import json
import re
import uuid
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt

from marginalia.api.deps import PrincipalDep, RuntimeDep, credentials
from marginalia.api.schemas import MAX_INT64, ErrorOut, JobOut
from marginalia.api.stream_schemas import stream_content
from marginalia.jobs.events import event_payload
from marginalia.usecases import accounts
from marginalia.usecases import jobs as service

router = APIRouter(
    prefix="/api/jobs",
    tags=["jobs"],
    responses={404: {"model": ErrorOut}, 409: {"model": ErrorOut}},
)


class PingRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    steps: StrictInt = Field(default=5, ge=1, le=1000)
    interval_s: StrictFloat = Field(default=0.1, ge=0, le=10)


@router.get("", response_model=list[JobOut])
async def list_jobs(
    rt: RuntimeDep, principal: PrincipalDep, limit: Annotated[int, Query(ge=1, le=500)] = 50
) -> list[JobOut]:
    jobs = await service.list_jobs(rt, limit, visible_to=principal.user_id)
    return [JobOut.model_validate(j) for j in jobs]


@router.post(
    "/ping", status_code=202, response_model=JobOut, summary="Run the diagnostic ticker job"
)
async def ping(body: PingRequest, rt: RuntimeDep, principal: PrincipalDep) -> JobOut:
    job = await service.ping(
        rt, steps=body.steps, interval_s=body.interval_s, user_id=principal.user_id
    )
    return JobOut.model_validate(job)


# Only a UUID is a job id: /api/jobs/ping is the ping resource (so GET there is a 405 that
# allows POST, not a 422 about a malformed job id).
@router.get("/{job_id:uuid}", response_model=JobOut)
async def get_job(job_id: uuid.UUID, rt: RuntimeDep) -> JobOut:
    return JobOut.model_validate(await service.get_job(rt, job_id))


@router.post("/{job_id}/resume", response_model=JobOut, summary="Re-run from the last checkpoint")
async def resume_job(job_id: uuid.UUID, rt: RuntimeDep) -> JobOut:
    return JobOut.model_validate(await service.resume_job(rt, job_id))


@router.post("/{job_id}/retry", response_model=JobOut, summary="Re-run from the start")
async def retry_job(job_id: uuid.UUID, rt: RuntimeDep) -> JobOut:
    return JobOut.model_validate(await service.retry_job(rt, job_id))


@router.post("/{job_id}/cancel", response_model=JobOut)
async def cancel_job(job_id: uuid.UUID, rt: RuntimeDep) -> JobOut:
    return JobOut.model_validate(await service.cancel_job(rt, job_id))


@router.get(
    "/{job_id}/events",
    summary="Server-sent events for a job; resumable with Last-Event-ID",
    response_class=StreamingResponse,
    responses={
        200: {
            "description": "text/event-stream: one JobEventOut per event, until the job ends",
            "content": stream_content("text/event-stream", "JobEventOut"),
        }
    },
)
async def job_events(
    job_id: uuid.UUID,
    rt: RuntimeDep,
    request: Request,
    last_event_id: Annotated[str | None, Header()] = None,
    after: Annotated[
        int | None, Query(ge=0, le=MAX_INT64, description="alternative to Last-Event-ID")
    ] = None,
) -> StreamingResponse:
    await service.get_job(rt, job_id)  # 404 before the stream starts
    start = after or 0
    if last_event_id:
        # An id that is no event id (not a number, or beyond any) replays from the start.
        digits = last_event_id.strip()
        ok = re.fullmatch(r"[0-9]{1,19}", digits) is not None and int(digits) <= MAX_INT64
        start = int(digits) if ok else 0

    bearer, cookie = credentials(request)

    async def allowed() -> bool:
        # The stream ends when its credentials do (issue 34): re-checked every few seconds.
        return await accounts.still_allowed(
            rt, bearer=bearer, cookie=cookie, addressed={"job_id": job_id}
        )

    async def stream() -> AsyncIterator[str]:
        checked = allowed if accounts.accounts_mode(rt) else None
        async for event in service.job_events(rt, job_id, after_id=start, allowed=checked):
            payload = event_payload(event)
            yield f"id: {event.id}\nevent: {event.type}\ndata: {json.dumps(payload)}\n\n"

    return StreamingResponse(
        stream(),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
