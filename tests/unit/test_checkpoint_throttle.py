"""A research run's checkpoint writes (issue 36, item 4): a small run writes one per
stage change; a large one (an import of thousands of entries) at most every
``CHECKPOINT_EVERY_S`` seconds, except the forced writes (selection, final state)."""

from __future__ import annotations

import uuid
from typing import Any

from marginalia.discovery import run_state
from marginalia.discovery.run_state import ResearchRunBase


def _run(candidates: int, saved: list[dict[str, Any]]) -> ResearchRunBase:
    async def save(state: dict[str, Any]) -> None:
        saved.append(state)

    items = [{"key": str(i), "stage": "deduped"} for i in range(candidates)]
    return ResearchRunBase(
        ctx=None,  # type: ignore[arg-type]  # _save reads no context
        workspace_id=uuid.uuid4(),
        description="import",
        state={"candidates": items},
        save=save,
    )


async def test_a_small_run_writes_every_stage_change() -> None:
    saved: list[dict[str, Any]] = []
    run = _run(run_state.THROTTLE_OVER, saved)
    for item in run.state["candidates"]:
        await run._set(item, "fetched")
    assert len(saved) == run_state.THROTTLE_OVER
    assert saved[-1]["candidates"][-1]["stage"] == "fetched"


async def test_a_large_run_writes_at_most_every_interval_and_when_forced() -> None:
    saved: list[dict[str, Any]] = []
    run = _run(run_state.THROTTLE_OVER + 1, saved)
    for item in run.state["candidates"]:
        await run._set(item, "fetched")
    assert len(saved) == 1  # the first; the rest came within the interval
    assert saved[0]["candidates"][1]["stage"] == "deduped"  # a copy, not the live state
    await run._save(force=True)
    assert len(saved) == 2
    assert {i["stage"] for i in saved[-1]["candidates"]} == {"fetched"}
