"""Concurrent askers against a live server (issue 18, Measure).

Starts ``marginalia serve`` in a throwaway home (as scripts/fuzz_api.py does: its own
embedded PostgreSQL, the offline engine, no traffic off 127.0.0.1), uploads the 9 shared
PDFs into one workspace and waits for the ingest, then runs ``--askers`` concurrent
clients for ``--duration`` seconds. Each client asks the workspace one question after
another (the dev questions of eval/qa/dev.jsonl about these PDFs, each a new
conversation) over ``POST /api/workspaces/{id}/ask`` and reads the NDJSON stream to its
end. Reported: the ingest's seconds, requests, answers per second (asks that reached
``done`` over the wall time), errors (non-200, an ``error`` event, a stream without ``done``,
a transport error), p50/p95 time to the first byte and to the ``done`` event, and the
server's RSS (/proc/<pid>/status) before, at peak and after, and the 1-minute load
average before and after the load (the machine may be shared), and the CPU the server and
its PostgreSQL spent per answer (/proc/<pid>/stat) with the answers per second that CPU
would allow on every core of the machine (an upper bound, whatever else is running). ``--mode accounts`` makes a
user and an API token with the CLI and sends ``Authorization: Bearer``.

Usage: uv run python eval/bench_askers.py [--mode local|accounts] [--askers 20]
       [--duration 120] [--data ../shared/data] [--out FILE] [--keep]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from fuzz_api import (  # noqa: E402  (the fuzz runner's server helpers)
    free_port,
    make_token,
    marginalia,
    server_env,
    wait_healthy,
    wait_job,
)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _ticks(pid: int) -> tuple[int, int]:
    """``(own CPU, reaped children's CPU)`` of a process in clock ticks (/proc/<pid>/stat)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0, 0
    return int(fields[11]) + int(fields[12]), int(fields[13]) + int(fields[14])


def cpu_seconds(server: int, home: Path) -> tuple[float, float]:
    """CPU seconds used so far by the server process and by its embedded PostgreSQL (the
    postmaster under ``home``, its live children, and the children it has reaped)."""
    tick = os.sysconf("SC_CLK_TCK")
    postgres = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if "postgres" in cmdline and str(home) in cmdline:
            master = int(entry.name)
            own, reaped = _ticks(master)
            postgres += own + reaped
            for child in Path("/proc").iterdir():
                if child.name.isdigit():
                    try:
                        ppid = int((child / "stat").read_text().rsplit(")", 1)[1].split()[1])
                    except (OSError, IndexError, ValueError):
                        continue
                    if ppid == master:
                        postgres += _ticks(int(child.name))[0]
    return _ticks(server)[0] / tick, postgres / tick


def questions(data: Path) -> list[str]:
    pdfs = {p.name for p in (data / "pdfs").glob("*.pdf")}
    rows = [json.loads(line) for line in (ROOT / "eval/qa/dev.jsonl").read_text().splitlines()]
    return [r["question"] for r in rows if r.get("doc") in pdfs] or [
        "What does SPECTER use as a training signal?"
    ]


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


async def asker(
    http: httpx.AsyncClient,
    url: str,
    pool: list[str],
    offset: int,
    deadline: float,
    results: list[dict[str, Any]],
) -> None:
    n = offset
    while time.monotonic() < deadline:
        question = pool[n % len(pool)]
        n += 1
        started = time.monotonic()
        row: dict[str, Any] = {"first_byte_s": None, "done_s": None, "error": None}
        try:
            async with http.stream("POST", url, json={"question": question}) as response:
                if response.status_code != 200:
                    await response.aread()
                    row["error"] = f"HTTP {response.status_code}"
                else:
                    buffer = b""
                    async for chunk in response.aiter_raw():
                        if row["first_byte_s"] is None:
                            row["first_byte_s"] = time.monotonic() - started
                        buffer += chunk
                        *lines, buffer = buffer.split(b"\n")
                        for line in lines:
                            if not line.strip():
                                continue
                            kind = json.loads(line).get("type")
                            if kind == "done":
                                row["done_s"] = time.monotonic() - started
                            elif kind == "error":
                                row["error"] = "error event"
                    if row["done_s"] is None and row["error"] is None:
                        row["error"] = "no done event"
        except httpx.HTTPError as exc:
            row["error"] = type(exc).__name__
        results.append(row)


async def load(
    base: str, headers: dict[str, str], workspace_id: str, askers: int, duration: float, data: Path
) -> list[dict[str, Any]]:
    pool = questions(data)
    url = f"/api/workspaces/{workspace_id}/ask"
    results: list[dict[str, Any]] = []
    limits = httpx.Limits(max_connections=askers + 4)
    deadline = time.monotonic() + duration
    async with httpx.AsyncClient(
        base_url=base, headers=headers, timeout=600, limits=limits
    ) as http:
        await asyncio.gather(
            *(asker(http, url, pool, i * 7, deadline, results) for i in range(askers))
        )
    return results


def ingest(http: httpx.Client, data: Path) -> tuple[str, float]:
    """The workspace's id and the ingest's seconds (upload to the job's end)."""
    ws = http.post("/api/workspaces", json={"name": f"askers {uuid.uuid4().hex[:6]}"}).json()
    pdfs = sorted((data / "pdfs").glob("*.pdf"))
    files = [("files", (p.name, p.read_bytes(), "application/pdf")) for p in pdfs]
    started = time.monotonic()
    job = http.post(f"/api/workspaces/{ws['id']}/sources", files=files).raise_for_status().json()
    finished = wait_job(http, job["id"], timeout_s=1800)
    seconds = time.monotonic() - started
    sources = http.get(f"/api/workspaces/{ws['id']}/sources").json()
    print(
        f"ingest {finished['status']}: {len(sources)} sources of {len(pdfs)} PDFs "
        f"in {seconds:.1f} s",
        flush=True,
    )
    return str(ws["id"]), seconds


def main() -> None:
    home = Path(tempfile.mkdtemp(prefix=f"marginalia-askers-{ARGS.mode}-"))
    env = server_env(home, ARGS.mode)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = home / "serve.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            marginalia("serve", "--port", str(port)),
            env=env,
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_healthy(base, proc, log, timeout_s=180)
        headers: dict[str, str] = {}
        if ARGS.mode == "accounts":
            headers["Authorization"] = f"Bearer {make_token(env)}"
        with httpx.Client(base_url=base, headers=headers, timeout=600) as http:
            workspace_id, ingest_s = ingest(http, Path(ARGS.data))
            # One ask first, so the measured ones find the model and caches loaded.
            with http.stream(
                "POST", f"/api/workspaces/{workspace_id}/ask", json={"question": "What is SPECTER?"}
            ) as warm:
                warm.read()
        time.sleep(2)
        before = rss_mb(proc.pid)
        peak = [before]
        stop = threading.Event()

        def sample() -> None:
            while not stop.is_set():
                peak[0] = max(peak[0], rss_mb(proc.pid))
                stop.wait(0.1)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        load_before = os.getloadavg()[0]
        cpu_before = cpu_seconds(proc.pid, home)
        started = time.monotonic()
        results = asyncio.run(
            load(base, headers, workspace_id, ARGS.askers, ARGS.duration, Path(ARGS.data))
        )
        wall = time.monotonic() - started
        load_after = os.getloadavg()[0]
        cpu_after = cpu_seconds(proc.pid, home)
        stop.set()
        sampler.join(5)
        after = rss_mb(proc.pid)
        first = [r["first_byte_s"] for r in results if r["first_byte_s"] is not None]
        done = [r["done_s"] for r in results if r["done_s"] is not None]
        errors: dict[str, int] = {}
        for r in results:
            if r["error"]:
                errors[r["error"]] = errors.get(r["error"], 0) + 1
        report = {
            "mode": ARGS.mode,
            "askers": ARGS.askers,
            "duration_s": ARGS.duration,
            "wall_s": round(wall, 1),
            "ingest_s": round(ingest_s, 1),
            "requests": len(results),
            "answers_per_s": round(len(done) / wall, 2) if wall > 0 else None,
            "errors": sum(errors.values()),
            "error_kinds": errors,
            "first_byte_p50_s": _round(percentile(first, 50)),
            "first_byte_p95_s": _round(percentile(first, 95)),
            "done_p50_s": _round(percentile(done, 50)),
            "done_p95_s": _round(percentile(done, 95)),
            "rss_before_mb": round(before),
            "rss_peak_mb": round(peak[0]),
            "rss_after_mb": round(after),
            "server_alive": proc.poll() is None,
            "load_1min_before_after": [round(load_before, 2), round(load_after, 2)],
            # CPU the answers cost, whatever else runs on the machine: the server process
            # and its PostgreSQL, per answer; and the answers per second that CPU would
            # allow on all of this machine's cores.
            "cpu_ms_per_answer": _per(cpu_before, cpu_after, len(done)),
            "answers_per_s_cpu_bound": _bound(cpu_before, cpu_after, len(done)),
        }
        print(json.dumps(report, indent=1))
        if ARGS.out:
            Path(ARGS.out).write_text(json.dumps(report, indent=1) + "\n")
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        if ARGS.keep:
            print(f"home kept at {home}")
        else:
            shutil.rmtree(home, ignore_errors=True)


def _per(
    before: tuple[float, float], after: tuple[float, float], answers: int
) -> dict[str, float] | None:
    if not answers:
        return None
    server, postgres = (1000 * (a - b) / answers for a, b in zip(after, before, strict=True))
    return {"server": round(server), "postgres": round(postgres), "total": round(server + postgres)}


def _bound(before: tuple[float, float], after: tuple[float, float], answers: int) -> float | None:
    spent = sum(after) - sum(before)
    if not answers or spent <= 0:
        return None
    return round((os.cpu_count() or 1) * answers / spent, 2)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=["local", "accounts"], default="local")
    parser.add_argument("--askers", type=int, default=20)
    parser.add_argument("--duration", type=float, default=120.0)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--out", default=None)
    parser.add_argument("--keep", action="store_true")
    return parser.parse_args()


if __name__ == "__main__":
    ARGS = _args()
    main()
