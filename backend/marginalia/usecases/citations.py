"""Citation chasing (issue 36): a source's references and the works citing it, the
workspace's suggestions (co-citation / bibliographic coupling), and adding chosen works
through the normal import (dedup → fetch → ingest → knowledge update).

Where the links come from, each work carrying its ``origin``:

* ``pdf-references`` — the reference list printed in the source's document, split as the
  ingest parser splits it;
* ``catalog`` — the catalog's reference data (unarXive ``bib_entries``), of the source's
  own record or of the catalog record that is the same work; and, for cited-by, catalog
  records whose reference lists name the source;
* ``openalex`` — ``referenced_works`` stored with the source, and, when
  ``sources.openalex_citations`` is on, OpenAlex's ``cited_by:`` / ``cites:`` lists;
* ``workspace`` — (cited-by) workspace sources whose stored references name it.

Entries are resolved to workspace sources first, then to catalog records; what resolves
to neither is counted (``unresolved``), never listed with a guessed title.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from marginalia.db.models import Job
from marginalia.discovery.citation_graph import (
    CatalogIndex,
    CitationList,
    CitedWork,
    Origin,
    Suggestion,
    WorkList,
    WorkspaceSource,
    rank_suggestions,
    resolve_into,
    work_from_candidate,
    work_from_source,
)
from marginalia.errors import NotFoundError, ValidationFailed
from marginalia.knowledge.citation_links import source_references
from marginalia.knowledge.citations import (
    Reference,
    references_from_metadata,
)
from marginalia.knowledge.repository import citations as cite_repo
from marginalia.knowledge.repository import get_source
from marginalia.runtime import Runtime
from marginalia.sources.base import SourceError
from marginalia.sources.candidate import Candidate
from marginalia.sources.catalog import CatalogError, load_catalog
from marginalia.sources.openalex_client import OpenAlexClient
from marginalia.usecases.imports import IMPORT_KIND
from marginalia.usecases.workspaces import get_workspace

logger = logging.getLogger(__name__)

OPENALEX_LIMIT = 100
MAX_ADD = 200

_CATALOGS: dict[tuple[str, float], CatalogIndex] = {}


def _catalog_mtime(root: Path) -> float:
    if root.is_file():
        return root.stat().st_mtime
    return max((p.stat().st_mtime for p in root.rglob("*") if p.is_file()), default=0.0)


def catalog_index(path: Path | None) -> CatalogIndex | None:
    """The catalog at ``path``, loaded once per process while its files do not change."""
    if path is None:
        return None
    root = Path(path).expanduser()
    key = (str(root.resolve()), _catalog_mtime(root) if root.exists() else 0.0)
    index = _CATALOGS.get(key)
    if index is None:
        index = CatalogIndex(load_catalog(root))
        _CATALOGS.clear()
        _CATALOGS[key] = index
    return index


def _as_workspace_source(s: cite_repo.SourceWork) -> WorkspaceSource:
    return WorkspaceSource(
        id=s.id,
        title=s.title or "(untitled)",
        year=s.year,
        doi=s.doi,
        arxiv_id=s.arxiv_id,
        openalex_id=s.openalex_id,
        authors=tuple(s.authors),
        venue=s.venue,
    )


@dataclass
class _Context:
    workspace_id: uuid.UUID
    works: list[cite_repo.SourceWork]
    catalog: CatalogIndex | None
    notes: list[str]


async def _workspace_context(rt: Runtime, workspace_id: uuid.UUID) -> _Context:
    async with rt.db.session() as session:
        works = await cite_repo.source_works(session, workspace_id)
    notes: list[str] = []
    catalog: CatalogIndex | None = None
    try:
        catalog = await asyncio.to_thread(catalog_index, rt.settings.catalog_path)
    except CatalogError as exc:
        notes.append(f"catalog not read: {exc}")
    if catalog is None and rt.settings.catalog_path is None:
        notes.append("no catalog configured (MARGINALIA_CATALOG_PATH)")
    return _Context(workspace_id, works, catalog, notes)


async def _source_context(
    rt: Runtime, source_id: uuid.UUID
) -> tuple[cite_repo.SourceWork, _Context]:
    async with rt.db.session() as session:
        source = await get_source(session, source_id)
    if source is None:
        raise NotFoundError(f"no source with id {source_id}")
    ctx = await _workspace_context(rt, source.workspace_id)
    me = next((w for w in ctx.works if w.id == source_id), None)
    if me is None:
        raise ValidationFailed(f"source {source_id} is not ready yet ({source.status})")
    return me, ctx


def _reference_origin(ref: Reference, printed: int) -> Origin:
    if ref.position < printed:
        return "pdf-references"
    # A record's entry with printed text is the catalog's (unarXive bib_entries); one
    # with an OpenAlex id only is OpenAlex's referenced_works.
    return "openalex" if ref.text.startswith("openalex_id:") else "catalog"


def _openalex(rt: Runtime) -> OpenAlexClient | None:
    if not rt.settings.sources.openalex_citations:
        return None
    return OpenAlexClient.from_settings(rt.settings.sources)


async def _offline_references(
    rt: Runtime, me: cite_repo.SourceWork, ctx: _Context, out: WorkList
) -> int:
    """The PDF's and the catalog's references of ``me`` into ``out``; the unresolved count."""
    async with rt.db.session() as session:
        pages = await cite_repo.source_pages(session, me.id)
    metadata: list[dict[str, Any]] = me.metadata_references
    refs = await asyncio.to_thread(source_references, me.kind, pages, metadata)
    printed = len(refs) - len(references_from_metadata(metadata))
    unresolved = resolve_into(
        out, refs, lambda r: _reference_origin(r, printed), ctx.catalog, me.id
    )
    if ctx.catalog is not None and printed == len(refs):
        # The source's record named no references: the catalog's record of the same work may.
        held = ctx.catalog.references_of(_as_workspace_source(me).citable)
        if held:
            unresolved += resolve_into(out, held, lambda r: "catalog", ctx.catalog, me.id)
    return unresolved


async def _add_from_openalex(
    rt: Runtime, me: cite_repo.SourceWork, ctx: _Context, out: WorkList, *, citing: bool
) -> None:
    """OpenAlex's works citing ``me`` (or cited by it) where OpenAlex is configured and
    reachable; otherwise a note says why the list has none of them."""
    client = _openalex(rt)
    if client is None:
        return
    if not me.openalex_id:
        ctx.notes.append("OpenAlex: the source has no OpenAlex id")
        return
    fetch = client.cited_by if citing else client.references
    try:
        for c in await fetch(me.openalex_id, limit=OPENALEX_LIMIT):
            out.add(work_from_candidate(c, "openalex", match="openalex"), exclude=me.id)
    except SourceError as exc:
        ctx.notes.append(f"OpenAlex not reached: {exc}")


async def references(rt: Runtime, source_id: uuid.UUID) -> CitationList:
    """The works ``source_id`` cites, known ones only, each marked in the workspace or not."""
    me, ctx = await _source_context(rt, source_id)
    out = WorkList(_as_workspace_source(w) for w in ctx.works)
    unresolved = await _offline_references(rt, me, ctx, out)
    await _add_from_openalex(rt, me, ctx, out, citing=False)
    return CitationList(
        source_id=source_id,
        direction="references",
        works=list(out.works.values()),
        unresolved=unresolved,
        notes=ctx.notes,
    )


async def _offline_cited_by(
    rt: Runtime, me: cite_repo.SourceWork, ctx: _Context, out: WorkList
) -> None:
    by_id = {w.id: w for w in ctx.works}
    async with rt.db.session() as session:
        edges = await cite_repo.citation_edges(session, ctx.workspace_id, source_id=me.id)
    for e in edges:
        if e.cited == me.id and e.citing in by_id:
            work = work_from_source(_as_workspace_source(by_id[e.citing]), "workspace", match=e.how)
            out.add(work, exclude=me.id)
    if ctx.catalog is not None:
        target = _as_workspace_source(me).citable
        for record, how in await asyncio.to_thread(ctx.catalog.citing, target):
            out.add(work_from_candidate(record, "catalog", match=how), exclude=me.id)


async def cited_by(rt: Runtime, source_id: uuid.UUID) -> CitationList:
    """The works citing ``source_id``: workspace sources, catalog records, OpenAlex."""
    me, ctx = await _source_context(rt, source_id)
    out = WorkList(_as_workspace_source(w) for w in ctx.works)
    await _offline_cited_by(rt, me, ctx, out)
    await _add_from_openalex(rt, me, ctx, out, citing=True)
    return CitationList(
        source_id=source_id, direction="cited-by", works=list(out.works.values()), notes=ctx.notes
    )


async def suggestions(rt: Runtime, workspace_id: uuid.UUID, *, limit: int = 50) -> list[Suggestion]:
    """Works not in the workspace, ranked by how many workspace sources cite them or are
    cited by them (offline origins: the PDFs' and the catalog's reference data)."""
    await get_workspace(rt, workspace_id)
    ctx = await _workspace_context(rt, workspace_id)
    refs: dict[uuid.UUID, list[CitedWork]] = {}
    citing: dict[uuid.UUID, list[CitedWork]] = {}
    for me in ctx.works:
        out = WorkList(_as_workspace_source(w) for w in ctx.works)
        await _offline_references(rt, me, ctx, out)
        refs[me.id] = list(out.works.values())
        if ctx.catalog is not None:
            target = _as_workspace_source(me).citable
            found = await asyncio.to_thread(ctx.catalog.citing, target)
            back = WorkList(_as_workspace_source(w) for w in ctx.works)
            for record, how in found:
                back.add(work_from_candidate(record, "catalog", match=how), exclude=me.id)
            citing[me.id] = list(back.works.values())
    titles = {w.id: w.title or str(w.id) for w in ctx.works}
    return rank_suggestions(refs, citing, titles, limit=limit)


# --- adding chosen works -------------------------------------------------------------------


@dataclass(frozen=True)
class WorkToAdd:
    """A work chosen from a list: by catalog id, or by its identifiers and title."""

    title: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    openalex_id: str | None = None
    catalog_id: str | None = None
    year: int | None = None


def _candidate(work: WorkToAdd, catalog: CatalogIndex | None) -> Candidate:
    if work.catalog_id and catalog is not None:
        record = catalog.by_catalog_id(work.catalog_id)
        if record is not None:
            return record.model_copy(deep=True)
    if work.catalog_id and not (work.title or work.doi or work.arxiv_id or work.openalex_id):
        raise ValidationFailed(f"no catalog record with id {work.catalog_id!r}")
    if not work.title and not (work.doi or work.arxiv_id or work.openalex_id):
        raise ValidationFailed("each work needs a catalog id, a title or an identifier")
    label = work.title or work.doi or work.arxiv_id or work.openalex_id or ""
    origin = "arxiv" if work.arxiv_id and not work.doi else "openalex"
    return Candidate(
        title=label,
        year=work.year,
        doi=work.doi,
        arxiv_id=work.arxiv_id,
        openalex_id=work.openalex_id,
        url=f"https://arxiv.org/abs/{work.arxiv_id}" if work.arxiv_id else None,
        origin=origin,
    )


async def add_works(
    rt: Runtime, workspace_id: uuid.UUID, works: list[WorkToAdd], *, fetch: bool = True
) -> Job:
    """Submit one import job adding ``works`` (dedup against the workspace and each other,
    fetch when allowed, ingest — abstract-only or metadata-only without full text —, the
    knowledge update): the path a bibliography import takes."""
    await get_workspace(rt, workspace_id)
    if not works:
        raise ValidationFailed("no works to add")
    if len(works) > MAX_ADD:
        raise ValidationFailed(f"{len(works)} works; at most {MAX_ADD} are added at once")
    ctx_catalog = None
    if any(w.catalog_id for w in works):
        try:
            ctx_catalog = await asyncio.to_thread(catalog_index, rt.settings.catalog_path)
        except CatalogError as exc:
            raise ValidationFailed(f"the catalog cannot be read: {exc}") from exc
    candidates = []
    for position, work in enumerate(works, start=1):
        c = _candidate(work, ctx_catalog)
        c.source_id = f"{c.source_id or 'work'}#{position}"
        candidates.append(c.model_dump(mode="json"))
    params: dict[str, Any] = {
        "workspace_id": str(workspace_id),
        "format": "citations",
        "candidates": candidates,
        "fetch": fetch,
        "metadata_only": True,
        "parse_failures": [],
        "attachments_refused": [],
        "notes": {},
    }
    return await rt.jobs.submit(IMPORT_KIND, params, workspace_id=workspace_id)
