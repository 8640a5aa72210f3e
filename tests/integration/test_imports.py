"""Zotero-faithful import (issue 20): a BibTeX / RIS / CSL-JSON export with
metadata-only entries, a local PDF attachment and an attachment path that escapes the
folder — every entry becomes a source, the attachment is ingested, the escape refused;
a later PDF fills in a metadata-only source; the CLI creates a missing workspace and
exits non-zero when nothing can be imported."""

from __future__ import annotations

import asyncio
import shutil
import uuid
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlmodel import col
from typer.testing import CliRunner

from marginalia.cli.app import app
from marginalia.db.models import Chunk, Note, Source
from marginalia.jobs.events import follow_events
from marginalia.runtime import Runtime
from marginalia.storage import content_hash
from marginalia.usecases import imports
from marginalia.usecases.workspaces import find_workspace
from tests.conftest import SHARED_DATA
from tests.support.zotero_export import ATTENTION_ARXIV, BERT_DOI, SCIBERT_ARXIV, make_export

PDFS = SHARED_DATA / "pdfs"
pytestmark = pytest.mark.skipif(not PDFS.is_dir(), reason=f"shared PDFs not found at {PDFS}")


@pytest.fixture
def export(tmp_path: Path):
    folder = tmp_path / "My Library"
    folder.mkdir()
    return make_export(folder, PDFS / "specter-acl2020.pdf", PDFS / "s2orc-acl2020.pdf")


async def _sources(rt: Runtime, workspace_id: uuid.UUID) -> dict[str, Source]:
    async with rt.db.session() as session:
        rows = (
            await session.execute(select(Source).where(col(Source.workspace_id) == workspace_id))
        ).scalars()
        return {(s.title or "").split(":")[0]: s for s in rows}


async def _chunks(rt: Runtime, source_id: uuid.UUID) -> int:
    async with rt.db.session() as session:
        return int(
            (
                await session.execute(
                    select(func.count()).select_from(Chunk).where(col(Chunk.source_id) == source_id)
                )
            ).scalar_one()
        )


async def _check_export_imported(rt: Runtime, workspace_id: uuid.UUID, outside: Path) -> None:
    sources = await _sources(rt, workspace_id)
    assert set(sources) == {"BERT", "Attention Is All You Need", "SciBERT", "SPECTER"}
    bert, attention = sources["BERT"], sources["Attention Is All You Need"]
    scibert, specter = sources["SciBERT"], sources["SPECTER"]
    assert (bert.kind, bert.doi, bert.year) == ("metadata", BERT_DOI, 2019)
    assert await _chunks(rt, bert.id) == 0 and bert.file_key is None
    assert attention.abstract_only and attention.arxiv_id == ATTENTION_ARXIV
    assert (scibert.kind, scibert.arxiv_id) == ("metadata", SCIBERT_ARXIV)
    # the local attachment is read and ingested with its full text
    assert specter.kind == "pdf" and not specter.abstract_only
    assert specter.page_count and specter.page_count > 5 and await _chunks(rt, specter.id) > 10
    # the escaping path was never read: its bytes are nowhere in the file store
    assert not rt.files.exists(content_hash(outside.read_bytes()))


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


async def test_cli_imports_a_zotero_bibtex_export(services: Runtime, export) -> None:
    name = f"zotero-{uuid.uuid4().hex[:8]}"
    code, out = await asyncio.to_thread(
        _invoke, "import-bibtex", str(export.bib), "-w", name, "--quiet"
    )
    assert code == 0, out
    assert f"created workspace {name}" in out
    flat = " ".join(out.split())
    assert (
        "5 entries: imported 1 with full text (1 from attachments), 1 abstract-only, 2 metadata-only"
        in flat
    )
    assert "attachment refused (outside_export_folder) beltagy_scibert_2019" in flat
    assert "failed (no_title) untitled_2021" in flat
    workspace = await find_workspace(services, name)
    await _check_export_imported(services, workspace.id, export.outside_pdf)
    async with services.db.session() as session:
        notes = (
            (await session.execute(select(Note.body).where(col(Note.workspace_id) == workspace.id)))
            .scalars()
            .all()
        )
    assert notes == ["Read for the masked LM objective."]

    # Again: everything is already there; nothing new, still a success, no note twice.
    code, out = await asyncio.to_thread(
        _invoke, "import-bibtex", str(export.bib), "-w", name, "--quiet"
    )
    assert code == 0, out
    assert "4 already in the workspace" in " ".join(out.split())
    assert len(await _sources(services, workspace.id)) == 4

    # A later export with SciBERT's PDF beside it fills the metadata-only source in.
    scibert_id = (await _sources(services, workspace.id))["SciBERT"].id
    shutil.copy(PDFS / "longeval-eacl2023.pdf", export.folder / "files" / "scibert.pdf")
    later = export.folder / "later.bib"
    later.write_text(
        "@article{beltagy_scibert_2019, title = {{SciBERT}: A Pretrained Language Model for"
        " Scientific Text}, eprint = {1903.10676}, archiveprefix = {arXiv},"
        " file = {PDF:files/scibert.pdf:application/pdf}}\n",
        encoding="utf-8",
    )
    code, out = await asyncio.to_thread(_invoke, "import-bibtex", str(later), "-w", name, "-q")
    assert code == 0, out
    assert "(1 filled in)" in out or "filled in" in " ".join(out.split())
    after = await _sources(services, workspace.id)
    assert len(after) == 4 and after["SciBERT"].id == scibert_id
    assert after["SciBERT"].kind == "pdf" and await _chunks(services, scibert_id) > 5
    assert after["SciBERT"].title.startswith("SciBERT")  # the record's title is kept


