"""Issue 34's reproductions against a live ``marginalia serve`` (real uvicorn in its own
process, its RSS read from /proc): the 838-byte BibTeX macro bomb (API and CLI), the
1 MB / 1 GiB PDF decompression bomb (upload, CLI ingest, and a research download), a
7 MB title, and request bodies refused before they are read — an unauthenticated 300 MB
``application/octet-stream`` POST and a 45 MB multipart upload (accounts mode), and
bodies over the limit of their type (local mode)."""

from __future__ import annotations

import hashlib
import http.server
import json
import select
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.test_http_resources import live_server, peak_of, rss_bytes, wait_job
from tests.support.bombs import bibtex_macro_bomb, pdf_bomb
from tests.support.processes import env_with, marginalia_cmd

MB = 1_000_000
PASSWORD = "correct horse battery"
pytestmark = pytest.mark.slow


def post_until_answered(
    port: int, path: str, headers: dict[str, str], total: int, *, chunked: bool = False
) -> tuple[int, int, bytes]:
    """POST ``total`` bytes (1 MiB pieces, never all in memory) until the server answers;
    (status, body bytes sent, the response head)."""
    piece = b"\0" * (1024 * 1024)
    head = [f"POST {path} HTTP/1.1", f"Host: 127.0.0.1:{port}"]
    head += [f"{k}: {v}" for k, v in headers.items()]
    head.append("Transfer-Encoding: chunked" if chunked else f"Content-Length: {total}")
    sent = 0
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
        sock.settimeout(10)
        try:
            while sent < total:
                if select.select([sock], [], [], 0)[0]:
                    break  # answered before the body ended
                data = piece[: total - sent]
                sock.sendall(f"{len(data):x}\r\n".encode() + data + b"\r\n" if chunked else data)
                sent += len(data)
            else:
                if chunked:
                    sock.sendall(b"0\r\n\r\n")
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


@contextmanager
def rss_rise(pid: int) -> Iterator[dict[str, float]]:
    """The server's RSS before, and its peak rise (MB) while the block runs."""
    time.sleep(0.5)
    out = {"before": rss_bytes(pid) / MB}
    with peak_of(lambda: rss_bytes(pid), every_s=0.01) as peak:
        yield out
    out["rise"] = peak[0] / MB - out["before"]


@pytest.fixture(scope="module")
def local(
    tmp_path_factory: pytest.TempPathFactory, test_home: Path, bomb_site: str
) -> Iterator[tuple[str, int]]:
    """Local mode; its catalog holds one paper whose PDF link is the bomb."""
    import os

    folder = tmp_path_factory.mktemp("local")
    catalog = folder / "catalog.jsonl"
    paper = {
        "id": "bomb-1",
        "title": "Attention is not Explanation",
        "authors": ["Sarthak Jain", "Byron C. Wallace"],
        "year": 2019,
        "abstract": "Attention mechanisms have seen wide adoption in neural NLP models. "
        "We ask whether attention weights explain predictions.",
        "pdf_url": bomb_site,
    }
    catalog.write_text(json.dumps(paper) + "\n")
    env = env_with(dict(os.environ), MARGINALIA_HOME=str(test_home), MARGINALIA_LOG_LEVEL="WARNING")
    env["MARGINALIA_SOURCES__ALLOW_PRIVATE_ADDRESSES"] = "true"
    env["MARGINALIA_CATALOG_PATH"] = str(catalog)
    with live_server(env, folder / "serve.log") as server:
        yield server


