"""Export (issue 20 items 1 and 5): BibTeX, RIS and CSL-JSON carry every field and the
notes, so export → import gives the same records; the Obsidian-style vault has one note
per source (metadata, claims with quotes and pages, notes), the wiki with [[links]] and
its citations linked to the source notes, and a BibTeX file."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlmodel import col

from marginalia.db.models import Note, Source
from marginalia.formats.bibtex_import import parse_bibtex_export
from marginalia.jobs.events import follow_events
from marginalia.runtime import Runtime
from marginalia.usecases import exports, imports
from marginalia.usecases.workspaces import create_workspace
from tests.conftest import SHARED_DATA
from tests.support.zotero_export import make_export

PDFS = SHARED_DATA / "pdfs"
pytestmark = pytest.mark.skipif(not PDFS.is_dir(), reason=f"shared PDFs not found at {PDFS}")
FIELDS = (
    "title",
    "authors",
    "year",
    "venue",
    "pages",
    "doi",
    "arxiv_id",
    "url",
    "abstract",
    "metadata_origins",
)


async def _import(rt: Runtime, text: str, fmt: str, folder: Path | None = None) -> uuid.UUID:
    ws = await create_workspace(rt, name=f"{fmt}-{uuid.uuid4().hex[:8]}")
    job = await imports.submit_import(rt, ws.id, text, fmt, folder=folder, fetch=False)  # type: ignore[arg-type]
    async for _ in follow_events(rt.db, job.id):
        pass
    done = await rt.jobs.get(job.id)
    assert done.status == "succeeded", done.error
    return ws.id


async def _records(rt: Runtime, workspace_id: uuid.UUID) -> dict[str, dict[str, object]]:
    async with rt.db.session() as session:
        sources = (
            (await session.execute(select(Source).where(col(Source.workspace_id) == workspace_id)))
            .scalars()
            .all()
        )
        notes = (
            await session.execute(
                select(Note.source_id, Note.body).where(col(Note.workspace_id) == workspace_id)
            )
        ).all()
    out: dict[str, dict[str, object]] = {}
    for s in sources:
        fields: dict[str, object] = {f: getattr(s, f) for f in FIELDS}
        fields["abstract"] = " ".join(str(s.abstract).split()) if s.abstract else None
        fields["notes"] = sorted(body for sid, body in notes if sid == s.id)
        out[str(s.title)] = fields
    return out


@pytest.fixture
async def library(services: Runtime, tmp_path: Path) -> uuid.UUID:
    folder = tmp_path / "export"
    folder.mkdir()
    export = make_export(folder, PDFS / "specter-acl2020.pdf", PDFS / "s2orc-acl2020.pdf")
    workspace_id = await _import(services, export.bib.read_text(), "bibtex", folder)
    async with services.db.transaction() as session:
        specter = (
            await session.execute(
                select(Source).where(
                    col(Source.workspace_id) == workspace_id,
                    col(Source.title).startswith("SPECTER"),
                )
            )
        ).scalar_one()
        session.add(
            Note(
                workspace_id=workspace_id, source_id=specter.id, body="Compare with SciBERT & {co}."
            )
        )
        session.add(
            Note(workspace_id=workspace_id, source_id=specter.id, body="Second note, 50% done.")
        )
    return workspace_id


@pytest.mark.parametrize("fmt", ["bibtex", "ris", "csl-json"])
async def test_export_then_import_keeps_every_field_and_note(
    services: Runtime, library: uuid.UUID, fmt: str
) -> None:
    before = await _records(services, library)
    assert len(before) == 4 and any(r["notes"] for r in before.values())
    text = await exports.export_bibliography(services, library, fmt)  # type: ignore[arg-type]
    again = await _import(services, text, fmt)
    after = await _records(services, again)
    assert after == before


async def test_obsidian_vault(services: Runtime, library: uuid.UUID, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    done = await exports.export_obsidian(services, library, vault)
    assert done["sources"] == 4
    notes = sorted(p.name for p in (vault / "Sources").glob("*.md"))
    assert len(notes) == 4 and any(n.startswith("SPECTER") for n in notes)
    specter = next((vault / "Sources").glob("SPECTER*.md")).read_text()
    assert specter.startswith("---\ntitle: ") and 'doi: "10.18653/v1/2020.acl-main.207"' in specter
    assert "## Claims" in specter and re.search(r"> “.+” \(p\. \d+\)", specter)
    assert "## Notes" in specter and "Compare with SciBERT & {co}." in specter
    bert = next((vault / "Sources").glob("BERT*.md")).read_text()
    assert "Known by its bibliographic record only" in bert and "masked LM objective" in bert
    wiki = list((vault / "Wiki").glob("*.md"))
    assert wiki
    bodies = [p.read_text() for p in wiki]
    assert not any("[source:" in b for b in bodies)
    stems = {p.stem for p in (vault / "Sources").glob("*.md")} | {p.stem for p in wiki}
    links = {m.group(1) for b in bodies for m in re.finditer(r"\[\[([^\]|]+)", b)}
    assert links and links <= stems  # every [[link]] resolves to a note of the vault
    assert any(link.startswith("SPECTER") for link in links)  # citations link the source notes
    bib = parse_bibtex_export((vault / "references.bib").read_text())
    assert len(bib.records) == 4
    assert any("Second note, 50% done." in r.notes for r in bib.records)
