"""Shared set-up for the research pipeline tests: settings pointing every source at the
replay server, a catalog (the ACL 2020 records) in which the top hit for "testing" links
a real PDF served by the replay server, and a Runtime container using those settings."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from marginalia.config import Settings
from marginalia.jobs.backends import InProcessBackend
from marginalia.jobs.service import JobService
from marginalia.runtime import Runtime
from marginalia.sources.catalog import CatalogSource
from marginalia.usecases.workspaces import create_workspace
from tests.support.replay_server import FIXTURES, SHARED_DATA, ReplayServer

QUERY = "testing"
PDF_FILE = "literature-graph-naacl2018.pdf"  # small: 8 pages
PDF_PATH = "/files/" + PDF_FILE
ACL_CATALOG = SHARED_DATA / "catalog" / "acl2020" / "papers.jsonl"


def serve_fixture_content(replay: ReplayServer) -> None:
    """OpenAlex full-text search for QUERY (the recorded title-search works) and a PDF."""
    results: list[Any] = []
    for name in sorted((FIXTURES / "openalex").glob("test_title_search_*.json")):
        results.extend(json.loads(name.read_text(encoding="utf-8"))["results"])
    body = {"meta": {"count": len(results), "page": 1, "per_page": 25}, "results": results}
    replay.add_response("/openalex/works", {"search": QUERY}, body=body)
    pdf = (SHARED_DATA / "pdfs" / PDF_FILE).read_bytes()
    replay.add_response(PDF_PATH, body=pdf, content_type="application/pdf")


async def write_catalog(replay: ReplayServer, path: Path) -> str:
    """The ACL catalog with its top record for QUERY linking the replay server's PDF;
    returns that record's title."""
    top = (await CatalogSource.from_path(ACL_CATALOG).search(QUERY, limit=1))[0]
    lines = []
    for line in ACL_CATALOG.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("title") and " ".join(record["title"].split()) == top.title:
            record["pdf_url"] = replay.root_url + PDF_PATH
        lines.append(json.dumps(record))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return top.title


def replay_settings(
    base: Settings, replay: ReplayServer, catalog: Path, **sources: Any
) -> Settings:
    source_settings = base.sources.model_copy(
        update={
            "arxiv_base_url": replay.base_url_for("arxiv"),
            "openalex_base_url": replay.base_url_for("openalex"),
            "brave_base_url": replay.base_url_for("brave"),
            "brave_api_key": SecretStr("test-key"),
            "min_interval_s": 0.01,
            "max_retries": 0,
            "timeout_s": 5.0,
            "deadline_s": 10.0,
            "allow_private_addresses": True,  # the fixture PDF is on loopback
            **sources,
        }
    )
    return base.model_copy(update={"sources": source_settings, "catalog_path": catalog})


def services_with(services: Runtime, settings: Settings) -> Runtime:
    """A container sharing the session's database, files and embedder, with ``settings``."""
    backend = InProcessBackend()
    custom = Runtime(
        settings=settings,
        db=services.db,
        jobs=JobService(services.db, settings, backend),
        backend=backend,
        files=services.files,
        _embedder=services.embedder,
    )
    backend.attach(custom)
    return custom


async def new_workspace(services: Runtime, description: str = "") -> uuid.UUID:
    ws = await create_workspace(
        services, name=f"research-{uuid.uuid4().hex[:8]}", description=description
    )
    return ws.id
