"""Research, second half: fetch each selected candidate (3 at a time, SSRF guard),
ingest it (abstract-only when no full text is reachable) and link it — the knowledge
update, in the same job (invariant 9)."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from marginalia.db.repositories import sources as sources_repo
from marginalia.discovery.run_state import ResearchRunBase
from marginalia.discovery.support import (
    TERMINAL_STAGES,
    abstract_document,
    candidate_metadata,
    default_fetcher,
    is_local_path,
    slug_of,
)
from marginalia.errors import MarginaliaError
from marginalia.ingest.metadata_only import store_metadata_only
from marginalia.ingest.pipeline import IngestItem, IngestOutcome, ingest_document, ingest_many
from marginalia.ingest.validation import IngestRefused
from marginalia.knowledge.update import (
    KnowledgeUpdate,
    PreparedBatch,
    apply_batch,
    prepare_batch,
    update_for_source,
)
from marginalia.sources.candidate import Candidate
from marginalia.sources.fetch import FetchError, SafeFetcher

_ATTACHMENT_TYPES = {
    ".pdf": "application/pdf",
    ".html": "text/html",
    ".htm": "text/html",
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".txt": "text/plain",
}
_EXTENSIONS = {
    "application/pdf": ".pdf",
    "text/html": ".html",
    "text/markdown": ".md",
    "text/plain": ".txt",
}


def _full_text_fields(candidate: Candidate, fetch: dict[str, Any]) -> dict[str, Any]:
    """How a fetched full text is ingested: its name, type and the candidate's metadata
    (one place for the batched and the one-at-a-time path)."""
    ext = _EXTENSIONS.get(str(fetch.get("content_type")), ".html")
    return {
        "filename": slug_of(candidate.title) + ext,
        "content_type": fetch.get("content_type"),
        "metadata": candidate_metadata(candidate, abstract_only=False),
    }


def _abstract_fields(candidate: Candidate) -> dict[str, Any]:
    """How a candidate's abstract is ingested when its full text is not."""
    return {
        "filename": slug_of(candidate.title) + ".md",
        "content_type": "text/markdown",
        "metadata": candidate_metadata(candidate, abstract_only=True),
    }


@dataclass
class LinkPlan:
    """A batch of candidates ready to link (``AcquireStages._prepare_link``)."""

    todo: list[dict[str, Any]]
    prepared: PreparedBatch | None
    error: MarginaliaError | None = None


def _constant(data: bytes) -> Callable[[], bytes]:
    return lambda: data


