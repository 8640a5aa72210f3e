"""Supervision of the embedded PostgreSQL (issue 34): when its postmaster dies, `serve`
starts it again, and says meanwhile — to every request (503 ``database_unavailable``,
see :mod:`marginalia.api.errors`) and to the readiness check — why the database is away.

A server given by ``DATABASE_URL`` is not ours to restart: it is not supervised (its
outages still answer 503, from the connection errors themselves)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from marginalia.config import Settings
from marginalia.db.engine import Database
from marginalia.db.server import embedded_postmaster_pid, restart_embedded

log = logging.getLogger(__name__)


@dataclass
class DatabaseSupervisor:
    settings: Settings
    db: Database
    state: str = "ok"  # ok | restarting
    detail: str | None = None
    restarts: int = 0
    down_since: float | None = field(default=None, repr=False)

    def status(self) -> dict[str, Any]:
        """The readiness check's view of it."""
        report: dict[str, Any] = {"state": self.state, "restarts": self.restarts}
        if self.detail:
            report["detail"] = self.detail
        if self.down_since is not None:
            report["down_for_s"] = round(time.monotonic() - self.down_since, 1)
        return report

    async def check(self) -> None:
        """One look: when the postmaster is gone, try to start it again."""
        if await asyncio.to_thread(embedded_postmaster_pid, self.settings) is not None:
            return
        if self.state == "ok":
            self.state, self.down_since = "restarting", time.monotonic()
            self.detail = "the embedded PostgreSQL stopped; restarting it"
            log.error("the embedded PostgreSQL stopped; restarting it")
        try:
            pid = await asyncio.to_thread(restart_embedded, self.settings)
        except Exception as exc:  # not yet (shared memory still held, say): next look
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            self.detail = (
                f"the embedded PostgreSQL stopped; restarting it failed ({reason[:200]}), retrying"
            )
            log.warning("restarting the embedded PostgreSQL failed: %s", reason)
            return
        # Connections to the dead server are useless: drop them all at once.
        await self.db.engine.dispose()
        self.restarts += 1
        down = time.monotonic() - (self.down_since or time.monotonic())
        log.warning("the embedded PostgreSQL is back (pid %s) after %.1f s", pid, down)
        self.state, self.detail, self.down_since = "ok", None, None

    async def run(self, interval_s: float) -> None:
        while True:
            try:
                await self.check()
            except asyncio.CancelledError:
                raise
            except Exception:  # the supervisor itself must not die
                log.exception("database supervision check failed")
            await asyncio.sleep(interval_s)


@contextlib.asynccontextmanager
async def supervising(
    supervisor: DatabaseSupervisor | None, interval_s: float
) -> AsyncIterator[None]:
    """Run the supervisor while the block runs (nothing when there is none)."""
    if supervisor is None:
        yield
        return
    task = asyncio.create_task(supervisor.run(interval_s), name="marginalia-db-supervisor")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def is_database_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` (or what it was raised from) says the database cannot be reached
    — a lost or refused connection — rather than a bug in a query."""
    import psycopg
    from sqlalchemy import exc as sa_exc

    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, sa_exc.DBAPIError) and current.connection_invalidated:
            return True
        if isinstance(
            current,
            sa_exc.OperationalError
            | sa_exc.InterfaceError
            | sa_exc.DisconnectionError
            | psycopg.OperationalError
            | psycopg.InterfaceError,
        ):
            return True
        current = current.__cause__ or current.__context__
    return False


def unavailable_detail(supervisor: DatabaseSupervisor | None) -> str:
    """What a request refused for an unreachable database is told."""
    if supervisor is not None and supervisor.detail:
        return f"{supervisor.detail}; try again in a few seconds"
    return "the database cannot be reached right now; try again in a few seconds"
