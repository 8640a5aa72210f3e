"""What an agent asks of a workspace (the MCP server's tools and resources,
:mod:`marginalia.mcp`): workspaces, passages for a query, a cited answer, one source's
record, adding a source by URL or DOI (through the safe fetcher), an evidence table, the
wiki pages.
Everything returns plain JSON-able data; workspaces are named by id, name or id prefix."""

from __future__ import annotations

import asyncio
import re
import uuid
from typing import Any
from urllib.parse import urlsplit

from marginalia.answer.schemas import Answer
from marginalia.errors import ValidationFailed
from marginalia.retrieval.hybrid import hybrid_search
from marginalia.runtime import Runtime
from marginalia.sources.candidate import normalize_doi
from marginalia.sources.fetch import FetchError, SafeFetcher
from marginalia.tables.export import exported_rows
from marginalia.usecases import ask as ask_usecase
from marginalia.usecases import knowledge as knowledge_usecase
from marginalia.usecases import sources as sources_usecase
from marginalia.usecases import tables as tables_usecase
from marginalia.usecases import workspaces as ws_usecase
from marginalia.usecases.jobs import get_job, job_events
from marginalia.usecases.lookup import resolve_id

MAX_PASSAGES = 20
ADD_SOURCE_WAIT_S = 300.0
TABLE_WAIT_S = 300.0


async def workspaces(rt: Runtime) -> list[dict[str, Any]]:
    out = []
    for w in await ws_usecase.list_workspaces(rt):
        counts = await ws_usecase.workspace_counts(rt, w.id)
        out.append(
            {"id": str(w.id), "name": w.name, "description": w.description, "counts": counts}
        )
    return out


async def _titles(rt: Runtime, workspace_id: uuid.UUID) -> dict[uuid.UUID, str]:
    items = await sources_usecase.list_sources(rt, workspace_id, limit=100_000, offset=0)
    return {s.id: s.title or s.file_name or str(s.id) for s in items}


async def search(rt: Runtime, workspace: str, query: str, limit: int = 8) -> dict[str, Any]:
    """The workspace's best passages for ``query`` (hybrid retrieval), each with its
    source, page, section and score."""
    ws = await ws_usecase.find_workspace(rt, workspace)
    k = max(1, min(int(limit), MAX_PASSAGES))
    result = await hybrid_search(rt, workspace_id=ws.id, query=query, k=k)
    titles = await _titles(rt, ws.id)
    return {
        "workspace": {"id": str(ws.id), "name": ws.name},
        "query": query,
        "passages": [
            {
                "rank": h.rank,
                "source_id": str(h.source_id),
                "source": titles.get(h.source_id, str(h.source_id)),
                "page": h.page_start,
                "page_end": h.page_end,
                "section": h.section_title or h.section_type,
                "score": round(h.score, 4),
                "text": h.text,
            }
            for h in result.hits
        ],
    }


def answer_payload(answer: Answer) -> dict[str, Any]:
    """An answer as an agent reads it: claims with their verbatim quotes and the cited
    passages (source, page; a wiki page by its slug when the answer went wiki-first), or
    the refusal."""
    passages = {p.n: p for p in answer.passages}

    def cited(n: int) -> dict[str, Any]:
        p = passages.get(n)
        if p is None:
            return {"n": n}
        return {
            "n": n,
            "source_id": str(p.source_id) if p.source_id else None,
            "source": p.document,
            "page": p.page,
            "section": p.section_title,
            "wiki_slug": p.wiki_slug,
        }

    return {
        "question": answer.question,
        "refused": answer.refused,
        "refusal": answer.refusal,
        "outcome": answer.outcome,
        "reason": answer.reason,
        # The best evidence, best first: what every outcome shows before any claim.
        "evidence": [
            {
                "text": e.text,
                "n": e.n,
                "source_id": str(e.source_id) if e.source_id else None,
                "source": e.document,
                "page": e.page,
                "chunk_id": e.chunk_id,
                "start": e.start,
                "end": e.end,
            }
            for e in answer.evidence
        ],
        "answer": answer.text,
        "claims": [
            {"text": c.text, "quote": c.quote, "citations": [cited(n) for n in c.citations]}
            for c in answer.claims
        ],
        "engine": answer.engine,
        "evidence_score": round(answer.evidence_score, 4),
        "notes": list(getattr(answer, "notes", []) or []),
    }


async def ask(rt: Runtime, workspace: str, question: str) -> dict[str, Any]:
    ws = await ws_usecase.find_workspace(rt, workspace)
    answer = await ask_usecase.answer(rt, question=question, workspace_id=ws.id)
    return {"workspace": {"id": str(ws.id), "name": ws.name}, **answer_payload(answer)}


