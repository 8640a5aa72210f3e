"""Server resources under load (issue 18, Tests), measured on a live ``marginalia serve``
(real uvicorn in its own process; its RSS read from /proc/<pid>/status):

- 20 concurrent downloads of a 50 MB stored file raise the server's RSS by < 100 MB
  (files are streamed from storage, not read into memory);
- a 500 MB chunked upload against the default 50 MB limit is answered 413 with < 60 MB
  written to disk (the spool directory, the server's open files there, and the file
  store), the body generated on the fly.
"""

from __future__ import annotations

import asyncio
import os
import select
import socket
import stat
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pikepdf
import pytest

from tests.support.processes import env_with, free_port, marginalia_cmd, running, wait_healthy

MB = 1_000_000


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def tree_bytes(*roots: Path) -> int:
    total = 0
    for root in roots:
        for path in root.rglob("*"):
            try:
                if path.is_file():
                    total += path.stat().st_size
            except FileNotFoundError:
                pass  # a spool file removed while we looked
    return total


def open_file_bytes(pid: int, *roots: Path) -> int:
    """Bytes in the regular files process ``pid`` holds open under ``roots``, deleted or
    unnamed ones included (a spooled upload is an O_TMPFILE no directory listing shows)."""
    total = 0
    prefixes = tuple(str(root) for root in roots)
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
            if target.startswith(prefixes):
                info = os.stat(fd)
                total += info.st_size if stat.S_ISREG(info.st_mode) else 0
        except (FileNotFoundError, PermissionError):
            pass
    return total


@contextmanager
def peak_of(measure: Callable[[], int], every_s: float = 0.02) -> Iterator[list[int]]:
    """Sample ``measure()`` in a thread while the block runs; yields [peak] (filled in)."""
    peak = [measure()]
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], measure())
            stop.wait(every_s)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        yield peak
    finally:
        stop.set()
        thread.join(5)
        peak[0] = max(peak[0], measure())


@contextmanager
def live_server(env: dict[str, str], log: Path) -> Iterator[tuple[str, int]]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with running(marginalia_cmd("serve", "--port", str(port)), env, log) as proc:
        wait_healthy(base, proc, log, timeout_s=120)
        yield base, proc.pid


def padded_pdf(shared_data: Path, size: int, out: Path) -> Path:
    """A real paper padded to ``size`` bytes with an incompressible stream the catalog
    references (so it is kept), written to ``out``."""
    with pikepdf.open(shared_data / "pdfs" / "trauma-bmc2010.pdf") as pdf:
        base = out.with_suffix(".base.pdf")
        pdf.save(base)
        room = size - base.stat().st_size - 200
        pdf.Root.MarginaliaPadding = pikepdf.Stream(pdf, os.urandom(room))
        pdf.save(out)
    base.unlink()
    return out


def wait_job(http: httpx.Client, job_id: str, timeout_s: float = 300) -> dict[str, object]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        job: dict[str, object] = http.get(f"/api/jobs/{job_id}").json()
        if job["status"] not in ("queued", "running"):
            return job
        time.sleep(0.5)
    raise TimeoutError(job_id)


async def _download_all(base: str, url: str, count: int) -> list[int]:
    async def one(http: httpx.AsyncClient) -> int:
        received = 0
        async with http.stream("GET", url) as response:
            assert response.status_code == 200
            async for chunk in response.aiter_raw():
                received += len(chunk)
        return received

    limits = httpx.Limits(max_connections=count)
    async with httpx.AsyncClient(base_url=base, timeout=300, limits=limits) as http:
        return list(await asyncio.gather(*(one(http) for _ in range(count))))


