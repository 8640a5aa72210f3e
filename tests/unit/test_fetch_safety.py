"""SafeFetcher against a real local HTTP server: SSRF guard, caps, types, timeouts.

No traffic ever leaves the machine: every client goes through ``GuardTransport``,
which refuses (and records) any connection to an address other than loopback, and
refused URLs must be refused before a connection is even attempted.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import shutil
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from marginalia.config import SourceSettings
from marginalia.sources.fetch import (
    FetchedDocument,
    FetchError,
    SafeFetcher,
    address_refusal,
)

PDF = b"%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n"
LOOPBACK = ("127.0.0.1", "::1")


# --------------------------------------------------------------------- fixture server


class _State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.paths: list[str] = []
        self.hosts: list[str] = []
        self.in_flight = 0
        self.max_in_flight = 0


class _Handler(BaseHTTPRequestHandler):
    state: _State

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, ctype: str | None, body: bytes, **headers: str) -> None:
        self.send_response(status)
        if ctype is not None:
            self.send_header("Content-Type", ctype)
        for k, v in headers.items():
            self.send_header(k.replace("_", "-"), v)
        if "Content_Length" not in headers:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _redirect(self, location: str) -> None:
        self._send(302, "text/plain", b"moved", Location=location)

    def do_GET(self) -> None:
        st = self.state
        with st.lock:
            st.paths.append(self.path)
            st.hosts.append(self.headers.get("Host", ""))
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._route()

    def _route(self) -> None:
        p = self.path
        if p == "/doc.pdf":
            self._send(200, "application/pdf", PDF)
        elif p == "/page.html":
            self._send(200, "text/html; charset=ISO-8859-1", b"<html><body>caf\xe9</body></html>")
        elif p == "/echo-host":
            self._send(200, "text/plain", self.headers.get("Host", "").encode())
        elif p == "/octet.pdf":
            self._send(200, "application/octet-stream", PDF)
        elif p == "/octet.bin":
            self._send(200, "application/octet-stream", b"MZ\x90\x00 not a pdf")
        elif p == "/program":
            self._send(200, "application/x-msdownload", b"MZ\x90\x00")
        elif p == "/script":
            self._send(200, "application/javascript", b"alert(1)")
        elif p == "/big-declared":
            self._send(200, "application/pdf", PDF, Content_Length="5000000")
        elif p == "/big-stream":
            # No Content-Length: the body runs until the connection closes.
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            for _ in range(64):
                self.wfile.write(b"x" * 8192)
        elif p == "/gzip-bomb":
            self._send(200, "text/plain", gzip.compress(b"\0" * 5_000_000), Content_Encoding="gzip")
        elif p == "/slow":
            time.sleep(1.5)
            self._send(200, "text/plain", b"late")
        elif p == "/drip":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            for _ in range(40):
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(0.05)
        elif p == "/concurrent":
            with self.state.lock:
                self.state.in_flight += 1
                self.state.max_in_flight = max(self.state.max_in_flight, self.state.in_flight)
            time.sleep(0.25)
            with self.state.lock:
                self.state.in_flight -= 1
            self._send(200, "text/plain", b"ok")
        elif p == "/redirect-ok":
            self._redirect("/doc.pdf")
        elif p == "/redirect-private":
            self._redirect("http://10.0.0.1/x")
        elif p == "/redirect-metadata":
            self._redirect("http://169.254.169.254/latest/meta-data/")
        elif p == "/redirect-ftp":
            self._redirect("ftp://127.0.0.1/x")
        elif p == "/redirect-loop":
            self._redirect("/redirect-loop")
        elif p.startswith("/chain/"):
            n = int(p.rsplit("/", 1)[1])
            if n == 0:
                self._send(200, "text/plain", b"end of chain")
            else:
                self._redirect(f"/chain/{n - 1}")
        elif p == "/missing":
            self._send(404, "text/html", b"not found")
        else:
            self._send(500, "text/plain", b"unknown route")


class Server:
    def __init__(self) -> None:
        self.state = _State()
        handler = type("Handler", (_Handler,), {"state": self.state})
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    srv = Server()
    srv.thread.start()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


class GuardTransport(httpx.AsyncBaseTransport):
    """Delegates to a real transport, but only for loopback; records every attempt."""

    def __init__(self, verify: ssl.SSLContext | bool = True) -> None:
        self.inner = httpx.AsyncHTTPTransport(verify=verify)
        self.attempts: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.attempts.append(str(request.url))
        if request.url.host not in LOOPBACK:
            raise AssertionError(f"a connection to {request.url.host} was attempted")
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


class Guard:
    def __init__(self, verify: ssl.SSLContext | bool = True) -> None:
        self.transports: list[GuardTransport] = []
        self.verify = verify

    def factory(self) -> httpx.AsyncClient:
        transport = GuardTransport(self.verify)
        self.transports.append(transport)
        return httpx.AsyncClient(transport=transport, timeout=httpx.Timeout(2.0), trust_env=False)

    @property
    def attempts(self) -> list[str]:
        return [a for t in self.transports for a in t.attempts]


@pytest.fixture
def guard() -> Guard:
    return Guard()


def make(guard: Guard, *, loopback: bool = True, **kw: Any) -> SafeFetcher:
    kw.setdefault("timeout_s", 2.0)
    kw.setdefault("deadline_s", 10.0)
    kw.setdefault("max_bytes", 100_000)
    return SafeFetcher(
        allowed_networks=["127.0.0.0/8", "::1/128"] if loopback else [],
        client_factory=guard.factory,
        **kw,
    )


async def _refused(fetcher: SafeFetcher, url: str, reason: str) -> FetchError:
    with pytest.raises(FetchError) as info:
        await fetcher.fetch(url)
    assert info.value.reason == reason, info.value
    return info.value


# --------------------------------------------------------------------- allowed fetches


async def test_fetch_works_when_loopback_allowed(server: Server, guard: Guard) -> None:
    f = make(guard)
    doc = await f.fetch(server.url("/doc.pdf"))
    assert isinstance(doc, FetchedDocument)
    assert doc.content_type == "application/pdf"
    assert doc.data == PDF
    assert doc.url == doc.final_url == server.url("/doc.pdf")

    page = await f.fetch(server.url("/page.html"))
    assert page.content_type == "text/html"
    assert page.charset == "iso-8859-1"
    assert page.data.decode(page.charset) == "<html><body>café</body></html>"


async def test_redirect_followed_and_rechecked(server: Server, guard: Guard) -> None:
    doc = await make(guard).fetch(server.url("/redirect-ok"))
    assert doc.final_url == server.url("/doc.pdf")
    assert doc.url == server.url("/redirect-ok")
    assert doc.data == PDF


async def test_pdf_served_as_octet_stream_is_sniffed(server: Server, guard: Guard) -> None:
    doc = await make(guard).fetch(server.url("/octet.pdf"))
    assert doc.content_type == "application/pdf"
    await _refused(make(guard), server.url("/octet.bin"), "bad_content_type")


async def test_connection_is_pinned_to_the_checked_address(server: Server, guard: Guard) -> None:
    # A name whose DNS answer changes after the check (rebinding) cannot move the
    # connection: the fetcher resolves once per hop and connects to that address.
    calls: list[str] = []

    async def rebinding_resolver(host: str, port: int) -> list[str]:
        calls.append(host)
        return ["127.0.0.1"] if len(calls) == 1 else ["10.0.0.1"]

    f = make(guard, resolver=rebinding_resolver)
    doc = await f.fetch(f"http://papers.example.test:{server.port}/echo-host")
    assert calls == ["papers.example.test"]
    # The Host header keeps the name; the TCP connection went to the checked IP.
    assert doc.data == f"papers.example.test:{server.port}".encode()
    assert doc.final_url == f"http://papers.example.test:{server.port}/echo-host"
    assert all("127.0.0.1" in a for a in guard.attempts)


async def test_default_client_fetches(server: Server) -> None:
    f = SafeFetcher(allowed_networks=["127.0.0.0/8"], timeout_s=2.0, max_bytes=100_000)
    assert (await f.fetch(server.url("/doc.pdf"))).data == PDF


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path]]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl CLI not available to make a test certificate")
    d = tmp_path_factory.mktemp("tls")
    cert, key = d / "cert.pem", d / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-keyout", str(key), "-out", str(cert), "-subj", "/CN=papers.example.test",
         "-addext", "subjectAltName=DNS:papers.example.test"],
        check=True, capture_output=True,
    )  # fmt: skip
    srv = Server()
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert, key)
    srv.httpd.socket = ctx.wrap_socket(srv.httpd.socket, server_side=True)
    srv.thread.start()
    yield srv, cert
    srv.httpd.shutdown()
    srv.httpd.server_close()


async def test_https_pinned_keeps_sni_and_certificate_check(
    tls_server: tuple[Server, Path],
) -> None:
    srv, cert = tls_server
    guard = Guard(verify=ssl.create_default_context(cafile=str(cert)))

    async def to_loopback(host: str, port: int) -> list[str]:
        return ["127.0.0.1"]

    f = make(guard, resolver=to_loopback)
    doc = await f.fetch(f"https://papers.example.test:{srv.port}/echo-host")
    assert doc.data == f"papers.example.test:{srv.port}".encode()
    assert all(a.startswith("https://127.0.0.1:") for a in guard.attempts)
    # The certificate is still checked against the name, not the pinned IP.
    err = await _refused(f, f"https://other.example.test:{srv.port}/echo-host", "unreachable")
    assert "certificate" in err.message.lower() or "hostname" in err.message.lower()


async def test_invalid_urls(guard: Guard) -> None:
    for url in ["http://", "not a url", "http:///path-only"]:
        with pytest.raises(FetchError) as info:
            await make(guard).fetch(url)
        assert info.value.reason in ("invalid_url", "scheme_not_allowed"), (url, info.value)
    assert guard.transports == []


# --------------------------------------------------------------------- refusals


async def test_loopback_refused_when_not_allowed(server: Server, guard: Guard) -> None:
    before = len(server.state.paths)
    err = await _refused(make(guard, loopback=False), server.url("/doc.pdf"), "private_address")
    assert "127.0.0.1" in err.message and "loopback" in err.message
    await _refused(
        make(guard, loopback=False), f"http://localhost:{server.port}/doc.pdf", "private_address"
    )
    assert len(server.state.paths) == before  # the server never saw a request
    assert guard.attempts == []


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/x",
        "http://192.168.1.1/",
        "http://[::ffff:169.254.169.254]/",  # IPv4-mapped IPv6
        "http://[fe80::1]/",
        "http://0.0.0.0/",
        "http://2130706433/",  # 127.0.0.1 as a decimal number
    ],
)
async def test_private_addresses_refused_without_connecting(guard: Guard, url: str) -> None:
    await _refused(make(guard, loopback=False), url, "private_address")
    assert guard.transports == []  # not even a client was created


async def test_any_private_answer_refuses_the_host(guard: Guard) -> None:
    async def mixed(host: str, port: int) -> list[str]:
        return ["93.184.216.34", "10.1.2.3"]

    err = await _refused(
        make(guard, resolver=mixed), "https://example.test/a.pdf", "private_address"
    )
    assert "10.1.2.3" in err.message
    assert guard.transports == []


async def test_redirect_to_private_address_refused(server: Server, guard: Guard) -> None:
    f = make(guard)  # loopback allowed, 10/8 and link-local not
    await _refused(f, server.url("/redirect-private"), "private_address")
    await _refused(f, server.url("/redirect-metadata"), "private_address")
    assert guard.attempts and all("127.0.0.1" in a for a in guard.attempts)


@pytest.mark.parametrize(
    "url", ["ftp://127.0.0.1/x", "file:///etc/passwd", "gopher://127.0.0.1/", "data:,hello"]
)
async def test_other_schemes_refused(guard: Guard, url: str) -> None:
    await _refused(make(guard), url, "scheme_not_allowed")
    assert guard.transports == []


async def test_redirect_to_other_scheme_refused(server: Server, guard: Guard) -> None:
    await _refused(make(guard), server.url("/redirect-ftp"), "scheme_not_allowed")


async def test_redirects_capped(server: Server, guard: Guard) -> None:
    await _refused(make(guard), server.url("/redirect-loop"), "too_many_redirects")
    f = make(guard, max_redirects=3)
    assert (await f.fetch(server.url("/chain/3"))).data == b"end of chain"
    await _refused(f, server.url("/chain/4"), "too_many_redirects")


async def test_oversized_body_refused(server: Server, guard: Guard) -> None:
    err = await _refused(make(guard), server.url("/big-declared"), "too_large")
    assert "declares 5000000 bytes" in err.message
    await _refused(make(guard), server.url("/big-stream"), "too_large")
    # A small gzip body that inflates past the cap is caught on the decoded bytes.
    await _refused(make(guard), server.url("/gzip-bomb"), "too_large")


@pytest.mark.parametrize("path", ["/program", "/script"])
async def test_wrong_content_type_refused(server: Server, guard: Guard, path: str) -> None:
    await _refused(make(guard), server.url(path), "bad_content_type")


async def test_http_error_status(server: Server, guard: Guard) -> None:
    err = await _refused(make(guard), server.url("/missing"), "http_status")
    assert err.status == 404 and not err.retryable


async def test_slow_server_times_out(server: Server, guard: Guard) -> None:
    start = time.perf_counter()
    err = await _refused(make(guard, timeout_s=0.3), server.url("/slow"), "timeout")
    assert err.retryable
    # A server that trickles bytes never trips the per-read timeout, only the deadline.
    await _refused(make(guard, timeout_s=1.0, deadline_s=0.5), server.url("/drip"), "timeout")
    assert time.perf_counter() - start < 3.0


async def test_at_most_three_concurrent_downloads(server: Server, guard: Guard) -> None:
    f = make(guard, concurrency=3)
    docs = await asyncio.gather(*(f.fetch(server.url("/concurrent")) for _ in range(7)))
    assert [d.data for d in docs] == [b"ok"] * 7
    assert server.state.max_in_flight == 3


# --------------------------------------------------------------------- pieces


@pytest.mark.parametrize(
    ("address", "refused"),
    [
        ("8.8.8.8", False),
        ("2606:4700:4700::1111", False),
        ("127.0.0.1", True),
        ("10.0.0.1", True),
        ("172.16.5.4", True),
        ("192.168.0.1", True),
        ("169.254.169.254", True),
        ("100.64.0.1", True),  # carrier-grade NAT
        ("0.0.0.0", True),
        ("224.0.0.1", True),  # multicast
        ("255.255.255.255", True),
        ("::1", True),
        ("::", True),
        ("fe80::1%eth0", True),
        ("fc00::1", True),
        ("ff02::1", True),
        ("::ffff:127.0.0.1", True),  # IPv4-mapped
        ("64:ff9b::a9fe:a9fe", True),  # NAT64 of 169.254.169.254
        ("2002:0a00:0001::1", True),  # 6to4 of 10.0.0.1
        ("64:ff9b::808:808", False),  # NAT64 of 8.8.8.8
    ],
)
def test_address_refusal(address: str, refused: bool) -> None:
    assert (address_refusal(address) is not None) is refused


def test_from_settings() -> None:
    f = SafeFetcher.from_settings(SourceSettings())
    assert f.max_bytes == 50 * 1024 * 1024
    assert f.max_redirects == 5
    assert f.concurrency == 3
    assert f.allow_private_addresses is False
    assert "application/pdf" in f.allowed_content_types
