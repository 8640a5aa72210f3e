"""Cold and warm start of the API: process start → first healthy `GET /api/health`.

Cold: a fresh MARGINALIA_HOME every run (initdb, database creation, migrations).
Warm: the same home again (server data exists; the embedded server is started again).
Usage: uv run python eval/bench_startup.py [--runs 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_once(home: Path) -> float:
    port = _port()
    env = dict(os.environ, MARGINALIA_HOME=str(home), MARGINALIA_LOG_LEVEL="WARNING")
    for var in ("DATABASE_URL", "REDIS_URL"):
        env.pop(var, None)
    began = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "marginalia", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while True:
            if proc.poll() is not None:
                raise RuntimeError("server exited during start-up")
            try:
                if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1).status_code == 200:
                    return time.perf_counter() - began
            except httpx.HTTPError:
                pass
            if time.perf_counter() - began > 120:
                raise TimeoutError("not healthy after 120 s")
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    cold, warm = [], []
    root = Path(tempfile.mkdtemp(prefix="marginalia-bench-start-"))
    try:
        for i in range(args.runs):
            home = root / f"cold-{i}"
            cold.append(start_once(home))
            warm.append(start_once(home))  # interleaved, so both see the same machine load
    finally:
        shutil.rmtree(root, ignore_errors=True)
    report = {
        "runs": args.runs,
        "cold_s": {"median": statistics.median(cold), "all": [round(x, 3) for x in cold]},
        "warm_s": {"median": statistics.median(warm), "all": [round(x, 3) for x in warm]},
        "ratio_cold_over_warm": statistics.median(cold) / statistics.median(warm),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