@pytest.mark.slow
def test_20_concurrent_downloads_of_a_50_mb_file_stay_in_constant_memory(
    subprocess_env: dict[str, str], tmp_path: Path, shared_data: Path
) -> None:
    pdf = padded_pdf(shared_data, 50 * MB, tmp_path / "big.pdf")
    size = pdf.stat().st_size
    with (
        live_server(env_with(subprocess_env), tmp_path / "serve.log") as (base, pid),
        httpx.Client(base_url=base, timeout=300) as http,
    ):
        ws = http.post("/api/workspaces", json={"name": f"rss {uuid.uuid4()}"}).json()
        with pdf.open("rb") as handle:
            files = [("files", ("big.pdf", handle, "application/pdf"))]
            job = http.post(f"/api/workspaces/{ws['id']}/sources", files=files).json()
        assert wait_job(http, job["id"])["status"] == "succeeded", job
        [source] = http.get(f"/api/workspaces/{ws['id']}/sources").json()
        url = f"/api/sources/{source['id']}/file"
        # One download first: whatever it warms up is not the downloads' cost.
        with http.stream("GET", url) as warm_up:
            assert sum(len(c) for c in warm_up.iter_raw()) == size
        time.sleep(1)
        before = rss_bytes(pid)
        started = time.monotonic()
        with peak_of(lambda: rss_bytes(pid)) as peak:
            received = asyncio.run(_download_all(base, url, 20))
        seconds = time.monotonic() - started
    assert received == [size] * 20
    rise = peak[0] - before
    print(
        f"20 x {size / MB:.1f} MB downloads in {seconds:.1f}s: server RSS "
        f"{before / MB:.0f} MB -> peak {peak[0] / MB:.0f} MB (+{rise / MB:.1f} MB)"
    )
    assert rise < 100 * MB, f"RSS rose {rise / MB:.0f} MB"


def chunked_upload(port: int, path: str, total: int, piece: bytes) -> tuple[int, int, bytes]:
    """POST a multipart body of ``total`` bytes of file data with chunked transfer
    encoding, ``piece`` after ``piece`` (never all in memory), until the server answers;
    returns (status, file bytes sent, response head)."""
    boundary = "resource-test-boundary"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="files"; '
        f'filename="huge.pdf"\r\nContent-Type: application/pdf\r\n\r\n'
    ).encode()
    tail = f"\r\n--{boundary}--\r\n".encode()
    request = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Content-Type: multipart/form-data; boundary={boundary}\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    ).encode()

    def chunk(data: bytes) -> bytes:
        return f"{len(data):x}\r\n".encode() + data + b"\r\n"

    sent = 0
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(request + chunk(head))
        sock.settimeout(10)
        try:
            while sent < total:
                readable, _, _ = select.select([sock], [], [], 0)
                if readable:
                    break  # the server answered before the body ended
                sock.sendall(chunk(piece))
                sent += len(piece)
            else:
                sock.sendall(chunk(tail) + b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            pass  # the server stopped reading: its answer is waiting
        sock.settimeout(60)
        answer = b""
        while b"\r\n\r\n" not in answer:
            data = sock.recv(65536)
            if not data:
                break
            answer += data
    status = int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0
    return status, sent, answer


@pytest.mark.slow
def test_a_500_mb_chunked_upload_is_cut_off_at_the_50_mb_limit(
    subprocess_env: dict[str, str], tmp_path: Path, test_home: Path
) -> None:
    spool = tmp_path / "spool"  # the server's temporary files (multipart spooling)
    spool.mkdir()
    files = test_home / "files"
    files.mkdir(exist_ok=True)
    env = env_with(subprocess_env, TMPDIR=str(spool))
    env.pop("MARGINALIA_INGEST__MAX_UPLOAD_MB", None)  # the default limit, 50 MB
    stored_before = tree_bytes(files)
    with live_server(env, tmp_path / "serve.log") as (base, pid):
        port = int(base.rsplit(":", 1)[1])
        ws = httpx.post(f"{base}/api/workspaces", json={"name": f"huge {uuid.uuid4()}"}).json()
        piece = os.urandom(1024 * 1024)  # 1 MiB, sent again and again
        started = time.monotonic()

        def written() -> int:
            named = tree_bytes(spool, files) - stored_before
            return named + open_file_bytes(pid, spool, files)

        with peak_of(written, every_s=0.005) as peak:
            status, sent, answer = chunked_upload(
                port, f"/api/workspaces/{ws['id']}/sources", 500 * MB, piece
            )
        seconds = time.monotonic() - started
        sources = httpx.get(f"{base}/api/workspaces/{ws['id']}/sources").json()
    print(
        f"500 MB chunked upload: {status} after {sent / MB:.0f} MB sent in {seconds:.1f}s; "
        f"peak written to disk {peak[0] / MB:.1f} MB"
    )
    assert status == 413, answer[:500]
    assert peak[0] < 60 * MB, f"{peak[0] / MB:.0f} MB written"
    assert sent < 200 * MB, f"the server read {sent / MB:.0f} MB before answering"
    assert sources == []
    assert tree_bytes(spool) == 0 and tree_bytes(files) == stored_before  # nothing left