async def source(rt: Runtime, ref: str) -> dict[str, Any]:
    """One source's record (id or unique id prefix), its summary and claims."""
    s = await sources_usecase.get_source(rt, await resolve_id(rt, "source", ref))
    claims = await knowledge_usecase.list_claims(rt, s.workspace_id, source_id=s.id)
    return {
        "id": str(s.id),
        "workspace_id": str(s.workspace_id),
        "kind": s.kind,
        "metadata_only": s.kind == "metadata",
        "abstract_only": s.abstract_only,
        "title": s.title,
        "authors": list(s.authors or []),
        "year": s.year,
        "venue": s.venue,
        "doi": s.doi,
        "arxiv_id": s.arxiv_id,
        "url": s.url,
        "pages": s.page_count,
        "abstract": s.abstract,
        "tldr": s.tldr,
        "summary": s.summary,
        "claims": [c.model_dump(mode="json", include={"text", "quote"}) for c in claims][:30],
    }


def _target(ref: str) -> tuple[str, str | None]:
    """A URL to fetch and the DOI it came from, for a URL or a DOI."""
    text = ref.strip()
    doi = normalize_doi(text)
    if doi:
        return f"https://doi.org/{doi}", doi
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValidationFailed(f"{ref!r} is neither an http(s) URL nor a DOI (10.xxxx/…)")
    return text, None


async def add_source(rt: Runtime, workspace: str, ref: str) -> dict[str, Any]:
    """Fetch a URL or DOI through the safe fetcher (the same SSRF guard and limits as
    research), ingest it as an upload would be, and wait for its job."""
    ws = await ws_usecase.find_workspace(rt, workspace)
    url, doi = _target(ref)
    fetcher = SafeFetcher.from_settings(rt.settings.sources)
    try:
        doc = await fetcher.fetch(url)
    except FetchError as exc:
        raise ValidationFailed(f"cannot fetch {url} ({exc.reason}): {exc}") from exc
    ext = {"application/pdf": ".pdf", "text/html": ".html", "text/plain": ".txt"}.get(
        doc.content_type, ".html"
    )
    stem = re.sub(r"[^A-Za-z0-9]+", "-", urlsplit(doc.final_url).path).strip("-")[-60:]
    upload = sources_usecase.Upload((stem or "source") + ext, doc.data, doc.content_type)
    submitted = await sources_usecase.submit_uploads(
        rt, ws.id, [upload], metadata={"url": doc.url, "doi": doi}
    )
    job = submitted.job

    async def wait() -> None:
        async for _ in job_events(rt, job.id):
            pass

    try:
        await asyncio.wait_for(wait(), ADD_SOURCE_WAIT_S)
    except TimeoutError:
        return {"job_id": str(job.id), "status": "running", "detail": "still ingesting"}
    done = await get_job(rt, job.id)
    files = (done.result or {}).get("files") or [{}]
    return {
        "job_id": str(done.id),
        "status": done.status,
        "source_id": files[0].get("source_id"),
        "outcome": files[0].get("status"),
        "detail": done.error or files[0].get("error"),
    }


async def extract_table(
    rt: Runtime, workspace: str, columns: list[str], sources: list[str] | None = None
) -> dict[str, Any]:
    """An evidence table of the workspace: per source, per column, a short answer with its
    verbatim quotes and pages, or not reported. Cells already computed are reused; waits
    for the fill job at most :data:`TABLE_WAIT_S` (then the cells filled so far)."""
    ws = await ws_usecase.find_workspace(rt, workspace)
    source_ids = [await resolve_id(rt, "source", s) for s in sources] if sources else None
    started = await tables_usecase.find_or_create(rt, ws.id, columns, source_ids)
    status = "succeeded"
    if started.job_id is not None:
        try:
            done = await asyncio.wait_for(tables_usecase.wait_for(rt, started.job_id), TABLE_WAIT_S)
            status = done.status
        except TimeoutError:
            status = "running"
    table = await tables_usecase.get_table(rt, ws.id, started.table.id)
    return {
        "workspace": {"id": str(ws.id), "name": ws.name},
        "table_id": str(table.id),
        "status": status,
        "job_id": str(started.job_id) if started.job_id else None,
        "rows": [r.model_dump(mode="json") for r in exported_rows(table)],
    }


async def wiki_pages(rt: Runtime) -> list[dict[str, str]]:
    """Every wiki page of every workspace: (workspace id, slug, title)."""
    out = []
    for w in await ws_usecase.list_workspaces(rt):
        for page in await knowledge_usecase.list_wiki_pages(rt, w.id):
            out.append({"workspace_id": str(w.id), "slug": page.slug, "title": page.title})
    return out


async def wiki_page(rt: Runtime, workspace: str, slug: str) -> str:
    ws = await ws_usecase.find_workspace(rt, workspace)
    page = await knowledge_usecase.get_wiki_page(rt, ws.id, slug)
    return f"# {page.title}\n\n{page.body}"
