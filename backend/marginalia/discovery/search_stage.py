"""Research, first half: decompose the description, search every source at once and
dedup the results (against the workspace and within the run)."""

from __future__ import annotations

import asyncio
import dataclasses
import re
import uuid
from collections import Counter
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np

from marginalia.db.repositories import sources as sources_repo
from marginalia.discovery.relevance import rank_candidates
from marginalia.discovery.run_state import ResearchRunBase
from marginalia.discovery.support import (
    RECOMMENDATION_TITLE_MATCH,
    SOURCE_DOWN,
    SearchHit,
    default_clients,
    jsonable_candidate,
    merge_into,
    scholarly,
)
from marginalia.ingest.dedup import DedupIndex, DedupRecord, embedding_layer_applies
from marginalia.ingest.dedup import identity_keys as stored_identity_keys
from marginalia.knowledge.text import jaccard, title_tokens
from marginalia.knowledge.vectors import embed_leads
from marginalia.sources.arxiv_client import ArxivClient
from marginalia.sources.base import SourceClient, SourceError, describe_failure
from marginalia.sources.brave_client import BraveClient
from marginalia.sources.candidate import Candidate
from marginalia.sources.openalex_client import OpenAlexClient

from .decompose import Decomposition, PaperRecommendation, decompose

CATALOG_POOL_FACTOR = 3


