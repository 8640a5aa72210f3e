"""The HTTP surface's guards, as plain ASGI middleware (nothing is buffered but small JSON
and text bodies, so NDJSON/SSE streams and uploads keep streaming):

* :class:`SecurityHeaders`: ``X-Content-Type-Options: nosniff``, ``Referrer-Policy``, and
  a Content-Security-Policy with ``frame-ancestors 'none'`` on every response that does
  not set its own (stored files set ``sandbox``, see ``routes/sources.py``). The web app's
  inline theme script is allowed by its hash, read from the built ``index.html``.
* :class:`OriginGuard`: the Host header must name an allowed host (DNS rebinding), and
  a POST/PUT/PATCH/DELETE from a browser must be same-origin (``Sec-Fetch-Site``
  ``same-origin``/``none``, and an ``Origin`` equal to the host), closing CSRF; clients that
  send neither header (the CLI, scripts, agents) are not browsers and pass.
* :class:`RequestGuard`: a NUL character in the path, the query string, a header, a JSON
  body (any string or key) or a text body is refused with a 422 before a route runs
  (PostgreSQL cannot store NUL in text). Before a byte of a POST/PUT/PATCH body is read
  (issue 34): in accounts mode a request without valid credentials to a non-public route
  is a 401 (``authenticate``, from ``api.deps``), then a ``Content-Length`` over the
  limit for its type is a 413. A multipart body is then counted while it
  streams in — a part larger than the upload limit, or a body larger than
  ``MAX_UPLOAD_PARTS`` such parts, is answered 413 at once, the rest never read — and
  any other body (JSON, text, BibTeX, ``application/octet-stream``, no type) is read up
  to ``MAX_TEXT_BODY`` (``MAX_PUBLIC_BODY`` on the public routes: signing in) and a 413
  at the first byte past it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Awaitable, Callable, Iterable
from typing import Any
from urllib.parse import unquote_to_bytes

from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# Most files one upload may carry at the per-file limit: the body's hard cap.
MAX_UPLOAD_PARTS = 20
# Any other body is read whole to be checked; larger ones are refused.
MAX_TEXT_BODY = 8 * 1024 * 1024
# Routes anyone may call (no credentials) take small bodies only: signing in.
MAX_PUBLIC_BODY = 64 * 1024
PUBLIC_PATHS = ("/api/auth/", "/api/health", "/api/limits")
#: ``scope`` → the 401's detail when the request carries no valid credentials (accounts
#: mode, a non-public route), else None; run before the body is read.
Authenticate = Callable[[Scope], Awaitable[str | None]]

_INLINE_SCRIPT = re.compile(rb"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", re.DOTALL | re.I)


def inline_script_hashes(html: bytes) -> list[str]:
    """CSP source expressions (``'sha256-…'``) for each inline ``<script>`` of a page."""
    return [
        "'sha256-" + base64.b64encode(hashlib.sha256(body).digest()).decode() + "'"
        for body in _INLINE_SCRIPT.findall(html)
    ]


def app_policy(script_hashes: Iterable[str] = ()) -> str:
    # pdf.js (the reader) decodes some images with WebAssembly.
    scripts = " ".join(["'self'", "'wasm-unsafe-eval'", *script_hashes])
    return "; ".join(
        [
            "default-src 'self'",
            f"script-src {scripts}",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data: blob:",
            "font-src 'self' data:",
            "connect-src 'self'",
            "worker-src 'self' blob:",
            "frame-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


# Swagger UI (``/docs``) starts itself with an inline script.
DOCS_POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)


class SecurityHeaders:
    def __init__(self, app: ASGIApp, script_hashes: Iterable[str] = ()) -> None:
        self.app = app
        self.policy = app_policy(script_hashes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        policy = DOCS_POLICY if scope.get("path") == "/docs" else self.policy

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("X-Content-Type-Options", "nosniff")
                headers.setdefault("Referrer-Policy", "same-origin")
                headers.setdefault("Content-Security-Policy", policy)
                headers.setdefault("X-Frame-Options", "DENY")
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def send_error(send: Send, status: int, error: str, detail: str) -> None:
    """A JSON error in the API's shape, sent straight from middleware."""
    body = json.dumps({"error": error, "detail": detail}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def contains_nul(value: Any) -> bool:
    """A NUL character anywhere in a decoded JSON value (strings and keys)."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(contains_nul(k) or contains_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(contains_nul(v) for v in value)
    return False


def _nul_in_request_line(scope: Scope) -> str | None:
    raw_path = scope.get("raw_path") or scope.get("path", "").encode()
    if b"\x00" in unquote_to_bytes(raw_path) or "\x00" in scope.get("path", ""):
        return "the path contains a NUL character"
    query = scope.get("query_string", b"")
    if b"\x00" in unquote_to_bytes(query.replace(b"+", b" ")):
        return "the query string contains a NUL character"
    for name, value in scope.get("headers", []):
        if b"\x00" in value or (name == b"last-event-id" and b"%00" in value):
            return f"the {name.decode('latin-1')} header contains a NUL character"
    return None


class _PartCounter:
    """Counts each multipart part's bytes as the body streams through."""

    def __init__(self, boundary: bytes, part_limit: int) -> None:
        self.part_limit = part_limit
        self.current = 0
        self.largest = 0
        self.broken = False
        self.parser = MultipartParser(
            boundary,
            callbacks={"on_part_begin": self._begin, "on_part_data": self._data},
        )

    def _begin(self) -> None:
        self.current = 0

    def _data(self, data: bytes, start: int, end: int) -> None:
        self.current += end - start
        self.largest = max(self.largest, self.current)

    def feed(self, chunk: bytes) -> bool:
        """False once a part is over the limit."""
        if not self.broken:
            try:
                self.parser.write(chunk)
            except Exception:  # a malformed body: the form parser answers it
                self.broken = True
        return self.largest <= self.part_limit


def is_public(path: str) -> bool:
    return path.startswith(PUBLIC_PATHS) or not path.startswith("/api/")


async def _nobody(scope: Scope) -> str | None:
    return None


class RequestGuard:
    def __init__(
        self, app: ASGIApp, upload_limit_bytes: int, authenticate: Authenticate = _nobody
    ) -> None:
        self.app = app
        self.part_limit = upload_limit_bytes
        self.authenticate = authenticate
        # Part headers and boundaries take a little room on top of each file.
        self.body_limit = MAX_UPLOAD_PARTS * (upload_limit_bytes + 64 * 1024)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        problem = _nul_in_request_line(scope)
        if problem:
            await send_error(send, 422, "invalid_request", problem)
            return
        if scope["method"] not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", []))
        ctype, options = parse_options_header(headers.get(b"content-type", b""))
        ctype_s = ctype.decode("latin-1").lower()
        multipart = ctype_s == "multipart/form-data" and bool(options.get(b"boundary"))
        public = is_public(scope.get("path", ""))
        limit = MAX_PUBLIC_BODY if public else self.body_limit if multipart else MAX_TEXT_BODY
        if not public:
            denied = await self.authenticate(scope)
            if denied is not None:
                await send_error(send, 401, "unauthorized", denied)
                return
        declared = headers.get(b"content-length", b"").strip()
        if declared and (not declared.isdigit() or len(declared) > 15 or int(declared) > limit):
            files = multipart and not public
            shown = self.part_limit if files else limit
            await send_error(send, 413, "payload_too_large", _too_large(shown, files))
            return
        if multipart and not public:
            await self._multipart(scope, receive, send, options[b"boundary"])
        else:
            await self._text_body(
                scope, receive, send, limit=limit, json_body=ctype_s.endswith("json")
            )

    async def _text_body(
        self, scope: Scope, receive: Receive, send: Send, *, limit: int, json_body: bool
    ) -> None:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > limit:
                await send_error(send, 413, "payload_too_large", _too_large(limit, False))
                return
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        nul = False
        if json_body:
            try:
                nul = contains_nul(json.loads(body))
            except (ValueError, RecursionError):
                nul = False  # not JSON: the route's parser says so
        else:
            nul = b"\x00" in body
        if nul:
            await send_error(
                send, 422, "invalid_request", "the request body contains a NUL character"
            )
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _multipart(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        boundary: bytes,
    ) -> None:
        too_large = _too_large(self.part_limit, True)
        counter = _PartCounter(boundary, self.part_limit)
        state = {"exceeded": False, "seen": 0, "started": False}

        async def counted() -> Message:
            if state["exceeded"]:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                chunk = message.get("body", b"")
                state["seen"] += len(chunk)
                if not counter.feed(chunk) or state["seen"] > self.body_limit:
                    state["exceeded"] = True
                    return {"type": "http.disconnect"}
            return message

        async def guarded(message: Message) -> None:
            if state["exceeded"]:
                return  # the app's answer to the cut-off body is replaced by the 413
            if message["type"] == "http.response.start":
                state["started"] = True
            await send(message)

        try:
            await self.app(scope, counted, guarded)
        except Exception:
            if not state["exceeded"]:
                raise
        if state["exceeded"] and not state["started"]:
            await send_error(send, 413, "payload_too_large", too_large)


def _too_large(limit: int, multipart: bool) -> str:
    if multipart:
        return (
            f"a file in the upload exceeds the {limit // (1024 * 1024)} MB limit per file, or "
            f"the upload is larger than {MAX_UPLOAD_PARTS} such files"
        )
    if limit < 1024 * 1024:
        return f"the request body is larger than {limit // 1024} KB"
    return f"the request body is larger than {limit // (1024 * 1024)} MB"


UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_DEFAULT_PORTS = {"http": "80", "https": "443"}


def _host_name(host: str) -> str:
    """``name[:port]`` or ``[v6][:port]`` → the name, lower case."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _normal_authority(authority: str, scheme: str) -> str:
    authority = authority.strip().lower()
    port = _DEFAULT_PORTS.get(scheme)
    if port and authority.endswith(":" + port):
        authority = authority[: -len(port) - 1]
    return authority


def allowed_host_names(hosts: Iterable[str], bind: str) -> frozenset[str]:
    names = {_host_name(h) if h.startswith("[") else h.strip().lower() for h in hosts}
    if bind not in ("0.0.0.0", "::", ""):
        names.add(bind.strip("[]").lower())
    return frozenset(names)


class OriginGuard:
    def __init__(self, app: ASGIApp, allowed_hosts: frozenset[str]) -> None:
        self.app = app
        self.allowed_hosts = allowed_hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        if _host_name(host) not in self.allowed_hosts:
            await send_error(
                send,
                400,
                "invalid_host",
                f"this server does not answer for the host {host!r}; allowed: "
                f"{', '.join(sorted(self.allowed_hosts))} (setting MARGINALIA_ALLOWED_HOSTS)",
            )
            return
        if scope["method"] in UNSAFE_METHODS:
            problem = self._cross_origin(headers, host, scope.get("scheme", "http"))
            if problem:
                await send_error(send, 403, "cross_origin_request", problem)
                return
        await self.app(scope, receive, send)

    @staticmethod
    def _cross_origin(headers: dict[str, str], host: str, scheme: str) -> str | None:
        site = headers.get("sec-fetch-site")
        if site is not None and site not in ("same-origin", "none"):
            return f"a {site} request may not change anything here (Sec-Fetch-Site)"
        origin = headers.get("origin")
        if origin is None:
            return None
        origin_scheme, _, authority = origin.partition("://")
        if not authority or _normal_authority(authority, origin_scheme) != _normal_authority(
            host, scheme
        ):
            return f"requests from {origin!r} may not change anything here (Origin)"
        return None
