"""Local HTTP servers that speak the Anthropic Messages API and OpenAI chat completions.

Each server answers from a queue of scripted replies and records every request, so
tests drive the providers' real client code (the anthropic SDK, httpx) over a socket
and then assert on exactly what went over the wire. Shapes follow the public API
references: ``POST /v1/messages`` (JSON, and the SSE sequence message_start,
content_block_start, ping, content_block_delta, content_block_stop, message_delta,
message_stop) and ``POST /v1/chat/completions`` (JSON, and ``data:`` chunks ending in
``data: [DONE]``).
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any


@dataclass
class Reply:
    """One scripted response. ``events`` makes it an event stream; ``disconnect``
    closes the connection without answering; ``delay_s`` waits before answering (a slow
    model) and ``event_delay_s`` between events (a slow stream)."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    events: Sequence[str] | None = None
    disconnect: bool = False
    delay_s: float = 0.0
    event_delay_s: float = 0.0


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    at: float = field(default_factory=time.monotonic)

    @property
    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


class ScriptedServer:
    """``with ScriptedServer() as server: server.enqueue(...); ... server.requests``."""

    def __init__(self) -> None:
        self._replies: deque[Reply] = deque()
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def enqueue(self, *replies: Reply) -> None:
        with self._lock:
            self._replies.extend(replies)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._replies)

    def start(self) -> ScriptedServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def _next_reply(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self._replies:
                return self._replies.popleft()
        return Reply(
            status=599,
            body={"error": {"type": "test_error", "message": "no scripted reply left"}},
        )

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                request = RecordedRequest(
                    method="POST",
                    path=self.path,
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=body,
                )
                reply = server._next_reply(request)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.disconnect:
                    self.close_connection = True
                    return
                if reply.events is not None:
                    self._send_stream(reply)
                else:
                    self._send_body(reply)

            def _send_body(self, reply: Reply) -> None:
                if isinstance(reply.body, bytes):
                    payload = reply.body
                elif isinstance(reply.body, str):
                    payload = reply.body.encode()
                else:
                    payload = json.dumps(reply.body).encode()
                self.send_response(reply.status)
                headers = {"content-type": "application/json", **reply.headers}
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                try:
                    self.wfile.write(payload)
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (a deadline test)

            def _send_stream(self, reply: Reply) -> None:
                self.send_response(reply.status)
                headers = {"content-type": "text/event-stream", **reply.headers}
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("cache-control", "no-cache")
                self.send_header("connection", "close")
                self.end_headers()
                self.close_connection = True
                try:
                    for event in reply.events or ():
                        if reply.event_delay_s:
                            time.sleep(reply.event_delay_s)
                        self.wfile.write(event.encode())
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client stopped reading early; that is what some tests do

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler


# -- Anthropic Messages API ----------------------------------------------------------


def anthropic_usage(
    input_tokens: int = 100,
    output_tokens: int = 20,
    cache_read: int = 0,
    cache_creation: int = 0,
) -> dict[str, Any]:
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": cache_creation,
        "cache_read_input_tokens": cache_read,
    }


def anthropic_message(
    content: list[dict[str, Any]],
    *,
    model: str = "claude-haiku-4-5",
    stop_reason: str = "end_turn",
    usage: dict[str, Any] | None = None,
) -> Reply:
    return Reply(
        body={
            "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": usage or anthropic_usage(),
        },
        headers={"request-id": "req_011CSHoEeqs5C35K2UUqR7Fy"},
    )


