"""The embedded PostgreSQL is supervised (issue 34, part 2): after a kill -9 of its
postmaster, `serve` starts it again; meanwhile every route answers 503 JSON
``database_unavailable`` (never a 500, never a traceback) and the readiness check says
why; then everything works again, the data intact."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import httpx
import pytest

from tests.support.processes import env_with, free_port, marginalia_cmd, running, wait_healthy


def _postmaster_pid(home: Path) -> int:
    (pidfile,) = list(home.rglob("postmaster.pid"))
    return int(pidfile.read_text().splitlines()[0])


@pytest.mark.slow
def test_serve_restarts_a_killed_postgres_and_answers_503_meanwhile(
    subprocess_env: dict[str, str], tmp_path: Path
) -> None:
    home = tmp_path / "home"  # a server of its own: the test session's stays untouched
    env = env_with(subprocess_env, MARGINALIA_HOME=str(home), MARGINALIA_DATABASE_CHECK_S="0.5")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = tmp_path / "serve.log"
    with running(marginalia_cmd("serve", "--port", str(port)), env, log) as server:
        wait_healthy(base, server, log, timeout_s=120)
        created = httpx.post(f"{base}/api/workspaces", json={"name": "kept"}, timeout=30)
        assert created.status_code == 201, created.text
        killed = _postmaster_pid(home)
        os.kill(killed, signal.SIGKILL)

        seen: dict[str, list[int]] = {"workspaces": [], "health": []}
        refusals: list[dict[str, object]] = []
        health_down: list[dict[str, object]] = []
        started = time.monotonic()
        recovered_after: float | None = None
        while time.monotonic() - started < 60:
            r = httpx.get(f"{base}/api/workspaces", timeout=10)
            seen["workspaces"].append(r.status_code)
            assert "Traceback" not in r.text
            if r.status_code == 503:
                refusals.append(r.json())
            h = httpx.get(f"{base}/api/health", timeout=10)
            seen["health"].append(h.status_code)
            if h.status_code == 503:
                health_down.append(h.json())
            if r.status_code == 200 and refusals:
                recovered_after = time.monotonic() - started
                break
            time.sleep(0.1)
        assert set(seen["workspaces"]) <= {200, 503}, seen
        assert set(seen["health"]) <= {200, 503}, seen
        assert refusals, f"no request saw the outage: {seen}"
        assert all(body["error"] == "database_unavailable" for body in refusals), refusals
        assert any("restarting" in str(body["detail"]) for body in refusals), refusals
        assert health_down and all(h["status"] == "unavailable" for h in health_down)
        # Once the supervisor has noticed (within a check), readiness says why.
        assert any(
            "restarting" in str(h["database"]["detail"])  # type: ignore[index]
            and h["database"]["supervisor"]["state"] == "restarting"  # type: ignore[index]
            for h in health_down
        ), health_down
        assert recovered_after is not None, f"not back within 60 s: {seen}"
        print(f"503 for {len(refusals)} requests, back {recovered_after:.1f}s after the kill")

        assert _postmaster_pid(home) != killed
        names = [w["name"] for w in httpx.get(f"{base}/api/workspaces", timeout=10).json()]
        assert "kept" in names
        health = httpx.get(f"{base}/api/health", timeout=10).json()
        assert health["status"] != "unavailable"
        assert health["database"]["supervisor"]["restarts"] == 1
        assert health["database"]["supervisor"]["state"] == "ok"
    text = log.read_text()
    print("\n".join(line for line in text.splitlines() if "PostgreSQL" in line))
    assert "Traceback" not in text, text[-3000:]
    assert "the embedded PostgreSQL is back" in text
