"""A library at scale (issue 36, item 4): an import of many entries ingests every entry
first, then updates the knowledge of the new sources in one pass of large batches and
refreshes the graph-wide statistics once — no knowledge update between ingests — with
progress events throughout."""

from __future__ import annotations

import json
import uuid

import pytest
from sqlalchemy import func, select
from sqlmodel import col

from marginalia.db.models import Concept, JobEvent, Source
from marginalia.jobs.events import follow_events
from marginalia.knowledge import repository as knowledge_repo
from marginalia.runtime import Runtime
from marginalia.sources.bibtex import to_bibtex
from marginalia.sources.candidate import Candidate
from marginalia.usecases import imports
from marginalia.usecases.workspaces import create_workspace
from tests.conftest import SHARED_DATA

CATALOG = SHARED_DATA / "catalog" / "acl2020" / "papers.jsonl"
pytestmark = pytest.mark.skipif(not CATALOG.is_file(), reason=f"no catalog at {CATALOG}")

ENTRIES = imports.DEFER_KNOWLEDGE_OVER + 10


def _library(entries: int) -> tuple[str, int]:
    """A BibTeX file of real ACL 2020 records, every fifth without its abstract (a
    metadata-only source); returns the text and how many entries have an abstract."""
    records: list[Candidate] = []
    with CATALOG.open(encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            if not (r.get("title") and r.get("abstract")):
                continue
            n = len(records)
            records.append(
                Candidate(
                    title=r["title"],
                    authors=list(r.get("authors") or []),
                    year=r.get("year"),
                    abstract=None if n % 5 == 4 else r["abstract"],
                    doi=r.get("doi"),
                    origin="bibtex",
                )
            )
            if len(records) == entries:
                break
    return to_bibtex(records), sum(1 for r in records if r.abstract)


async def test_a_many_entry_import_defers_knowledge_to_one_pass_and_one_refresh(
    services: Runtime,
) -> None:
    workspace = await create_workspace(services, name=f"scale-{uuid.uuid4().hex[:8]}")
    text, with_abstract = _library(ENTRIES)
    job = await imports.submit_import(services, workspace.id, text, "bibtex", fetch=False)
    events: list[JobEvent] = [e async for e in follow_events(services.db, job.id)]
    done = await services.jobs.get(job.id)
    assert done.status == "succeeded", done.error
    summary = done.result["import"]
    assert (summary["abstract_only"], summary["metadata_only"]) == (
        with_abstract,
        ENTRIES - with_abstract,
    )

    # no knowledge update while entries were ingested: every link event comes after the
    # last ingest event, and the sources were linked together, in one batch
    stages = [e.stage for e in events]
    last_ingest = max(i for i, s in enumerate(stages) if s == "ingest")
    linked = [e for e in events if e.stage == "link" and "batch" in (e.data or {})]
    assert len(linked) == with_abstract
    assert stages.index("link") > last_ingest
    assert {e.data["batch"] for e in linked} == {with_abstract}
    # progress throughout the pipeline's stages, never going back
    progress = [
        e.progress
        for e in events
        if e.progress is not None and e.stage in ("fetch", "ingest", "link")
    ]
    assert len(progress) > ENTRIES and progress == sorted(progress)
    # one graph-wide refresh, at the end
    assert stages.count("refresh") == 1 and stages.index("refresh") > stages.index("link")
    assert "link_deferred" in done.result["timings_ms"]

    async with services.db.session() as session:
        sources = (
            (await session.execute(select(Source).where(col(Source.workspace_id) == workspace.id)))
            .scalars()
            .all()
        )
        concepts = (
            await session.execute(
                select(func.count())
                .select_from(Concept)
                .where(col(Concept.workspace_id) == workspace.id)
            )
        ).scalar_one()
        unembedded = await knowledge_repo.concepts_without_embedding(session, workspace.id)
    read = [s for s in sources if s.kind != "metadata"]
    assert len(read) == with_abstract and all(s.extraction_engine for s in read)
    assert concepts > 0 and unembedded == []  # the refresh embedded every new concept