def anthropic_tool_use(
    name: str,
    tool_input: Any,
    *,
    model: str = "claude-haiku-4-5",
    usage: dict[str, Any] | None = None,
    stop_reason: str = "tool_use",
) -> Reply:
    block = {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": name}
    block["input"] = tool_input
    return anthropic_message([block], model=model, stop_reason=stop_reason, usage=usage)


def anthropic_error(
    status: int, error_type: str, message: str, headers: dict[str, str] | None = None
) -> Reply:
    return Reply(
        status=status,
        body={"type": "error", "error": {"type": error_type, "message": message}},
        headers=headers or {},
    )


def sse(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n"


def anthropic_text_stream(
    texts: Sequence[str],
    *,
    model: str = "claude-sonnet-4-6",
    usage: dict[str, Any] | None = None,
    error_after: int | None = None,
    truncate_after: int | None = None,
) -> Reply:
    """The documented event sequence for a streamed text reply; ``error_after`` sends an
    ``overloaded_error`` event after that many deltas instead of finishing;
    ``truncate_after`` just closes the connection there (no message_stop)."""
    start_usage = dict(usage or anthropic_usage())
    output_tokens = start_usage.pop("output_tokens", 1)
    start_usage["output_tokens"] = 1
    events = [
        sse(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_014p7gG3wDgGV9EUtLvnow3U",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": start_usage,
                },
            },
        ),
        sse(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        ),
        sse("ping", {"type": "ping"}),
    ]
    for i, text in enumerate(texts):
        if truncate_after is not None and i == truncate_after:
            return Reply(events=events)
        if error_after is not None and i == error_after:
            events.append(
                sse(
                    "error",
                    {
                        "type": "error",
                        "error": {"type": "overloaded_error", "message": "Overloaded"},
                    },
                )
            )
            return Reply(events=events)
        events.append(
            sse(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": text},
                },
            )
        )
    events += [
        sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
        sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": output_tokens},
            },
        ),
        sse("message_stop", {"type": "message_stop"}),
    ]
    return Reply(events=events)


# -- OpenAI chat completions ---------------------------------------------------------


def openai_usage(prompt: int = 50, completion: int = 10, cached: int = 0) -> dict[str, Any]:
    usage: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    if cached:
        usage["prompt_tokens_details"] = {"cached_tokens": cached}
    return usage


def openai_completion(
    content: str | None,
    *,
    model: str = "llama3.1",
    finish_reason: str = "stop",
    usage: dict[str, Any] | None = None,
) -> Reply:
    return Reply(
        body={
            "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
            "object": "chat.completion",
            "created": 1741569952,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content, "refusal": None},
                    "logprobs": None,
                    "finish_reason": finish_reason,
                }
            ],
            "usage": usage or openai_usage(),
        }
    )


def openai_error(status: int, message: str, headers: dict[str, str] | None = None) -> Reply:
    return Reply(
        status=status,
        body={"error": {"message": message, "type": "invalid_request_error", "code": None}},
        headers=headers or {},
    )


# Refusals of ``response_format`` the way real servers send them (issue 20): the client
# must fall back to the next mode on each of them, not retry or give up.


def llama_cpp_python_json_schema_500() -> Reply:
    """llama-cpp-python's server (and ik_llama.cpp) on ``response_format: json_schema``."""
    return openai_error(
        500, 'response_format type must be one of "text" or "json_object", but got: json_schema'
    )


def llama_cpp_grammar_500() -> Reply:
    """Older llama.cpp servers on a schema their grammar converter does not handle."""
    return openai_error(500, "JSON schema conversion failed: Unrecognized schema")


def json_schema_400() -> Reply:
    """vLLM / OpenAI refusing the schema of a ``json_schema`` request."""
    return openai_error(400, "response_format.json_schema is not supported by this model")


def response_format_422() -> Reply:
    """A FastAPI-based server whose request model only knows ``text`` and ``json_object``."""
    return Reply(
        status=422,
        body={
            "detail": [
                {
                    "loc": ["body", "response_format", "type"],
                    "msg": "Input should be 'text' or 'json_object'",
                    "type": "literal_error",
                }
            ]
        },
    )


def openai_stream(
    deltas: Sequence[str],
    *,
    model: str = "llama3.1",
    usage: dict[str, Any] | None = None,
    error_after: int | None = None,
    truncate_after: int | None = None,
) -> Reply:
    """Chat-completion chunks ending in ``data: [DONE]``; ``error_after`` sends an error
    object after that many deltas, ``truncate_after`` just closes the connection there."""

    def chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-123",
            "object": "chat.completion.chunk",
            "created": 1694268190,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }

    def data(payload: dict[str, Any]) -> str:
        return f"data: {json.dumps(payload)}\n\n"

    events = [data(chunk({"role": "assistant", "content": ""}, None))]
    for i, text in enumerate(deltas):
        if truncate_after is not None and i == truncate_after:
            return Reply(events=events)
        if error_after is not None and i == error_after:
            events.append(data({"error": {"message": "model crashed", "type": "server_error"}}))
            return Reply(events=events)
        events.append(data(chunk({"content": text}, None)))
    events.append(data(chunk({}, "stop")))
    final = chunk({}, None)
    final["choices"] = []
    final["usage"] = usage or openai_usage()
    events.append(data(final))
    events.append("data: [DONE]\n\n")
    return Reply(events=events)


def iter_requests_json(server: ScriptedServer) -> Iterator[Any]:
    for request in server.requests:
        yield request.json
