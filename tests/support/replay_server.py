"""A local HTTP server that replays the recorded arXiv / OpenAlex / Brave responses.

The recordings live in ``<repo>/../shared/data/fixtures`` and are never copied into the
repository. Each service is mounted under its own prefix::

    server = ReplayServer(fixtures_dir).start()
    server.base_url_for("arxiv")     # http://127.0.0.1:PORT/arxiv/api/query
    server.base_url_for("openalex")  # http://127.0.0.1:PORT/openalex
    server.base_url_for("brave")     # http://127.0.0.1:PORT/brave/res/v1

Matching:

* arXiv — by the query parameters ``search_query``, ``id_list``, ``start`` and
  ``max_results`` against the request URL recorded in each ``arxiv/*.json`` (the
  ``legacy_*.xml`` recordings carry no full request URL and are not served).
* OpenAlex — by decoded path + query parameters per ``openalex/INDEX.json``, in any
  order; ``mailto`` is ignored, and so are ``per-page``/``page``/``cursor`` when the
  recording did not have them (results are not re-paged).
* Brave — ``web/search`` and ``news/search`` serve ``brave/web.json`` / ``news.json``
  for any ``q`` (one recording each); a request without ``X-Subscription-Token`` gets
  a 401 like the real API.

Anything else is a 404 whose body says what was asked and that nothing matched.

Failure injection, consumed by the next matching requests (path prefix match on the
request path, e.g. ``"/openalex/works"``)::

    server.fail_next("/arxiv", count=1, status=429, retry_after="0")
    server.fail_next("/openalex", count=2, status=500)
    server.hang_next("/brave", count=1, seconds=5)   # then answers normally
    server.add_response("/openalex/works", {"filter": "cites:W1"}, body=..., status=200)

``server.requests`` logs every request (path, query, headers, status answered).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"
FIXTURES = SHARED_DATA / "fixtures"

SERVICES = {
    "arxiv": "/arxiv/api/query",
    "openalex": "/openalex",
    "brave": "/brave/res/v1",
}

# Query parameters a recording may lack without making the request a different one.
_OPENALEX_IGNORED = {"mailto"}
_OPENALEX_PAGING = {"per-page", "per_page", "page", "cursor"}


@dataclass
class RecordedResponse:
    status: int
    body: bytes
    content_type: str
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class LoggedRequest:
    method: str
    path: str
    query: list[tuple[str, str]]
    headers: dict[str, str]
    status: int = 0


@dataclass
class _Injection:
    prefix: str
    remaining: int
    status: int | None = None
    retry_after: str | None = None
    hang_s: float = 0.0
    body: bytes = b""


@dataclass
class _Route:
    path: str
    params: frozenset[tuple[str, str]]
    response: RecordedResponse


def _params_key(pairs: list[tuple[str, str]]) -> frozenset[tuple[str, str]]:
    return frozenset(pairs)


class ReplayServer:
    """Threaded HTTP server on 127.0.0.1 (random port) replaying the fixtures."""

    def __init__(self, fixtures_dir: Path = FIXTURES) -> None:
        self.fixtures_dir = fixtures_dir
        self._lock = threading.Lock()
        self._injections: list[_Injection] = []
        self._routes: list[_Route] = []
        self._stopping = threading.Event()
        self.requests: list[LoggedRequest] = []
        self._arxiv = self._load_arxiv()
        self._openalex = self._load_openalex()
        self._brave = self._load_brave()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ------------------------------------------------------------------------

    def start(self) -> ReplayServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                server._handle(self)

            def log_message(self, format: str, *args: Any) -> None:
                return None

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ReplayServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def root_url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def base_url_for(self, service: str) -> str:
        if service not in SERVICES:
            raise KeyError(f"unknown service {service!r}; known: {sorted(SERVICES)}")
        return self.root_url + SERVICES[service]

    # --- scripting ------------------------------------------------------------------------

    def fail_next(
        self,
        path_prefix: str,
        *,
        count: int = 1,
        status: int = 500,
        retry_after: str | None = "0",
        body: str = "",
    ) -> None:
        """The next ``count`` requests whose path starts with ``path_prefix`` answer
        ``status`` (429 and 503 carry ``Retry-After: retry_after`` unless it is None)."""
        with self._lock:
            self._injections.append(
                _Injection(
                    path_prefix,
                    count,
                    status=status,
                    retry_after=retry_after,
                    body=(body or f"injected failure: HTTP {status}").encode(),
                )
            )

    def hang_next(self, path_prefix: str, *, count: int = 1, seconds: float = 5.0) -> None:
        """The next ``count`` matching requests stall ``seconds`` before answering
        normally (a stopped server releases them at once)."""
        with self._lock:
            self._injections.append(_Injection(path_prefix, count, hang_s=seconds))

    def add_response(
        self,
        path: str,
        params: Mapping[str, str] | None = None,
        *,
        body: bytes | str | Any,
        status: int = 200,
        content_type: str = "application/json",
    ) -> None:
        """Serve ``body`` for exactly this path (full path, e.g. ``/openalex/works``) and
        these query parameters (``mailto`` and unrecorded paging params ignored)."""
        if isinstance(body, str):
            raw = body.encode()
        elif isinstance(body, bytes):
            raw = body
        else:
            raw = json.dumps(body).encode()
        with self._lock:
            self._routes.append(
                _Route(
                    unquote(path).lower(),
                    _params_key(list((params or {}).items())),
                    RecordedResponse(status, raw, content_type),
                )
            )

    def clear(self) -> None:
        """Drop injections, added routes and the request log."""
        with self._lock:
            self._injections.clear()
            self._routes.clear()
            self.requests.clear()

    def count(self, path_prefix: str = "") -> int:
        """How many requests were made to paths starting with ``path_prefix``."""
        with self._lock:
            return sum(1 for r in self.requests if r.path.startswith(path_prefix))

    # --- fixtures -------------------------------------------------------------------------

    def _load_arxiv(self) -> dict[tuple[str, str, str, str], RecordedResponse]:
        out: dict[tuple[str, str, str, str], RecordedResponse] = {}
        for path in sorted((self.fixtures_dir / "arxiv").glob("*.json")):
            rec = json.loads(path.read_text(encoding="utf-8"))
            query = dict(parse_qsl(urlsplit(rec["url"]).query, keep_blank_values=True))
            out[_arxiv_key(query)] = RecordedResponse(
                int(rec["status_code"]),
                rec["body"].encode("utf-8"),
                "application/atom+xml; charset=UTF-8",
            )
        return out

    def _load_openalex(self) -> list[_Route]:
        index_path = self.fixtures_dir / "openalex" / "INDEX.json"
        routes: list[_Route] = []
        for item in json.loads(index_path.read_text(encoding="utf-8")):
            parts = urlsplit(item["uri"])
            file = self.fixtures_dir / "openalex" / item["file"]
            ctype = "application/json" if file.suffix == ".json" else "text/html; charset=utf-8"
            routes.append(
                _Route(
                    "/openalex" + unquote(parts.path).lower(),
                    _params_key(parse_qsl(parts.query, keep_blank_values=True)),
                    RecordedResponse(int(item["status"]), file.read_bytes(), ctype),
                )
            )
        return routes

    def _load_brave(self) -> dict[str, RecordedResponse]:
        out: dict[str, RecordedResponse] = {}
        for endpoint, name in (("web/search", "web.json"), ("news/search", "news.json")):
            file = self.fixtures_dir / "brave" / name
            out[SERVICES["brave"] + "/" + endpoint] = RecordedResponse(
                200, file.read_bytes(), "application/json"
            )
        return out

    # --- serving --------------------------------------------------------------------------

    def _take_injection(self, path: str) -> _Injection | None:
        with self._lock:
            for inj in self._injections:
                if inj.remaining > 0 and path.startswith(inj.prefix):
                    inj.remaining -= 1
                    return inj
        return None

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(handler.path)
        path = parts.path
        query = parse_qsl(parts.query, keep_blank_values=True)
        headers = {k.lower(): v for k, v in handler.headers.items()}
        logged = LoggedRequest("GET", path, query, headers)
        with self._lock:
            self.requests.append(logged)

        injection = self._take_injection(path)
        if injection is not None and injection.hang_s > 0:
            self._stopping.wait(injection.hang_s)
        if injection is not None and injection.status is not None:
            extra: dict[str, str] = {}
            if injection.retry_after is not None and injection.status in (429, 503):
                extra["Retry-After"] = injection.retry_after
            response = RecordedResponse(injection.status, injection.body, "text/plain", extra)
        else:
            response = self._lookup(path, query, headers)
        logged.status = response.status
        try:
            handler.send_response(response.status)
            handler.send_header("Content-Type", response.content_type)
            handler.send_header("Content-Length", str(len(response.body)))
            for key, value in response.headers.items():
                handler.send_header(key, value)
            handler.end_headers()
            handler.wfile.write(response.body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout tests)

    def _lookup(
        self, path: str, query: list[tuple[str, str]], headers: Mapping[str, str]
    ) -> RecordedResponse:
        decoded = unquote(path).lower()
        with self._lock:
            extra = list(self._routes)
        for route in extra:
            if route.path == decoded and _openalex_params_match(route.params, query):
                return route.response
        if path == SERVICES["arxiv"]:
            found = self._arxiv.get(_arxiv_key(dict(query)))
            if found is not None:
                return found
        elif path.startswith(SERVICES["openalex"] + "/"):
            for route in self._openalex:
                if route.path == decoded and _openalex_params_match(route.params, query):
                    return route.response
        elif path in self._brave:
            if not headers.get("x-subscription-token"):
                return RecordedResponse(
                    401,
                    b'{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID"}}',
                    "application/json",
                )
            return self._brave[path]
        return _not_found(path, query)


def _arxiv_key(query: Mapping[str, str]) -> tuple[str, str, str, str]:
    return (
        query.get("search_query", ""),
        query.get("id_list", ""),
        query.get("start", "0"),
        query.get("max_results", "10"),
    )


def _openalex_params_match(
    recorded: frozenset[tuple[str, str]], query: list[tuple[str, str]]
) -> bool:
    recorded_names = {k for k, _ in recorded}
    asked = {
        (k, v)
        for k, v in query
        if k not in _OPENALEX_IGNORED and not (k in _OPENALEX_PAGING and k not in recorded_names)
    }
    return asked == set(recorded)


def _not_found(path: str, query: list[tuple[str, str]]) -> RecordedResponse:
    text = (
        f"replay server: no recorded response for GET {path} with query {query!r}. "
        f"Runtime: {SERVICES}. Only the fixtures in shared/data/fixtures are served."
    )
    return RecordedResponse(404, text.encode(), "text/plain; charset=utf-8")


def fixtures_available(fixtures_dir: Path = FIXTURES) -> bool:
    return (fixtures_dir / "openalex" / "INDEX.json").is_file() and (
        fixtures_dir / "arxiv"
    ).is_dir()


def require_fixtures(fixtures_dir: Path = FIXTURES) -> None:
    """Skip the calling test when the shared recordings are absent (a user's clone)."""
    if not fixtures_available(fixtures_dir):
        pytest.skip(
            f"recorded API responses not found at {fixtures_dir} "
            "(shared data lives beside the repo at ../shared/data; CI always has it)"
        )


@pytest.fixture(scope="module")
def replay() -> Iterator[ReplayServer]:
    """A started replay server for one test module (import this fixture to use it)."""
    require_fixtures()
    server = ReplayServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def replay_clean(replay: ReplayServer) -> ReplayServer:
    """The module's replay server with injections, added routes and the log cleared."""
    replay.clear()
    return replay