class SearchStages(ResearchRunBase):
    """Decompose → search → dedup."""

    # -------------------------------------------------------------- decompose

    async def _decompose(self) -> None:
        provider = self.llm if self.llm is not None else self.ctx.llm
        decomposition: Decomposition = await decompose(self.description, provider=provider)
        if self.options.queries:
            decomposition = decomposition.model_copy(update={"queries": self.options.queries})
        self.state["decomposition"] = decomposition.as_dict()
        await self._save()
        recs = len(decomposition.recommendations)
        message = f"intent {decomposition.intent}; queries: " + "; ".join(decomposition.queries)
        message += f"; {recs} recommended papers" if recs else f" ({decomposition.note})"
        await self.emit(
            message,
            "decompose",
            0.05,
            {
                "intent": decomposition.intent,
                "queries": decomposition.queries,
                "recommendations": [r.title for r in decomposition.recommendations],
                "engine": decomposition.engine,
                "note": decomposition.note,
                "fallback_reason": decomposition.fallback_reason,
            },
        )

    # -------------------------------------------------------------- search

    def _clients(self) -> list[SourceClient]:
        clients = list(self.clients) if self.clients is not None else None
        if clients is None:
            clients = default_clients(self.ctx.settings)
        if self.options.sources:
            wanted = set(self.options.sources)
            clients = [c for c in clients if c.name in wanted]
        return clients

    async def _search(self) -> None:
        decomposition = Decomposition.model_validate(self.state["decomposition"])
        limit = self.options.per_source_limit or self.ctx.settings.sources.max_results_per_query
        clients = self._clients()
        await self.emit(
            f"searching {', '.join(c.name for c in clients)} for "
            f"{len(decomposition.queries)} queries",
            "search",
            0.06,
            {"sources": [c.name for c in clients], "queries": decomposition.queries},
        )
        outcomes = await asyncio.gather(
            *(
                self._search_one(c, decomposition.queries, decomposition.recommendations, limit)
                for c in clients
            )
        )
        reports: dict[str, dict[str, Any]] = {}
        hits: list[SearchHit] = []
        for client, (found, report) in zip(clients, outcomes, strict=True):
            reports[client.name] = report
            hits.extend(found)
        self.state["search"] = {"sources": reports, "found": len(hits)}
        self._hits = hits
        per_source = ", ".join(
            f"{name} {r['found']}"
            if r["status"] == "ok"
            else f"{name} {r['status']} ({r['reason']})"
            for name, r in reports.items()
        )
        await self.emit(
            f"found {len(hits)} results: {per_source}",
            "search",
            0.1,
            {"found": len(hits), "sources": reports},
        )

    def _pool_limit(self, client: SourceClient, limit: int) -> int:
        """The local catalog is asked for a wider pool when the run ranks by relevance
        (cheap, no rate limit; measured in eval/research_relevance.py): the ranking then
        has relevant papers to choose from that a query put lower."""
        if client.name == "catalog" and self.options.rank_by_relevance:
            return limit * CATALOG_POOL_FACTOR
        return limit

    async def _search_one(
        self,
        client: SourceClient,
        queries: Sequence[str],
        recommendations: Sequence[PaperRecommendation],
        limit: int,
    ) -> tuple[list[SearchHit], dict[str, Any]]:
        hits: list[SearchHit] = []
        errors: list[dict[str, Any]] = []
        report: dict[str, Any] = {"status": "ok", "found": 0, "reason": None, "message": None}
        down = False
        for query in queries:
            self.check_cancelled()
            try:
                found = await client.search(query, limit=self._pool_limit(client, limit))
            except SourceError as exc:
                errors.append({"query": query, "reason": exc.reason, "message": exc.message})
                if exc.reason in SOURCE_DOWN:
                    down = True
                    break
                continue
            hits.extend(SearchHit(client.name, query, i, c) for i, c in enumerate(found))
        if not down:
            for rec in recommendations:
                try:
                    match = await self._resolve_recommendation(client, rec)
                except SourceError as exc:
                    errors.append(
                        {"query": rec.title, "reason": exc.reason, "message": exc.message}
                    )
                    if exc.reason in SOURCE_DOWN:
                        break
                    continue
                if match is not None:
                    hits.append(SearchHit(client.name, rec.title, 0, match, recommended=True))
        report["found"] = len(hits)
        report["errors"] = errors
        if errors:
            first = errors[0]
            if not hits and (down or len(errors) >= len(queries)):
                status = "skipped" if first["reason"] == "not_configured" else "failed"
            else:
                status = "partial"
            report.update(status=status, reason=first["reason"], message=first["message"])
            report["summary"] = describe_failure(client.name, first["reason"], first["message"])
        if report["status"] != "ok":
            await self.emit(
                report["summary"] + ("" if report["status"] != "partial" else " (partly)"),
                "search",
                None,
                {"source": client.name, **report},
            )
        return hits, report

    async def _resolve_recommendation(
        self, client: SourceClient, rec: PaperRecommendation
    ) -> Candidate | None:
        if isinstance(client, OpenAlexClient):
            found = await client.search_title(rec.title, limit=1)
        elif isinstance(client, ArxivClient):
            words = " ".join(re.findall(r"[A-Za-z0-9]+", rec.title))
            found = await client.search(f'ti:"{words}"', limit=1)
        elif isinstance(client, BraveClient):
            return None  # web pages are not papers; the scholarly sources resolve titles
        else:
            found = await client.search(rec.title, limit=1)
        if not found:
            return None
        best = found[0]
        if jaccard(title_tokens(best.title), title_tokens(rec.title)) < RECOMMENDATION_TITLE_MATCH:
            return None
        return best

    # -------------------------------------------------------------- dedup

    async def _known_records(self) -> list[tuple[DedupRecord, str]]:
        async with self.ctx.db.session() as session:
            rows = [
                SimpleNamespace(**row)
                for row in await sources_repo.identities(
                    session, self.workspace_id, with_abstract=True
                )
            ]
        out: list[tuple[DedupRecord, str]] = []
        for row in rows:
            keys = set(
                stored_identity_keys(
                    doi=row.doi, arxiv_id=row.arxiv_id, openalex_id=row.openalex_id
                )
            )
            if row.normalized_url:
                keys.add("url:" + str(row.normalized_url))
            text = f"{row.title or ''}. {row.abstract or ''}".strip(" .")
            record = DedupRecord(
                id=row.id,
                title=row.title,
                keys=frozenset(keys),
                authors=tuple(row.authors or ()),
                year=row.year,
            )
            out.append((record, text))
        return out

    async def _metadata_only_ids(self) -> set[uuid.UUID]:
        """The workspace's metadata-only sources: a hit with a PDF upgrades one of them."""
        async with self.ctx.db.session() as session:
            rows = await sources_repo.identities(session, self.workspace_id)
        return {row["id"] for row in rows if row.get("kind") == "metadata"}

    def _ordered_hits(self) -> list[SearchHit]:
        """Recommended papers first, then round-robin over (source, query) result lists."""
        hits = self._hits
        recommended = [h for h in hits if h.recommended]
        lists: dict[tuple[str, str], list[SearchHit]] = {}
        for h in hits:
            if not h.recommended:
                lists.setdefault((h.source, h.query), []).append(h)
        ordered = list(recommended)
        depth = max((len(v) for v in lists.values()), default=0)
        for i in range(depth):
            for items in lists.values():
                if i < len(items):
                    ordered.append(items[i])
        return ordered

    async def _dedup(self) -> None:
        known = await self._known_records()
        metadata_only = await self._metadata_only_ids()
        kept: list[dict[str, Any]] = []
        kept_records: list[DedupRecord] = []
        kept_text: list[str] = []
        # layers 1–2 through indexes (as a scan in order would answer; a 2,000-entry
        # import scanned the file's earlier entries for every entry)
        known_index = DedupIndex(r for r, _ in known)
        kept_index = DedupIndex()  # this run's candidates; ids are positions
        layers: Counter[str] = Counter()
        known_layers: Counter[str] = Counter()
        known_ids: set[str] = set()
        for hit in self._ordered_hits():
            c = hit.candidate
            record = DedupRecord(
                id=None,
                title=c.title,
                keys=frozenset(c.identity_keys()),
                authors=tuple(c.authors),
                year=c.year,
            )
            # layers 1–2 against the workspace's sources: the run reuses what it knows
            known_match = known_index.match(record, title_threshold=self._title_threshold)
            if known_match is not None and (
                known_match.existing_id not in metadata_only or not (c.pdf_url or c.file_key)
            ):
                known_layers[known_match.layer] += 1
                known_ids.add(str(known_match.existing_id))
                continue
            # layers 1–2 against this run's candidates (ids are positions)
            match = kept_index.match(record, title_threshold=self._title_threshold)
            if match is not None:
                layers[match.layer] += 1
                target = kept[match.existing_id.int - 1]
                merge_into(target, c)
                target["via"].append(f"{hit.source}:{hit.query}")
                continue
            kept.append(
                {
                    "key": f"c{len(kept)}",
                    "candidate": jsonable_candidate(c),
                    "via": [f"{hit.source}:{hit.query}"],
                    "recommended": hit.recommended,
                    "stage": "found",
                }
            )
            kept_records.append(record)
            kept_index.add(dataclasses.replace(record, id=uuid.UUID(int=len(kept_records))))
            kept_text.append(f"{c.title}. {c.abstract or ''}".strip(" ."))

        # layer 3: title+abstract embeddings, only where one side lacks a scholarly id
        dropped_by_embedding = await self._embedding_layer(
            kept, kept_records, kept_text, known, layers, known_layers, known_ids
        )
        survivors = [k for i, k in enumerate(kept) if i not in dropped_by_embedding]
        if self.options.rank_by_relevance and survivors:
            survivors = await self._ranked(survivors)
        selected = survivors[: max(0, self.options.max_sources)]
        over_limit = len(survivors) - len(selected)
        for i, item in enumerate(selected):
            item["key"] = f"c{i}"
            item["stage"] = "deduped"
        found = int(self.state["search"]["found"])
        counts = {
            "found": found,
            "unique": len(survivors),
            "duplicates": dict(layers),
            "duplicates_total": sum(layers.values()),
            "known": dict(known_layers),
            "known_total": sum(known_layers.values()),
            "known_sources": len(known_ids),
            "selected": len(selected),
            "over_limit": over_limit,
        }
        self.state["dedup"] = counts
        self.state["candidates"] = selected
        await self._save(force=True)  # the selection: a resumed run never searches again
        by_layer = ", ".join(f"{n} by {layer}" for layer, n in sorted(layers.items())) or "none"
        await self.emit(
            f"{found} found → {len(survivors)} unique (duplicates dropped: {by_layer}); "
            f"{counts['known_total']} already in the workspace; {len(selected)} selected"
            + (
                f" ({over_limit} over the limit of {self.options.max_sources})"
                if over_limit
                else ""
            ),
            "dedup",
            0.15,
            {
                **counts,
                "why": [
                    {"title": k["candidate"]["title"], "why": k["why"]}
                    for k in selected
                    if k.get("why")
                ],
            },
        )

    async def _ranked(self, survivors: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The survivors by relevance to the workspace (its description, its sources'
        centroid), papers the decomposition recommended by name first; each with its
        score and why."""
        async with self.ctx.db.session() as session:
            centroid = await sources_repo.embedding_centroid(session, self.workspace_id)
        candidates = [Candidate.model_validate(k["candidate"]) for k in survivors]
        ranked = await rank_candidates(self.ctx.embedder, self.description, candidates, centroid)
        ordered = []
        for r in ranked:
            item = survivors[r.index]
            item["relevance"] = r.score
            item["why"] = ("recommended by name; " if item.get("recommended") else "") + r.why
            ordered.append(item)
        ordered.sort(key=lambda k: not k.get("recommended"))  # stable: ranks kept
        return ordered

    async def _embedding_layer(
        self,
        kept: list[dict[str, Any]],
        records: list[DedupRecord],
        texts: list[str],
        known: list[tuple[DedupRecord, str]],
        layers: Counter[str],
        known_layers: Counter[str],
        known_ids: set[str],
    ) -> set[int]:
        involved = [r.keys for r in records] + [r.keys for r, _ in known]
        if not kept or all(scholarly(k) for k in involved):
            return set()
        embedder = self.ctx.embedder
        vectors = await embed_leads(embedder, [*texts, *(t for _, t in known)])
        run_vecs, known_vecs = vectors[: len(texts)], vectors[len(texts) :]
        dropped: set[int] = set()
        for i, record in enumerate(records):
            # against the workspace's sources
            if len(known_vecs):
                sims = known_vecs @ run_vecs[i]
                order = np.argsort(-sims)
                hit = next(
                    (
                        int(j)
                        for j in order
                        if sims[j] >= self._embedding_threshold
                        and embedding_layer_applies(record, known[int(j)][0])
                    ),
                    None,
                )
                if hit is not None:
                    dropped.add(i)
                    known_layers["embedding"] += 1
                    known_ids.add(str(known[hit][0].id))
                    continue
            # against earlier candidates of this run
            for j in range(i):
                if j in dropped:
                    continue
                if float(run_vecs[j] @ run_vecs[i]) >= self._embedding_threshold and (
                    embedding_layer_applies(record, records[j])
                ):
                    dropped.add(i)
                    layers["embedding"] += 1
                    merge_into(kept[j], Candidate.model_validate(kept[i]["candidate"]))
                    kept[j]["via"].extend(kept[i]["via"])
                    break
        return dropped
