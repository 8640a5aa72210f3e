"""A workspace's bibliography out: BibTeX, RIS or CSL-JSON with its notes and
highlights (``annote`` / ``N1`` / ``note``), and an Obsidian-style vault (a folder of
Markdown notes with ``[[links]]`` and the BibTeX file). What these write, the importers
(:mod:`marginalia.usecases.imports`) read back field for field."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any, Literal

from marginalia.db.repositories import sources as sources_repo
from marginalia.discovery.bibtex_io import source_to_candidate
from marginalia.discovery.citation_graph import CatalogIndex, fill_from_catalog
from marginalia.discovery.support import slug_of
from marginalia.errors import ValidationFailed
from marginalia.formats import obsidian
from marginalia.formats import repository as formats_repo
from marginalia.formats.bibtex_export import to_bibtex_with_notes
from marginalia.formats.csljson import to_csl_json
from marginalia.formats.records import ImportRecord
from marginalia.formats.ris import to_ris
from marginalia.runtime import Runtime
from marginalia.sources.bibtex import citation_keys
from marginalia.sources.catalog import CatalogError
from marginalia.usecases import knowledge as knowledge_usecase
from marginalia.usecases import notes as notes_usecase
from marginalia.usecases import sources as sources_usecase
from marginalia.usecases.citations import catalog_index
from marginalia.usecases.workspaces import get_workspace

ExportFormat = Literal["bibtex", "ris", "csl-json"]
EXPORT_FORMATS: tuple[ExportFormat, ...] = ("bibtex", "ris", "csl-json")


async def _records(
    rt: Runtime, workspace_id: uuid.UUID, source_id: uuid.UUID | None = None
) -> tuple[list[Any], list[ImportRecord]]:
    """The workspace's sources (oldest first; only ``source_id`` when given) and their
    export records: the record fields, then the notes, then the highlights
    (``p. N: “quote” note``)."""
    await get_workspace(rt, workspace_id)
    async with rt.db.session() as session:
        sources = await sources_repo.all_for_workspace(session, workspace_id)
        notes = await formats_repo.notes_by_source(session, workspace_id)
    if source_id is not None:
        sources = [s for s in sources if s.id == source_id]
    highlights: dict[uuid.UUID, list[str]] = {}
    for h, _title in await notes_usecase.list_for_workspace(rt, workspace_id):
        quote = " ".join(h.text.split())
        extra = f" {' '.join(h.note.split())}" if h.note else ""
        highlights.setdefault(h.source_id, []).append(f"p. {h.page}: “{quote}”{extra}")
    catalog = await _catalog(rt)
    records = []
    for s in sources:
        candidate = source_to_candidate(s)
        if catalog is not None:
            candidate = fill_from_catalog(candidate, catalog)
        records.append(
            ImportRecord(
                candidate=candidate, notes=[*notes.get(s.id, []), *highlights.get(s.id, [])]
            )
        )
    return sources, records


async def _catalog(rt: Runtime) -> CatalogIndex | None:
    """The configured catalog, the best metadata match of an exported entry; None when
    there is none or it cannot be read (the export goes on with what the sources hold)."""
    try:
        return await asyncio.to_thread(catalog_index, rt.settings.catalog_path)
    except CatalogError:
        return None


EXTENSIONS: dict[str, str] = {"bibtex": ".bib", "ris": ".ris", "csl-json": ".json"}
MEDIA_TYPES: dict[str, str] = {
    "bibtex": "application/x-bibtex",
    "ris": "application/x-research-info-systems",
    "csl-json": "application/vnd.citationstyles.csl+json",
}


def export_file_name(name: str | None, fmt: ExportFormat) -> str:
    """A download's file name from a workspace's (or source's) name: ``my-review.bib``."""
    return slug_of(name or "bibliography") + EXTENSIONS[fmt]


async def export_selection(
    rt: Runtime,
    workspace_id: uuid.UUID,
    fmt: ExportFormat,
    source_ids: list[uuid.UUID] | None = None,
) -> tuple[str, str]:
    """``(text, file name)``: the workspace's sources (or the chosen ones of them) in
    ``fmt``, the file named after the workspace."""
    if fmt not in EXPORT_FORMATS:
        raise ValidationFailed(f"unknown export format {fmt!r}; one of {', '.join(EXPORT_FORMATS)}")
    workspace = await get_workspace(rt, workspace_id)
    _sources, records = await _records(rt, workspace_id)
    if source_ids is not None:
        wanted = {str(i) for i in source_ids}
        present = {r.candidate.source_id for r in records}
        missing = sorted(wanted - {str(p) for p in present})
        if missing:
            raise ValidationFailed(f"not sources of this workspace: {', '.join(missing[:5])}")
        records = [r for r in records if r.candidate.source_id in wanted]
    return _render(records, fmt), export_file_name(workspace.name, fmt)


def _render(records: list[ImportRecord], fmt: ExportFormat) -> str:
    if not records:
        return "[]\n" if fmt == "csl-json" else ""
    if fmt == "ris":
        return to_ris(records)
    if fmt == "csl-json":
        return to_csl_json(records, keys=citation_keys([r.candidate for r in records]))
    return to_bibtex_with_notes(records)


async def export_bibliography(rt: Runtime, workspace_id: uuid.UUID, fmt: ExportFormat) -> str:
    """The workspace's sources in ``fmt``, notes and highlights included."""
    if fmt not in EXPORT_FORMATS:
        raise ValidationFailed(f"unknown export format {fmt!r}; one of {', '.join(EXPORT_FORMATS)}")
    _sources, records = await _records(rt, workspace_id)
    return _render(records, fmt)


async def export_source_bibtex_file(rt: Runtime, source_id: uuid.UUID) -> tuple[str, str]:
    """``(BibTeX, file name)`` of one source, the file named after its title."""
    source = await sources_usecase.get_source(rt, source_id)
    return await export_source_bibtex(rt, source_id), export_file_name(source.title, "bibtex")


async def export_source_bibtex(rt: Runtime, source_id: uuid.UUID) -> str:
    """One source as a BibTeX entry, its notes and highlights in ``annote`` (the same
    entry the workspace export writes for it)."""
    source = await sources_usecase.get_source(rt, source_id)
    _sources, records = await _records(rt, source.workspace_id, source_id)
    return to_bibtex_with_notes(records)


async def export_obsidian(rt: Runtime, workspace_id: uuid.UUID, folder: Path) -> dict[str, Any]:
    """Write the workspace as an Obsidian vault into ``folder`` (created; files of the
    same names are replaced, nothing else in it is touched)."""
    workspace = await get_workspace(rt, workspace_id)
    sources, records = await _records(rt, workspace_id)
    concepts = await knowledge_usecase.source_concepts(rt, workspace_id)
    notes: list[obsidian.SourceNote] = []
    for source, record in zip(sources, records, strict=True):
        claims = await knowledge_usecase.list_claims(rt, workspace_id, source_id=source.id)
        pages: dict[int, int | None] = {}
        if claims:
            chunks = await sources_usecase.source_chunks(rt, source.id, limit=100_000, offset=0)
            pages = {int(c.id): c.page_start for c in chunks if c.id is not None}
        c = record.candidate
        notes.append(
            obsidian.SourceNote(
                id=str(source.id),
                title=c.title,
                kind="abstract" if source.abstract_only else source.kind,
                authors=list(c.authors),
                year=c.year,
                venue=c.venue,
                doi=c.doi,
                arxiv_id=c.arxiv_id,
                url=c.url,
                tldr=source.tldr,
                summary=source.summary,
                claims=[
                    (cl.text, cl.quote, pages.get(cl.chunk_id) if cl.chunk_id else None)
                    for cl in claims
                ],
                notes=record.notes,
                concepts=[k.slug for k in concepts.get(source.id, [])],
            )
        )
    wiki: list[obsidian.WikiNote] = []
    for summary in await knowledge_usecase.list_wiki_pages(rt, workspace_id):
        page = await knowledge_usecase.get_wiki_page(rt, workspace_id, summary.slug)
        wiki.append(
            obsidian.WikiNote(
                slug=page.slug,
                title=page.title,
                body_raw=page.body_raw,
                pages={
                    (str(ct.source_id), ct.chunk_index): ct.page
                    for ct in page.citations
                    if ct.chunk_index is not None
                },
            )
        )
    bibtex = to_bibtex_with_notes(records) if records else ""
    files = obsidian.vault(workspace.name, notes, wiki, bibtex)

    def write() -> None:
        root = folder.resolve()
        for relative, text in files.items():
            path = (root / relative).resolve()
            if not path.is_relative_to(root):  # names are sanitised; this never trips
                raise ValidationFailed(f"refusing to write outside {root}: {relative}")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")

    await asyncio.to_thread(write)
    return {
        "folder": str(folder),
        "sources": len(notes),
        "wiki_pages": len(wiki),
        "files": len(files),
    }
