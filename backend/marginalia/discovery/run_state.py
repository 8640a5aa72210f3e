"""The state a research run's stages share."""

from __future__ import annotations

import asyncio
import copy
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from marginalia.discovery.support import (
    TERMINAL_STAGES,
    Emit,
    ResearchContext,
    ResearchOptions,
    SaveState,
    SearchHit,
    Stage,
    no_cancel,
    no_emit,
    no_save,
)
from marginalia.ingest.known_sources import KnownSources
from marginalia.llm.base import LLMProvider
from marginalia.sources.base import SourceClient
from marginalia.sources.fetch import SafeFetcher

THROTTLE_OVER = 50
CHECKPOINT_EVERY_S = 2.0
#: Candidates per :data:`CHECKPOINT_EVERY_S` of interval: a checkpoint's size grows with
#: the run (3.7 MB of JSON at 2,000 entries), so its interval does too — its cost stays a
#: small share of the run, and what a resumed run repeats stays a few seconds of work.
CHECKPOINT_SCALE = 500


@dataclass
class ResearchRunBase:
    """The state of one research run over one workspace (``state`` is its resumable
    checkpoint) and the helpers every stage uses."""

    ctx: ResearchContext
    workspace_id: uuid.UUID
    description: str
    options: ResearchOptions = field(default_factory=ResearchOptions)
    clients: Sequence[SourceClient] | None = None
    fetcher: SafeFetcher | None = None
    llm: LLMProvider | None = None
    state: dict[str, Any] = field(default_factory=dict)
    emit: Emit = no_emit
    save: SaveState = no_save
    check_cancelled: Callable[[], None] = no_cancel
    _hits: list[SearchHit] = field(default_factory=list, repr=False)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)
    _saved_at: float = field(default=0.0, repr=False)
    _sources: KnownSources | None = field(default=None, repr=False)

    @property
    def known_sources(self) -> KnownSources:
        """The workspace's sources for the dedup layers of ingest, read once per run
        (``ingest.known_sources.KnownSources``), not once per entry."""
        if self._sources is None:
            self._sources = KnownSources(self.workspace_id)
        return self._sources

    @property
    def _title_threshold(self) -> float:
        return self.ctx.settings.ingest.dedup_title_jaccard

    @property
    def _embedding_threshold(self) -> float:
        return self.ctx.settings.ingest.dedup_embedding

    async def _timed(self, name: str, work: Awaitable[None]) -> None:
        t = time.perf_counter()
        await work
        timings = self.state["timings_ms"]
        timings[name] = round(timings.get(name, 0.0) + (time.perf_counter() - t) * 1000, 1)

    async def _save(self, *, force: bool = False) -> None:
        """Write the checkpoint. A run of more than :data:`THROTTLE_OVER` candidates
        writes it at most every :data:`CHECKPOINT_EVERY_S` seconds per
        :data:`CHECKPOINT_SCALE` candidates (``force``: now): each write copies the whole
        state, so a write per candidate grows with the square of the run (a 2,000-entry
        import: every 8 s). What a resumed run then repeats is idempotent (ingest finds
        the source it made, linking replaces what it derived)."""
        n = len(self.state.get("candidates") or ())
        every = CHECKPOINT_EVERY_S * max(1.0, n / CHECKPOINT_SCALE)
        if n > THROTTLE_OVER and not force and time.monotonic() - self._saved_at < every:
            return
        async with self._lock:
            self._saved_at = time.monotonic()
            await self.save(copy.deepcopy(self.state))

    # -------------------------------------------------------------- fetch → ingest → link

    def counts(self) -> dict[str, Any]:
        items: list[dict[str, Any]] = self.state.get("candidates", [])
        stages = Counter(str(i["stage"]) for i in items)
        fetch_failed = Counter(
            str(i["fetch"]["reason"])
            for i in items
            if i.get("fetch") and i["fetch"]["status"] == "failed"
        )
        ingest = Counter(str(i["ingest"]["status"]) for i in items if i.get("ingest"))
        return {
            "found": int(self.state.get("search", {}).get("found", 0)),
            "selected": len(items),
            "duplicates": dict(self.state.get("dedup", {}).get("duplicates", {})),
            "known": int(self.state.get("dedup", {}).get("known_total", 0)),
            "fetched": sum(1 for i in items if i.get("fetch", {}).get("status") == "ok"),
            "fetch_failed": dict(fetch_failed),
            "fetch_skipped": sum(1 for i in items if i.get("fetch", {}).get("status") == "skipped"),
            "abstract_only": sum(1 for i in items if i.get("abstract_only")),
            "metadata_only": sum(
                1
                for i in items
                if i.get("metadata_only") and (i.get("ingest") or {}).get("status") == "created"
            ),
            "attachments": sum(1 for i in items if (i.get("fetch") or {}).get("attachment")),
            "upgraded": sum(1 for i in items if (i.get("ingest") or {}).get("upgraded")),
            "failed_reasons": dict(
                Counter(
                    str(i.get("failure_reason") or "error") for i in items if i["stage"] == "failed"
                )
            ),
            "ingested": ingest.get("created", 0),
            "ingest_duplicates": ingest.get("duplicate", 0),
            "linked": stages.get("linked", 0),
            "failed": stages.get("failed", 0),
            "stages": dict(stages),
        }

    def _stage_summary(self) -> str:
        stages = self.counts()["stages"]
        return ", ".join(f"{n} {s}" for s, n in sorted(stages.items()))

    def _progress(self) -> float:
        items: list[dict[str, Any]] = self.state.get("candidates", [])
        if not items:
            return 0.95
        weight = {"deduped": 0.0, "fetched": 0.3, "ingested": 0.7}
        done = sum(
            1.0 if i["stage"] in TERMINAL_STAGES else weight.get(i["stage"], 0.0) for i in items
        )
        return round(0.15 + 0.8 * done / len(items), 4)

    async def _set(self, item: dict[str, Any], stage: Stage, **values: Any) -> None:
        item.update(values)
        item["stage"] = stage
        await self._save()
