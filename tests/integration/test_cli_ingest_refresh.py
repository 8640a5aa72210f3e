"""`marginalia ingest` waits for the knowledge refresh it queues (issue 34, part 2): a
workspace built from the CLI has its wiki pages, and no refresh job is left interrupted."""

from __future__ import annotations

import subprocess
import uuid
from pathlib import Path

from sqlalchemy import text

from marginalia.runtime import Runtime
from marginalia.usecases import knowledge as knowledge_usecase
from marginalia.usecases import workspaces as workspaces_usecase
from tests.support.processes import env_with, marginalia_cmd


async def test_a_cli_ingest_leaves_a_workspace_with_its_wiki(
    services: Runtime, subprocess_env: dict[str, str], shared_data: Path
) -> None:
    # The debounced refresh job (the default way), not the inline refresh the tests use.
    env = env_with(subprocess_env, MARGINALIA_KNOWLEDGE__REFRESH_DELAY_S="1")
    name = f"cli wiki {uuid.uuid4().hex[:6]}"
    ws = await workspaces_usecase.create_workspace(services, name=name)
    done = subprocess.run(
        marginalia_cmd(
            "ingest", str(shared_data / "pdfs" / "trauma-bmc2010.pdf"), "--workspace", name
        ),
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    said = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 0, said
    assert "knowledge refresh" in said and "waiting" in said, said

    async with services.db.session() as session:
        jobs = (
            await session.execute(
                text(
                    "SELECT kind, status, interrupted FROM jobs WHERE workspace_id = :ws "
                    "ORDER BY created_at"
                ),
                {"ws": ws.id},
            )
        ).all()
    kinds = {(row.kind, row.status, row.interrupted) for row in jobs}
    assert ("knowledge.refresh", "succeeded", False) in kinds, kinds
    assert all(row.status == "succeeded" for row in jobs), jobs
    pages = await knowledge_usecase.list_wiki_pages(services, ws.id)
    assert len(pages) > 0  # before issue 34: 0 until a server resumed the refresh
