"""Test session: a throwaway MARGINALIA_HOME with a real embedded PostgreSQL + pgvector.

The environment is fixed first: the session's ``Settings`` (``get_settings()``) and the
``marginalia`` processes and CLI commands the tests start all read it. (No module reads
settings at import any more; tests/unit/test_architecture.py checks that.)
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"

_HOME = Path(tempfile.mkdtemp(prefix="marginalia-test-"))
os.environ["MARGINALIA_HOME"] = str(_HOME)
for _var in ("DATABASE_URL", "MARGINALIA_DATABASE_URL", "REDIS_URL", "MARGINALIA_REDIS_URL"):
    os.environ.pop(_var, None)
os.environ.setdefault("MARGINALIA_LLM__PROVIDER", "offline")
# Heartbeats every second so interrupted jobs are detected quickly in tests.
os.environ["MARGINALIA_JOBS__HEARTBEAT_S"] = "0.5"
os.environ["MARGINALIA_JOBS__STALE_AFTER_S"] = "3"
# Uploads refresh the knowledge layer inline (the debounced knowledge.refresh job has its own
# test, tests/integration/test_knowledge_bounded.py).
os.environ["MARGINALIA_KNOWLEDGE__REFRESH_DELAY_S"] = "0"
# The in-process test clients use base_url http://test: that host name is allowed too.
os.environ["MARGINALIA_ALLOWED_HOSTS"] = '["localhost", "127.0.0.1", "::1", "test"]'

from marginalia.config import Settings, get_settings  # noqa: E402
from marginalia.runtime import Runtime, open_runtime  # noqa: E402


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # The embedded server stops with the last process holding it (atexit);
    # the directory goes after that.
    import atexit

    atexit.register(shutil.rmtree, _HOME, True)


@pytest.fixture(scope="session")
def test_home() -> Path:
    return _HOME


@pytest.fixture(scope="session")
def settings() -> Settings:
    return get_settings()


@pytest.fixture(scope="session")
async def services(settings: Settings) -> AsyncIterator[Runtime]:
    svc = await open_runtime(settings)
    try:
        yield svc
    finally:
        await svc.close()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.exists():
        pytest.skip(f"shared data not found at {SHARED_DATA} (it sits beside the project in CI)")
    return SHARED_DATA


@pytest.fixture
def subprocess_env(test_home: Path) -> Iterator[dict[str, str]]:
    """Environment for marginalia subprocesses that share this session's home and server."""
    env = dict(os.environ)
    env["MARGINALIA_HOME"] = str(test_home)
    env["MARGINALIA_LOG_LEVEL"] = "WARNING"
    yield env
