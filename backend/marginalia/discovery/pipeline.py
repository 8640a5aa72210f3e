"""The research pipeline: decompose → parallel search → dedup cascade → fetch and parse →
chunk → unified extraction → embed → store and link → quality (DESIGN §1).

One :class:`ResearchRun` is one run over one workspace. Its whole state lives in a plain
JSON dict (the job checkpoint, see :mod:`marginalia.discovery.jobs`): the decomposition,
the per-source search report, and every kept candidate with the last stage it completed::

    found → deduped → fetched → ingested → linked       (or dropped / failed)

A run started on a checkpoint skips what is done: the search is not repeated once its
candidates are recorded; a candidate whose fetch was recorded is not downloaded again
(the bytes are in the file store); an ingested one goes straight to linking. Ingest itself
is idempotent (content hash, identity and title layers), so a crash between a commit and
the checkpoint write still creates no duplicate (invariant 5).

Every collaborator is injectable: source clients, the fetcher, the LLM provider, the
event and checkpoint callbacks. Defaults come from settings.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Sequence
from typing import Any

from marginalia.discovery.acquire_stage import AcquireStages
from marginalia.discovery.search_stage import SearchStages
from marginalia.discovery.support import (
    CHECKPOINT_VERSION,
    Emit,
    ResearchContext,
    ResearchOptions,
    SaveState,
    no_emit,
    no_save,
    pipeline_slot,
)
from marginalia.errors import MarginaliaError, NotFoundError
from marginalia.llm.base import LLMProvider
from marginalia.sources.base import SourceClient
from marginalia.sources.fetch import SafeFetcher

DEFERRED_LINK_BATCH = 32
"""New sources per knowledge update when it is deferred to the end of a run: larger
than ``knowledge.link_batch`` (the work shared per batch — one read of the sources and
chunks, one embedding call, one transaction — is paid less often), small enough that a
batch's embeddings and a failed batch's retry source by source stay small."""


class ResearchRun(SearchStages, AcquireStages):
    """One research run over one workspace; ``state`` is its (resumable) checkpoint."""

    # -------------------------------------------------------------- entry point

    async def run(self) -> dict[str, Any]:
        settings = self.ctx.settings
        started = time.perf_counter()
        if self.state.get("version") not in (None, CHECKPOINT_VERSION):
            raise MarginaliaError(
                "this research checkpoint was written by another version; retry the job"
            )
        self.state.setdefault("version", CHECKPOINT_VERSION)
        self.state.setdefault("timings_ms", {})
        async with self.ctx.db.session() as session:
            from marginalia.db.repositories import workspaces as workspaces_repo

            if await workspaces_repo.get(session, self.workspace_id) is None:
                raise NotFoundError(f"no workspace with id {self.workspace_id}")

        async with pipeline_slot(settings, self.emit):
            if "decomposition" not in self.state:
                await self._timed("decompose", self._decompose())
            if "candidates" not in self.state:
                await self._timed("search", self._search())
                await self._timed("dedup", self._dedup())
            else:
                await self.emit("resuming: " + self._stage_summary(), "resume", None, self.counts())
            await self._timed("process", self._process())
            if self.options.defer_knowledge:
                await self._timed("link_deferred", self._link_deferred())
        total = (time.perf_counter() - started) * 1000
        self.state["timings_ms"]["total_last_attempt"] = round(total, 1)
        await self._save(force=True)
        result = self.result()
        await self.emit(self._final_message(result), "done", 1.0, result["counts"])
        return result

    async def _link_deferred(self) -> None:
        """The knowledge update deferred while the entries were ingested: every ingested
        candidate linked, :data:`DEFERRED_LINK_BATCH` per update (one transaction, one
        embedding call each), with a progress event per source as a linked batch commits.
        Bounded by the new sources; the caller refreshes the graph-wide statistics once."""
        pending = [i for i in self.state.get("candidates", []) if i["stage"] == "ingested"]
        if not pending:
            return
        await self.emit(
            f"updating the knowledge of {len(pending)} new sources",
            "link",
            self._progress(),
            {"deferred": len(pending)},
        )
        # The next batch is read, extracted and embedded while this one is written: the
        # embedder works while the database and the event loop apply the knowledge.
        batches = [
            pending[start : start + DEFERRED_LINK_BATCH]
            for start in range(0, len(pending), DEFERRED_LINK_BATCH)
        ]
        ahead = asyncio.ensure_future(self._prepare_link(batches[0]))
        try:
            for n in range(len(batches)):
                self.check_cancelled()
                plan = await ahead
                if n + 1 < len(batches):
                    ahead = asyncio.ensure_future(self._prepare_link(batches[n + 1]))
                await self._apply_link(plan)
        finally:
            ahead.cancel()
            await asyncio.gather(ahead, return_exceptions=True)

    # -------------------------------------------------------------- result

    def result(self) -> dict[str, Any]:
        items: list[dict[str, Any]] = self.state.get("candidates", [])
        return {
            "workspace_id": str(self.workspace_id),
            "decomposition": self.state.get("decomposition"),
            "sources": self.state.get("search", {}).get("sources", {}),
            "dedup": self.state.get("dedup", {}),
            "counts": self.counts(),
            "timings_ms": self.state.get("timings_ms", {}),
            "candidates": [
                {
                    "key": i["key"],
                    "title": i["candidate"]["title"],
                    "origin": i["candidate"]["origin"],
                    "stage": i["stage"],
                    "source_id": i.get("source_id"),
                    "abstract_only": i.get("abstract_only", False),
                    "metadata_only": i.get("metadata_only", False),
                    "entry": i["candidate"].get("source_id"),
                    "fetch": {
                        k: v
                        for k, v in (i.get("fetch") or {}).items()
                        if k in ("status", "reason", "url", "attachment")
                    },
                    "ingest": (i.get("ingest") or {}).get("status"),
                    "error": i.get("error"),
                    "why": i.get("why"),
                }
                for i in items
            ],
        }

    def _final_message(self, result: dict[str, Any]) -> str:
        c = result["counts"]
        failed = sum(c["fetch_failed"].values())
        return (
            f"{c['found']} found, {sum(c['duplicates'].values())} duplicates dropped, "
            f"{c['known']} already known, {c['fetched']} fetched, {failed} fetches failed, "
            f"{c['ingested']} ingested ({c['abstract_only']} abstract-only), {c['linked']} linked"
            + (f", {c['failed']} failed" if c["failed"] else "")
        )


async def run_research(
    ctx: ResearchContext,
    workspace_id: uuid.UUID,
    description: str,
    *,
    options: ResearchOptions | None = None,
    clients: Sequence[SourceClient] | None = None,
    fetcher: SafeFetcher | None = None,
    llm: LLMProvider | None = None,
    state: dict[str, Any] | None = None,
    emit: Emit = no_emit,
    save: SaveState = no_save,
) -> dict[str, Any]:
    """Run (or resume, given ``state``) the research pipeline; returns its result."""
    run = ResearchRun(
        ctx,
        workspace_id,
        description,
        options=options or ResearchOptions(),
        clients=clients,
        fetcher=fetcher,
        llm=llm,
        state=state if state is not None else {},
        emit=emit,
        save=save,
    )
    return await run.run()
