"""Measure what issue 34's hostile inputs cost a live ``marginalia serve``: its RSS before,
at the peak and after each input, and the latency of an unrelated route while clients
sign in.

Usage:
  uv run python scripts/bench_hostile.py [--tree PATH] [--cases a,b,...] [--label NAME]

``--tree`` runs the server from another checkout's ``backend/`` (e.g. ``main``, exported
with ``git archive main | tar -x -C /tmp/marginalia-main``) with this environment's
packages, for a before/after pair; by default this checkout. Cases:

- ``pdf1``, ``pdf2``: upload a PDF whose content stream inflates to 1 GiB (1 MB file) /
  2 GiB (2 MB file), local mode;
- ``bibtex``: POST the 838-byte @string macro bomb (local mode). Not for ``main``'s code:
  it grows until the kernel kills it (23 GB in the issue);
- ``octet``, ``multipart``: an unauthenticated 300 MB ``application/octet-stream`` POST and
  a 45 MB multipart upload, accounts mode;
- ``signin``: GET /api/workspaces (a token, accounts mode) every 20 ms, alone and while six
  clients sign in with the right password in a loop (the back-off's limits raised so
  that every sign-in checks its password); then six clients guessing wrong passwords
  with the default back-off;
- ``overhead``: what the parse sandbox adds (this checkout only): the nine shared PDFs
  parsed in this process and through the sandbox, interleaved, three times.

Each server runs in a throwaway home (its own embedded PostgreSQL); everything stays on
127.0.0.1. Prints one line per measurement.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import select
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.support.bombs import bibtex_macro_bomb, pdf_bomb  # noqa: E402

PASSWORD = "correct horse battery"
MB = 1024 * 1024


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


@contextmanager
def server(tree: Path, mode: str, extra: dict[str, str] | None = None) -> Iterator[dict[str, Any]]:
    home = Path(tempfile.mkdtemp(prefix="marginalia-bench-"))
    env = dict(os.environ)
    for var in ("DATABASE_URL", "MARGINALIA_DATABASE_URL", "REDIS_URL", "MARGINALIA_REDIS_URL"):
        env.pop(var, None)
    env.update(
        MARGINALIA_HOME=str(home),
        MARGINALIA_LLM__PROVIDER="offline",
        MARGINALIA_LOG_LEVEL="WARNING",
        PYTHONPATH=str(tree / "backend"),
        MARGINALIA_AUTH__MODE=mode,
        **(extra or {}),
    )
    info: dict[str, Any] = {"headers": {}}
    if mode == "accounts":
        email = f"bench-{uuid.uuid4().hex[:6]}@example.org"
        cli = [sys.executable, "-m", "marginalia"]
        subprocess.run(
            [*cli, "user", "add", email, "--password-stdin"],
            input=PASSWORD + "\n",
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
        token = (
            subprocess.run(
                [*cli, "user", "token", "create", email, "--name", "bench"],
                env=env,
                check=True,
                capture_output=True,
                text=True,
            )
            .stdout.strip()
            .splitlines()[-1]
        )
        info.update(email=email, headers={"Authorization": f"Bearer {token}"})
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = (home / "serve.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "marginalia", "serve", "--port", str(port)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError((home / "serve.log").read_text()[-2000:])
            try:
                if httpx.get(f"{base}/api/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.3)
        info.update(base=base, pid=proc.pid, port=port)
        yield info
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
        log.close()
        shutil.rmtree(home, ignore_errors=True)


@contextmanager
def watched(pid: int) -> Iterator[dict[str, float]]:
    time.sleep(1)
    out = {"before": rss_mb(pid), "peak": rss_mb(pid)}
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            out["peak"] = max(out["peak"], rss_mb(pid))
            stop.wait(0.01)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    started = time.monotonic()
    try:
        yield out
    finally:
        out["seconds"] = time.monotonic() - started
        stop.set()
        thread.join()
        time.sleep(2)
        out["after"] = rss_mb(pid)


def report(label: str, status: object, rss: dict[str, float]) -> None:
    print(
        f"{label}: {status} in {rss['seconds']:.1f} s; server RSS {rss['before']:.0f} MB, "
        f"peak {rss['peak']:.0f} MB (+{rss['peak'] - rss['before']:.0f}), "
        f"after {rss['after']:.0f} MB (+{rss['after'] - rss['before']:.0f})",
        flush=True,
    )


def workspace(info: dict[str, Any]) -> str:
    r = httpx.post(
        f"{info['base']}/api/workspaces",
        json={"name": f"bench {uuid.uuid4()}"},
        headers=info["headers"],
    )
    r.raise_for_status()
    return str(r.json()["id"])


def wait_job(base: str, job: str) -> str:
    while True:
        state = str(httpx.get(f"{base}/api/jobs/{job}").json()["status"])
        if state not in ("queued", "running"):
            return state
        time.sleep(0.5)


def post_raw(
    port: int, path: str, ctype: str, total: int, prefix: bytes = b"", suffix: bytes = b""
) -> tuple[int, float]:
    """Declare ``prefix`` + ``total`` bytes + ``suffix`` and send them (1 MiB pieces) until
    the server answers; (status, MiB sent)."""
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: {ctype}\r\n"
        f"Content-Length: {len(prefix) + total + len(suffix)}\r\n\r\n"
    ).encode()
    piece, sent = b"x" * MB, 0
    with socket.create_connection(("127.0.0.1", port), timeout=120) as sock:
        sock.sendall(head + prefix)
        with contextlib.suppress(OSError):  # the server answered and stopped reading
            while sent < total and not select.select([sock], [], [], 0)[0]:
                sock.sendall(piece[: total - sent])
                sent += min(MB, total - sent)
            if sent == total:
                sock.sendall(suffix)
        answer = sock.recv(4096)
    status = int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0
    return status, sent / MB


async def _latencies(base: str, headers: dict[str, str], stop: asyncio.Event) -> list[float]:
    out: list[float] = []
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=60) as http:
        while not stop.is_set():
            started = time.perf_counter()
            (await http.get("/api/workspaces")).raise_for_status()
            out.append((time.perf_counter() - started) * 1000)
            await asyncio.sleep(0.02)
    return out


async def _sign_ins(base: str, email: str, password: str, seconds: float) -> list[int]:
    statuses: list[int] = []
    deadline = time.monotonic() + seconds
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        while time.monotonic() < deadline:
            r = await http.post("/api/auth/session", json={"email": email, "password": password})
            statuses.append(r.status_code)
    return statuses


async def _storm(
    info: dict[str, Any], password: str, clients: int, seconds: float
) -> tuple[list[float], list[int]]:
    stop = asyncio.Event()
    probe = asyncio.create_task(_latencies(info["base"], info["headers"], stop))
    statuses: list[int] = []
    if clients:
        done = await asyncio.gather(
            *(_sign_ins(info["base"], info["email"], password, seconds) for _ in range(clients))
        )
        statuses = [s for d in done for s in d]
    else:
        await asyncio.sleep(seconds)
    stop.set()
    return await probe, statuses


def latency_line(label: str, latencies: list[float], statuses: list[int]) -> None:
    ordered = sorted(latencies)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    counts = {s: statuses.count(s) for s in sorted(set(statuses))}
    print(
        f"{label}: GET /api/workspaces n={len(latencies)} median {statistics.median(latencies):.1f} ms, "
        f"p95 {p95:.1f} ms, max {max(latencies):.1f} ms; sign-ins {counts}",
        flush=True,
    )


def sandbox_overhead(rounds: int = 3) -> None:
    from marginalia.config import get_settings
    from marginalia.ingest.parse import parse_document
    from marginalia.ingest.untrusted import parse_untrusted

    settings = get_settings().ingest
    pdfs = sorted((ROOT.parent / "shared" / "data" / "pdfs").glob("*.pdf"))
    parse_untrusted(pdfs[0].read_bytes(), "warm.pdf", None, settings)  # the zygote starts
    inside: list[float] = []
    outside: list[float] = []
    for _ in range(rounds):
        for pdf in pdfs:
            data = pdf.read_bytes()
            started = time.perf_counter()
            parse_document(data, pdf.name, max_bytes=60 * MB, max_pages=300)
            inside.append(time.perf_counter() - started)
            started = time.perf_counter()
            parse_untrusted(data, pdf.name, None, settings)
            outside.append(time.perf_counter() - started)
    added = [o - i for o, i in zip(outside, inside, strict=True)]
    print(
        f"parse of the {len(pdfs)} shared PDFs ({rounds} rounds): in process median "
        f"{statistics.median(inside) * 1000:.0f} ms, sandboxed {statistics.median(outside) * 1000:.0f}"
        f" ms; added per PDF median {statistics.median(added) * 1000:.0f} ms",
        flush=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=ROOT)
    parser.add_argument("--cases", default="pdf1,pdf2,bibtex,octet,multipart,signin")
    parser.add_argument("--label", default="")
    parser.add_argument("--seconds", type=float, default=15.0)
    args = parser.parse_args()
    cases = set(args.cases.split(","))
    tag = f"[{args.label or args.tree.name}] "
    if cases & {"pdf1", "pdf2", "bibtex"}:
        with server(args.tree, "local") as info:
            ws = workspace(info)
            for case, inflated in (("pdf1", 1 << 30), ("pdf2", 2 << 30)):
                if case not in cases:
                    continue
                bomb = pdf_bomb(inflated)
                with watched(info["pid"]) as rss:
                    r = httpx.post(
                        f"{info['base']}/api/workspaces/{ws}/sources",
                        files=[("files", (f"{case}.pdf", bomb, "application/pdf"))],
                        timeout=600,
                    )
                    status: object = r.status_code
                    if r.status_code == 202:  # accepted: the ingest job parses it
                        status = f"202, job {wait_job(info['base'], r.json()['id'])}"
                report(
                    f"{tag}PDF bomb {len(bomb) / 1e6:.1f} MB -> {inflated >> 30} GiB", status, rss
                )
            if "bibtex" in cases:
                with watched(info["pid"]) as rss:
                    r = httpx.post(
                        f"{info['base']}/api/workspaces/{ws}/bibtex",
                        content=bibtex_macro_bomb().encode(),
                        headers={"Content-Type": "application/x-bibtex"},
                        timeout=600,
                    )
                report(f"{tag}BibTeX macro bomb (838 bytes)", r.status_code, rss)
    if cases & {"octet", "multipart"}:
        with server(args.tree, "accounts") as info:
            ws = workspace(info)
            part = (
                b'--b\r\nContent-Disposition: form-data; name="files"; filename="big.txt"\r\n'
                b"Content-Type: text/plain\r\n\r\n"
            )
            for case, path, ctype, total, prefix, suffix in (
                # a JSON route: the body was read whole (FastAPI) before the access check
                ("octet", "/api/workspaces", "application/octet-stream", 300_000_000, b"", b""),
                # a well-formed upload under the per-file limit: parsed before the check
                (
                    "multipart",
                    f"/api/workspaces/{ws}/sources",
                    "multipart/form-data; boundary=b",
                    45_000_000,
                    part,
                    b"\r\n--b--\r\n",
                ),
            ):
                if case in cases:
                    with watched(info["pid"]) as rss:
                        status, sent = post_raw(info["port"], path, ctype, total, prefix, suffix)
                    report(
                        f"{tag}unauthenticated {total // 1_000_000} MB {case} to {path.split('/')[-1]} "
                        f"({sent:.0f} MiB sent)",
                        status,
                        rss,
                    )
    if "overhead" in cases:
        sandbox_overhead()
    if "signin" in cases:
        lifted = {
            "MARGINALIA_AUTH__SIGN_IN_FREE_ATTEMPTS": "1000000",
            "MARGINALIA_AUTH__SIGN_IN_FREE_ATTEMPTS_PER_ADDRESS": "1000000",
        }
        with server(args.tree, "accounts", lifted) as info:
            latency_line(f"{tag}idle", *asyncio.run(_storm(info, PASSWORD, 0, args.seconds)))
            latency_line(
                f"{tag}6 clients signing in (right password)",
                *asyncio.run(_storm(info, PASSWORD, 6, args.seconds)),
            )
        with server(args.tree, "accounts") as info:
            latency_line(
                f"{tag}6 clients guessing (wrong password, default back-off)",
                *asyncio.run(_storm(info, "wrong password", 6, args.seconds)),
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