@pytest.fixture(scope="module")
def accounts_server(
    tmp_path_factory: pytest.TempPathFactory, test_home: Path
) -> Iterator[tuple[str, int, str]]:
    import os

    env = env_with(dict(os.environ), MARGINALIA_HOME=str(test_home), MARGINALIA_LOG_LEVEL="WARNING")
    env["MARGINALIA_AUTH__MODE"] = "accounts"
    email = f"bodies-{uuid.uuid4().hex[:8]}@example.org"
    subprocess.run(
        marginalia_cmd("user", "add", email, "--password-stdin"),
        input=PASSWORD + "\n",
        env=env,
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    token = (
        subprocess.run(
            marginalia_cmd("user", "token", "create", email, "--name", "t"),
            env=env,
            check=True,
            capture_output=True,
            text=True,
            timeout=120,
        )
        .stdout.strip()
        .splitlines()[-1]
    )
    with live_server(env, tmp_path_factory.mktemp("accounts") / "serve.log") as (base, pid):
        yield base, pid, token


def _workspace(base: str, headers: dict[str, str] | None = None) -> str:
    r = httpx.post(
        f"{base}/api/workspaces", json={"name": f"hostile {uuid.uuid4()}"}, headers=headers
    )
    r.raise_for_status()
    return str(r.json()["id"])


# ------------------------------------------------------------------------------ item 3


def test_unauthenticated_bodies_are_refused_before_they_are_read(
    accounts_server: tuple[str, int, str],
) -> None:
    base, pid, token = accounts_server
    port = int(base.rsplit(":", 1)[1])
    ws = _workspace(base, {"Authorization": f"Bearer {token}"})
    octet = {"Content-Type": "application/octet-stream"}
    # A JSON route's body was read whole (FastAPI) before the access check; an upload's
    # parts were parsed first.
    cases = {
        "300 MB octet-stream": ("/api/workspaces", octet, 300 * MB, False),
        "300 MB octet-stream, chunked": ("/api/workspaces", octet, 300 * MB, True),
        "45 MB multipart": (
            f"/api/workspaces/{ws}/sources",
            {"Content-Type": "multipart/form-data; boundary=b"},
            45 * MB,
            False,
        ),
    }
    for label, (path, headers, total, chunked) in cases.items():
        with rss_rise(pid) as rss:
            status, sent, answer = post_until_answered(port, path, headers, total, chunked=chunked)
        print(f"{label}: {status} after {sent / MB:.1f} MB sent; RSS +{rss['rise']:.1f} MB")
        assert status == 401, (label, answer[:300])
        assert sent < 20 * MB, (label, sent)  # before issue 34: the whole body, then 401
        assert rss["rise"] < 30, (label, rss)  # before: +580 MB for the 300 MB body
    assert httpx.get(f"{base}/api/health").status_code == 200


def test_every_body_type_has_a_limit_checked_before_reading(local: tuple[str, int]) -> None:
    base, pid = local
    port = int(base.rsplit(":", 1)[1])
    ws = _workspace(base)
    path = f"/api/workspaces/{ws}/bibtex"
    with rss_rise(pid) as rss:
        declared = post_until_answered(
            port, path, {"Content-Type": "application/octet-stream"}, 300 * MB
        )
        streamed = post_until_answered(
            port, path, {"Content-Type": "application/octet-stream"}, 300 * MB, chunked=True
        )
    assert declared[0] == 413 and declared[1] < 5 * MB, declared[:2]
    assert streamed[0] == 413 and streamed[1] < 30 * MB, streamed[:2]  # cut near 8 MB
    assert rss["rise"] < 60, rss
    public = post_until_answered(
        port, "/api/auth/session", {"Content-Type": "application/json"}, 50 * MB
    )
    # (what was "sent" includes the few MB the sockets' buffers took before the answer)
    assert public[0] == 413 and public[1] < 10 * MB


# ------------------------------------------------------------------------------ item 1, 5


def test_the_bibtex_macro_bomb_is_a_quick_422_over_the_api(local: tuple[str, int]) -> None:
    base, pid = local
    ws = _workspace(base)
    with rss_rise(pid) as rss:
        started = time.monotonic()
        r = httpx.post(
            f"{base}/api/workspaces/{ws}/bibtex",
            content=bibtex_macro_bomb().encode(),
            headers={"Content-Type": "application/x-bibtex"},
            timeout=120,
        )
        seconds = time.monotonic() - started
    print(f"BibTeX macro bomb: {r.status_code} in {seconds:.2f}s, RSS +{rss['rise']:.1f} MB")
    assert r.status_code == 422 and "macro bomb" in r.json()["detail"], r.text
    assert seconds < 10 and rss["rise"] < 50
    assert httpx.get(f"{base}/api/health").status_code == 200
    assert httpx.get(f"{base}/api/workspaces/{ws}/sources").json() == []


def test_the_bibtex_macro_bomb_is_refused_by_the_cli_import(
    subprocess_env: dict[str, str], tmp_path: Path
) -> None:
    bomb = tmp_path / "bomb.bib"
    bomb.write_text(bibtex_macro_bomb())
    name = f"bombed {uuid.uuid4().hex[:6]}"
    done = subprocess.run(
        marginalia_cmd("import-bibtex", str(bomb), "-w", name, "--quiet"),
        env=env_with(subprocess_env),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1 and "macro bomb" in done.stdout + done.stderr
    listed = subprocess.run(
        marginalia_cmd("workspace", "list"),
        env=env_with(subprocess_env),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert name not in listed.stdout  # a bad file creates no workspace


def test_a_seven_mb_title_is_refused_with_a_summary_line(local: tuple[str, int]) -> None:
    base, _pid = local
    ws = _workspace(base)
    huge = "A" * (7 * 1024 * 1024)
    alone = httpx.post(
        f"{base}/api/workspaces/{ws}/bibtex",
        content=f"@article{{big, title={{{huge}}}}}".encode(),
        headers={"Content-Type": "application/x-bibtex"},
        timeout=120,
    )
    assert alone.status_code == 422 and "7,340,032 characters" in alone.json()["detail"]
    mixed = httpx.post(
        f"{base}/api/workspaces/{ws}/bibtex?fetch=false",
        content=(
            f"@article{{big, title={{{huge}}}}}\n"
            "@article{ok, title={Attention Is All You Need}, year={2017}, "
            "abstract={The dominant sequence transduction models are recurrent.}}\n"
        ).encode(),
        headers={"Content-Type": "application/x-bibtex"},
        timeout=120,
    )
    assert mixed.status_code == 202, mixed.text
    with httpx.Client(base_url=base, timeout=120) as http:
        job = wait_job(http, mixed.json()["id"])
        summary: dict[str, Any] = job["result"]["import"]  # type: ignore[index]
        assert [f["reason"] for f in summary["failed"]] == ["too_long"]
        assert (
            "title is 7,340,032 characters long (at most 1,000)" in summary["failed"][0]["detail"]
        )
        assert summary["abstract_only"] + summary["metadata_only"] + summary["imported"] == 1
        assert len(http.get(f"/api/workspaces/{ws}/sources").content) < 20_000
        assert len(http.get("/api/jobs").content) < 2 * MB  # before: 14.7 MB


# ------------------------------------------------------------------------------ item 2


def test_the_pdf_bomb_upload_is_refused_and_the_server_stays_small(local: tuple[str, int]) -> None:
    base, pid = local
    ws = _workspace(base)
    bomb = pdf_bomb()
    with rss_rise(pid) as rss:
        started = time.monotonic()
        r = httpx.post(
            f"{base}/api/workspaces/{ws}/sources",
            files=[("files", ("bomb.pdf", bomb, "application/pdf"))],
            timeout=300,
        )
        seconds = time.monotonic() - started
    print(f"1 MB PDF bomb upload: {r.status_code} in {seconds:.1f}s, RSS +{rss['rise']:.1f} MB")
    assert r.status_code == 422 and r.json()["error"] == "over_budget", r.text
    assert "inflates to more than 64 MB" in r.json()["detail"]
    assert rss["rise"] < 100  # before issue 34: 202, and +2 GB
    assert httpx.get(f"{base}/api/workspaces/{ws}/sources").json() == []


def test_the_pdf_bomb_is_refused_by_the_cli_ingest(
    subprocess_env: dict[str, str], tmp_path: Path
) -> None:
    bomb = tmp_path / "bomb.pdf"
    bomb.write_bytes(pdf_bomb())
    env = env_with(subprocess_env)
    name = f"cli bomb {uuid.uuid4().hex[:6]}"
    subprocess.run(
        marginalia_cmd("workspace", "create", name),
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )
    done = subprocess.run(
        marginalia_cmd("ingest", str(bomb), "--workspace", name),
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    said = " ".join((done.stdout + done.stderr).split())  # rich wraps lines
    assert done.returncode != 0 and "inflates to more than 64 MB" in said, said


class _BombHandler(http.server.BaseHTTPRequestHandler):
    body = b""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/pdf")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def bomb_site() -> Iterator[str]:
    """A web server whose paper.pdf is the 1 MB / 1 GiB PDF bomb."""
    _BombHandler.body = pdf_bomb()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _BombHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/paper.pdf"
    finally:
        server.shutdown()
        server.server_close()


def test_a_research_download_of_a_pdf_bomb_is_refused(
    local: tuple[str, int], test_home: Path
) -> None:
    """Research downloads PDFs into the same parser: the catalog's paper links the bomb
    (``bomb_site``); its full text is refused for its budget, the abstract is kept, the
    downloaded file is not kept, the job succeeds and the server stays small."""
    base, pid = local
    ws = _workspace(base)
    with httpx.Client(base_url=base, timeout=300) as client:  # warm up: the embedder loads
        note = b"# Attention\n\nAttention weights are often read as explanations of a model."
        up = client.post(f"/api/workspaces/{ws}/sources", files=[("files", ("n.md", note))])
        assert wait_job(client, up.json()["id"])["status"] == "succeeded"
    with rss_rise(pid) as rss, httpx.Client(base_url=base, timeout=300) as client:
        r = client.post(
            f"/api/workspaces/{ws}/research",
            json={"description": "is attention an explanation", "sources": ["catalog"]},
        )
        assert r.status_code == 202, r.text
        job = wait_job(client, r.json()["id"])
    print(f"research download of the PDF bomb: job {job['status']}, RSS +{rss['rise']:.1f} MB")
    assert job["status"] == "succeeded", job
    [item] = job["result"]["candidates"]  # type: ignore[index]
    assert item["fetch"]["status"] == "ok" and item["abstract_only"] is True, item
    events = httpx.get(f"{base}/api/jobs/{job['id']}/events", timeout=60).text
    reasons = [
        json.loads(line[len("data: ") :]).get("data", {}).get("reason")
        for line in events.splitlines()
        if line.startswith("data: ")
    ]
    assert "parse_over_budget" in reasons, events[-2000:]
    digest = hashlib.sha256(pdf_bomb()).hexdigest()
    assert not list((test_home / "files").rglob(digest))  # no orphan file
    assert rss["rise"] < 150, rss  # before issue 34: +2 GB