class AcquireStages(ResearchRunBase):
    """Fetch → ingest → link, per candidate."""

    async def _process(self) -> None:
        items: list[dict[str, Any]] = self.state["candidates"]
        todo = [i for i in items if i["stage"] not in TERMINAL_STAGES]
        if not todo:
            return
        ready: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        to_fetch = []
        for item in todo:
            if item["stage"] in ("found", "deduped"):
                to_fetch.append(item)
            else:
                ready.put_nowait(item)
        fetcher = self.fetcher or default_fetcher(self.ctx.settings)

        async def fetch_then_queue(item: dict[str, Any]) -> None:
            try:
                await self._fetch(fetcher, item)
            finally:
                ready.put_nowait(item)

        # Three stages overlap. Downloads run concurrently (the fetcher allows
        # settings.sources.concurrent_downloads at once); ingest takes what has been
        # fetched by then together (one ingest_many, at most ``batch_size``, in the order
        # the downloads finished); the knowledge update links what was ingested in batches
        # (one update_for_sources each), taking everything ingested while it linked the
        # previous batch. Ingest stays at most ``batch_size`` candidates ahead of linking.
        # (No TaskGroup: a cancellation must stay a JobCancelled, not an ExceptionGroup.)
        batch_size = self.ctx.settings.knowledge.link_batch
        tasks = [asyncio.create_task(fetch_then_queue(item)) for item in to_fetch]
        to_link: list[dict[str, Any]] = []
        changed = asyncio.Event()
        ingest_done = False

        async def link_batches() -> None:
            while to_link or not ingest_done:
                if not to_link:
                    changed.clear()
                    await changed.wait()
                    continue
                batch = to_link[:batch_size]
                del to_link[:batch_size]
                changed.set()  # room for ingest again
                self.check_cancelled()
                await self._link_batch(batch)

        linker = asyncio.create_task(link_batches())

        async def wait_for_linker() -> None:
            """Until the linker takes a batch (or fails: then its error is raised here)."""
            changed.clear()
            waiter = asyncio.ensure_future(changed.wait())
            try:
                await asyncio.wait({waiter, linker}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                waiter.cancel()
            if linker.done():
                linker.result()

        try:
            remaining = len(todo)
            while remaining:
                # everything fetched by now (up to a batch) is ingested together
                batch = [await ready.get()]
                while len(batch) < batch_size and not ready.empty():
                    batch.append(ready.get_nowait())
                remaining -= len(batch)
                self.check_cancelled()
                if linker.done():
                    linker.result()  # surface an error of the linker
                await self._ingest_batch([i for i in batch if i["stage"] == "fetched"])
                for item in batch:
                    if item["stage"] != "ingested" or self.options.defer_knowledge:
                        continue  # deferred: linked after every entry is in (pipeline.py)
                    while len(to_link) >= batch_size:
                        await wait_for_linker()
                    to_link.append(item)
                    changed.set()
            ingest_done = True
            changed.set()
            await linker
            for task in tasks:
                task.result()  # surface an unexpected error of a download task
        finally:
            for task in [*tasks, linker]:
                task.cancel()
            await asyncio.gather(*tasks, linker, return_exceptions=True)

    async def _fetch(self, fetcher: SafeFetcher, item: dict[str, Any]) -> None:
        candidate = Candidate.model_validate(item["candidate"])
        if candidate.file_key:  # an imported attachment, already stored: nothing to fetch
            name = candidate.file_name or "attachment"
            await self._set(
                item,
                "fetched",
                fetch={
                    "status": "ok",
                    "url": name,
                    "attachment": True,
                    "content_type": _ATTACHMENT_TYPES.get(Path(name).suffix.lower()),
                    "file_key": candidate.file_key,
                },
            )
            return
        target = candidate.pdf_url or (candidate.url if candidate.origin == "brave" else None)
        t = time.perf_counter()
        if not self.options.fetch or not target:
            reason = "fetch_disabled" if not self.options.fetch else "no_full_text_link"
            await self._set(item, "fetched", fetch={"status": "skipped", "reason": reason})
            return
        try:
            if is_local_path(target) and candidate.origin == "catalog":
                data, content_type, final = await self._read_catalog_file(target)
            else:
                doc = await fetcher.fetch(target)
                data, content_type, final = doc.data, doc.content_type, doc.final_url
        except FetchError as exc:
            failed: dict[str, Any] = {
                "status": "failed",
                "reason": exc.reason,
                "message": exc.message,
                "url": target,
                "ms": round((time.perf_counter() - t) * 1000, 1),
            }
            await self._set(item, "fetched", fetch=failed)
            await self.emit(
                f"fetch failed ({exc.reason}): {candidate.title[:70]}",
                "fetch",
                self._progress(),
                {"key": item["key"], "status": "failed", "reason": exc.reason, "url": target},
            )
            return
        stored = await asyncio.to_thread(self.ctx.files.put, data)
        fetch: dict[str, Any] = {
            "status": "ok",
            "url": target,
            "final_url": final,
            "content_type": content_type,
            "file_key": stored.key,
            "bytes": len(data),
            "ms": round((time.perf_counter() - t) * 1000, 1),
        }
        await self._set(item, "fetched", fetch=fetch)
        await self.emit(
            f"fetched {len(data) // 1024} KiB: {candidate.title[:70]}",
            "fetch",
            self._progress(),
            {"key": item["key"], "status": "ok", "bytes": len(data), "url": target},
        )

    async def _read_catalog_file(self, path: str) -> tuple[bytes, str, str]:
        """A PDF listed by the user's own catalog folder (no network involved)."""
        settings = self.ctx.settings
        file = Path(path)
        root = settings.catalog_path
        if root is None or not file.resolve().is_relative_to(Path(root).expanduser().resolve()):
            raise FetchError(
                "invalid_url", f"{path} is not inside the configured catalog", url=path
            )
        cap = settings.sources.max_download_mb * 1024 * 1024
        try:
            size = file.stat().st_size
            if size > cap:
                raise FetchError("too_large", f"{path} is larger than the download cap", url=path)
            data = await asyncio.to_thread(file.read_bytes)
        except OSError as exc:
            raise FetchError("unreachable", f"cannot read {path}: {exc}", url=path) from exc
        return data, "application/pdf", str(file)

    async def _ingest_batch(self, batch: list[dict[str, Any]]) -> None:
        """Ingest fetched candidates together: ``ingest_many`` embeds their passages in
        shared calls (fewer, fuller embedding calls than one document at a time). Anything
        out of the ordinary — an unreadable stored file, no abstract, a refused document —
        goes through :meth:`_ingest` alone, which handles it as before."""
        if len(batch) < 2:
            for item in batch:
                await self._ingest(item)
            return
        t = time.perf_counter()
        plans: list[tuple[dict[str, Any], IngestItem, str | None]] = []
        alone: list[dict[str, Any]] = []
        for item in batch:
            candidate = Candidate.model_validate(item["candidate"])
            fetch = item.get("fetch") or {}
            if fetch.get("status") == "ok":
                try:
                    data = await asyncio.to_thread(self.ctx.files.get, str(fetch["file_key"]))
                except (OSError, KeyError):
                    alone.append(item)
                    continue
                doc = IngestItem(load=_constant(data), **_full_text_fields(candidate, fetch))
                plans.append((item, doc, None))
                continue
            abstract = abstract_document(candidate)
            if abstract is None:
                alone.append(item)
                continue
            doc = IngestItem(load=_constant(abstract), **_abstract_fields(candidate))
            plans.append((item, doc, str(fetch.get("reason") or "no_full_text_link")))
        results: dict[int, IngestOutcome | MarginaliaError] = {}
        if plans:
            async for n, done in ingest_many(
                self.ctx,
                self.workspace_id,
                [doc for _, doc, _ in plans],
                sources=self.known_sources,
            ):
                results[n] = done
        share = (time.perf_counter() - t) / max(1, len(plans))
        for n, (item, _, abstract_reason) in enumerate(plans):
            outcome = results.get(n)
            if isinstance(outcome, IngestOutcome):
                await self._record_ingested(item, outcome, abstract_reason, share)
            else:
                alone.append(item)
        for item in alone:
            self.check_cancelled()
            await self._ingest(item)

    async def _ingest(self, item: dict[str, Any]) -> None:
        candidate = Candidate.model_validate(item["candidate"])
        fetch = item.get("fetch") or {}
        t = time.perf_counter()
        outcome = None
        abstract_reason: str | None = None
        if fetch.get("status") == "ok":
            try:
                data = await asyncio.to_thread(self.ctx.files.get, str(fetch["file_key"]))
                outcome = await ingest_document(
                    self.ctx,
                    self.workspace_id,
                    data=data,
                    sources=self.known_sources,
                    **_full_text_fields(candidate, fetch),
                )
            except IngestRefused as exc:
                abstract_reason = f"parse_{exc.code}"
                item["parse_error"] = exc.detail
                await self._drop_if_unused(str(fetch["file_key"]))
            except (OSError, KeyError) as exc:
                abstract_reason = "file_missing"
                item["parse_error"] = str(exc)
        else:
            abstract_reason = str(fetch.get("reason") or "no_full_text_link")
        if outcome is None:
            data_or_none = abstract_document(candidate)
            if data_or_none is None and self.options.metadata_only:
                await self._store_metadata_only(item, candidate, abstract_reason)
                return
            if data_or_none is None:
                await self._set(
                    item,
                    "failed",
                    error="no full text and no abstract",
                    failure_reason="no_text",
                    abstract_reason=abstract_reason,
                )
                await self.emit(
                    f"skipped (no full text, no abstract): {candidate.title[:70]}",
                    "ingest",
                    self._progress(),
                    {"key": item["key"], "status": "failed", "reason": "no_text"},
                )
                return
            try:
                outcome = await ingest_document(
                    self.ctx,
                    self.workspace_id,
                    data=data_or_none,
                    sources=self.known_sources,
                    **_abstract_fields(candidate),
                )
            except IngestRefused as exc:
                await self._set(item, "failed", error=exc.detail, failure_reason=exc.code)
                await self.emit(
                    f"ingest refused ({exc.code}): {candidate.title[:70]}",
                    "ingest",
                    self._progress(),
                    {"key": item["key"], "status": "failed", "reason": exc.code},
                )
                return
        await self._record_ingested(item, outcome, abstract_reason, time.perf_counter() - t)

    async def _drop_if_unused(self, key: str) -> None:
        """A refused download (say, a decompression bomb) leaves no file behind, unless a
        source uses the same bytes."""
        async with self.ctx.db.session() as session:
            in_use = await sources_repo.file_key_in_use(session, key)
        if not in_use:
            with contextlib.suppress(OSError, KeyError):
                await asyncio.to_thread(self.ctx.files.delete, key)

    async def _record_ingested(
        self,
        item: dict[str, Any],
        outcome: IngestOutcome,
        abstract_reason: str | None,
        seconds: float,
    ) -> None:
        candidate = Candidate.model_validate(item["candidate"])
        abstract_only = abstract_reason is not None
        await self._set(
            item,
            "ingested",
            source_id=str(outcome.source_id),
            abstract_only=abstract_only,
            abstract_reason=abstract_reason,
            ingest={
                "status": outcome.status,
                "layer": outcome.dedup_layer,
                "chunks": outcome.chunks,
                "upgraded": outcome.upgraded,
                "ms": round(seconds * 1000, 1),
            },
        )
        what = "abstract only" if abstract_only else f"{outcome.chunks} passages"
        if outcome.upgraded:
            what += ", filling in its metadata-only source"
        if outcome.status == "duplicate":
            what = f"already stored ({outcome.dedup_layer} layer)"
        await self.emit(
            f"ingested ({what}): {candidate.title[:70]}",
            "ingest",
            self._progress(),
            {
                "key": item["key"],
                "status": outcome.status,
                "ms": item["ingest"]["ms"],
                "source_id": str(outcome.source_id),
                "abstract_only": abstract_only,
                "reason": abstract_reason,
                "dedup_layer": outcome.dedup_layer,
            },
        )

    async def _store_metadata_only(
        self, item: dict[str, Any], candidate: Candidate, reason: str | None
    ) -> None:
        """No text and no abstract: the entry is kept as its metadata alone."""
        t = time.perf_counter()
        outcome = await store_metadata_only(
            self.ctx,
            self.workspace_id,
            candidate_metadata(candidate, abstract_only=False),
            name=candidate.title,
            sources=self.known_sources,
        )
        await self._set(
            item,
            "ingested",
            source_id=str(outcome.source_id),
            abstract_only=False,
            metadata_only=True,
            abstract_reason=reason,
            ingest={
                "status": outcome.status,
                "layer": outcome.dedup_layer,
                "chunks": 0,
                "ms": round((time.perf_counter() - t) * 1000, 1),
            },
        )
        what = "metadata only" if outcome.status == "created" else "already stored"
        await self.emit(
            f"ingested ({what}): {candidate.title[:70]}",
            "ingest",
            self._progress(),
            {
                "key": item["key"],
                "status": outcome.status,
                "source_id": str(outcome.source_id),
                "metadata_only": True,
                "reason": reason,
            },
        )

    async def _needs_linking(self, source_id: uuid.UUID) -> bool:
        async with self.ctx.db.session() as session:
            source = await sources_repo.get(session, source_id)
        return source is not None and source.extraction_engine is None

    async def _wants_linking(self, item: dict[str, Any]) -> bool:
        if item.get("metadata_only"):  # no text to read: knowledge waits for its upgrade
            return False
        created = (item.get("ingest") or {}).get("status") == "created"
        source_id = uuid.UUID(str(item["source_id"]))
        return self.options.link and (created or await self._needs_linking(source_id))

    async def _link_batch(self, batch: list[dict[str, Any]]) -> None:
        """Link ingested candidates with one knowledge update; the checkpoint marks them
        linked once it committed (a crash before: they are linked again, idempotently).
        When the batch update fails, each is linked alone, so a failure stays its own."""
        await self._apply_link(await self._prepare_link(batch))

    async def _prepare_link(self, batch: list[dict[str, Any]]) -> LinkPlan:
        """The first half of :meth:`_link_batch`, nothing written to the knowledge: which
        candidates need linking (the others are marked linked), their sources read,
        extracted and embedded (``knowledge.update.prepare_batch``) — or the error that
        sends them to be linked one by one."""
        todo: list[dict[str, Any]] = []
        for item in batch:
            if await self._wants_linking(item):
                todo.append(item)
            else:
                item.update(stage="linked", knowledge=None)
        if not todo:
            return LinkPlan(todo, None)
        ids = [uuid.UUID(str(item["source_id"])) for item in todo]
        try:
            return LinkPlan(
                todo, await prepare_batch(self.ctx, self.workspace_id, ids, llm=self.llm)
            )
        except MarginaliaError as exc:
            return LinkPlan(todo, None, exc)

    async def _apply_link(self, plan: LinkPlan) -> None:
        """The second half of :meth:`_link_batch`: one transaction for the batch."""
        todo = plan.todo
        if not todo:
            await self._save()
            return
        updates: list[KnowledgeUpdate] | None = None
        if plan.prepared is not None:
            t = plan.prepared.started
            with contextlib.suppress(MarginaliaError):
                updates = await apply_batch(self.ctx, self.workspace_id, plan.prepared)
        if updates is None:
            await self._save()
            for item in todo:
                await self._link(item)
            return
        ids = [uuid.UUID(str(item["source_id"])) for item in todo]
        ms = (time.perf_counter() - t) * 1000
        by_source = {u.source_id: u for u in updates}
        for item, source_id in zip(todo, ids, strict=True):
            update = by_source[source_id]
            item.update(
                stage="linked",
                knowledge={
                    "concepts": update.concepts,
                    "claims": update.claims,
                    "wiki_pages": len(update.wiki_pages),
                    "quality": update.quality,
                    "engine": update.engine,
                    # the batch's time, shared among its sources
                    "ms": round(ms / len(todo), 1),
                    "batch": len(todo),
                    "batch_ms": round(ms, 1),
                },
            )
        await self._save()
        for item in todo:
            knowledge = item["knowledge"]
            await self.emit(
                f"linked: {knowledge['claims']} claims, {knowledge['concepts']} concepts "
                "in the workspace",
                "link",
                self._progress(),
                {"key": item["key"], "source_id": str(item["source_id"]), **knowledge},
            )

    async def _link(self, item: dict[str, Any]) -> None:
        source_id = uuid.UUID(str(item["source_id"]))
        created = (item.get("ingest") or {}).get("status") == "created"
        if item.get("metadata_only"):  # no text to read: knowledge waits for its upgrade
            await self._set(item, "linked", knowledge=None)
            return
        if not self.options.link or not (created or await self._needs_linking(source_id)):
            await self._set(item, "linked", knowledge=None)
            return
        t = time.perf_counter()
        try:
            # Bounded per-source update; the research/import job refreshes the graph-wide
            # statistics once at its end (usecases.research).
            update = await update_for_source(
                self.ctx, self.workspace_id, source_id, llm=self.llm, refresh=False
            )
        except MarginaliaError as exc:
            # The source is stored and visible; its knowledge can be rebuilt later.
            await self._set(item, "linked", knowledge={"error": exc.detail})
            await self.emit(
                f"knowledge update failed: {exc.detail}",
                "link",
                self._progress(),
                {"key": item["key"]},
            )
            return
        knowledge = {
            "concepts": update.concepts,
            "claims": update.claims,
            "wiki_pages": len(update.wiki_pages),
            "quality": update.quality,
            "engine": update.engine,
            "ms": round((time.perf_counter() - t) * 1000, 1),
        }
        await self._set(item, "linked", knowledge=knowledge)
        await self.emit(
            f"linked: {update.claims} claims, {update.concepts} concepts in the workspace",
            "link",
            self._progress(),
            {"key": item["key"], "source_id": str(source_id), **knowledge},
        )