async def test_cli_nothing_importable_exits_non_zero(services: Runtime, tmp_path: Path) -> None:
    bad = tmp_path / "untitled.bib"
    bad.write_text("@misc{a, author = {Nobody}, year = {2020}}\n", encoding="utf-8")
    name = f"never-{uuid.uuid4().hex[:8]}"
    code, out = await asyncio.to_thread(_invoke, "import-bibtex", str(bad), "-w", name)
    assert code == 1 and "no title" in out
    with pytest.raises(Exception, match="no workspace"):
        await find_workspace(services, name)  # a bad file creates nothing
    code, out = await asyncio.to_thread(
        _invoke, "import-ris", str(tmp_path / "none.ris"), "-w", name
    )
    assert code == 1 and "does not exist" in out


@pytest.mark.parametrize("fmt", ["ris", "csl-json"])
async def test_ris_and_csl_json_exports_import_the_same(
    services: Runtime, export, fmt: str
) -> None:
    from marginalia.usecases.workspaces import create_workspace

    workspace = await create_workspace(services, name=f"{fmt}-{uuid.uuid4().hex[:8]}")
    path = export.ris if fmt == "ris" else export.csl
    job = await imports.submit_import(
        services,
        workspace.id,
        path.read_text(),
        fmt,
        folder=export.folder,
        fetch=False,  # type: ignore[arg-type]
    )
    async for _ in follow_events(services.db, job.id):
        pass
    done = await services.jobs.get(job.id)
    assert done.status == "succeeded", done.error
    summary = done.result["import"]
    assert (summary["imported"], summary["abstract_only"], summary["metadata_only"]) == (1, 1, 2)
    assert [r["reason"] for r in summary["attachments_refused"]] == ["outside_export_folder"]
    assert [f["reason"] for f in summary["failed"]] == ["no_title"]
    await _check_export_imported(services, workspace.id, export.outside_pdf)


async def test_an_uploaded_pdf_fills_in_a_metadata_only_source(services: Runtime) -> None:
    """The ingest pipeline (uploads, research) upgrades a metadata-only source in place
    when a full document of the same work (here: the same DOI) arrives."""
    from marginalia.ingest.metadata_only import store_metadata_only
    from marginalia.ingest.pipeline import SourceMetadata, ingest_document
    from marginalia.usecases.workspaces import create_workspace

    ws = await create_workspace(services, name=f"upgrade-{uuid.uuid4().hex[:8]}")
    record = SourceMetadata(
        title="BERT: Pre-training of Deep Bidirectional Transformers", doi=BERT_DOI, year=2019
    )
    stored = await store_metadata_only(services, ws.id, record, name="bert")
    again = await store_metadata_only(services, ws.id, record, name="bert")
    assert stored.status == "created" and again.status == "duplicate"
    assert again.source_id == stored.source_id
    pdf = PDFS / "s2orc-acl2020.pdf"
    outcome = await ingest_document(
        services,
        ws.id,
        data=pdf.read_bytes(),
        filename=pdf.name,
        content_type="application/pdf",
        metadata=SourceMetadata(doi=BERT_DOI),
    )
    assert outcome.status == "created" and outcome.upgraded
    assert outcome.source_id == stored.source_id and outcome.chunks > 10
    sources = await _sources(services, ws.id)
    assert len(sources) == 1
    (source,) = sources.values()
    assert source.kind == "pdf" and source.year == 2019 and source.title.startswith("BERT")
    # The same bytes again are a plain duplicate now.
    twice = await ingest_document(
        services, ws.id, data=pdf.read_bytes(), filename=pdf.name, content_type="application/pdf"
    )
    assert twice.status == "duplicate" and twice.source_id == stored.source_id
