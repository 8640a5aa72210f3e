"""schemathesis hooks for scripts/fuzz_api.py: every DELETE aimed at a seeded resource is
sent to a fresh one made just before (seeding again), so the seed that every other
operation's path parameters point at survives the whole run, and deletes still run
against real data (a workspace with an ingested source, a source with chunks, ...).

The seed (base URL, headers, ids) comes from the JSON file named by MARGINALIA_FUZZ_SEED.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import schemathesis

_SEED: dict[str, Any] = json.loads(Path(os.environ["MARGINALIA_FUZZ_SEED"]).read_text())
_PINNED = {name for name, value in _SEED["ids"].items() if value}

# The BibTeX import's body is text.
schemathesis.serializer.alias("application/x-bibtex", "text/plain")


@schemathesis.hook
def filter_case(context: Any, case: Any) -> bool:
    """Drop a negative case whose only invalid part was a path parameter the seed pins:
    the pinned (valid) id replaced it, so the request is no longer negative (schemathesis
    applies the configured parameters after generating the case, but still counts the
    case as negative)."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_negative:
        return True
    if _upload_parts_are_still_files(case):
        return False
    data = meta.phase.data
    location = getattr(data, "parameter_location", None)
    names = (
        {data.parameter} if data.parameter else {m.parameter for m in data.mutations if m.parameter}
    )
    pinned_only = bool(names) and names <= _PINNED
    return not (location is not None and location.name == "PATH" and pinned_only)


def _upload_parts_are_still_files(case: Any) -> bool:
    """A multipart upload whose ``files`` parts were "mutated" to numbers, strings or
    objects: on the wire each part is just bytes with a file name (an object is sent as
    its JSON), i.e. a valid tiny text file, so the case is not negative although it is
    counted so (CI: ``-1385227`` ingested as text). The fuzzing phase ignores the
    per-operation ``negative_data_rejection`` setting in fuzz_api.py, hence this too."""
    if case.media_type != "multipart/form-data" or not isinstance(case.body, dict):
        return False
    files = case.body.get("files")
    parts = files if isinstance(files, list) else [files]
    return bool(parts) and all(
        p is not None and not isinstance(p, bytes | bytearray) for p in parts
    )


def _client() -> httpx.Client:
    return httpx.Client(base_url=_SEED["base"], headers=_SEED["headers"], timeout=120)


def _wait_job(http: httpx.Client, job_id: str) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if http.get(f"/api/jobs/{job_id}").json()["status"] not in ("queued", "running"):
            return
        time.sleep(0.2)


def _upload(http: httpx.Client, workspace_id: str) -> str:
    """A new source (its text unique, so it is no duplicate); returns its id."""
    tag = uuid.uuid4().hex
    text = f"Victim note {tag}\n\n" + f"Paragraph {tag} about anticoagulation trials. " * 8
    files = [("files", (f"victim-{tag[:8]}.txt", text.encode(), "text/plain"))]
    job = http.post(f"/api/workspaces/{workspace_id}/sources", files=files).json()
    _wait_job(http, job["id"])
    for source in http.get(f"/api/workspaces/{workspace_id}/sources").json():
        if (source.get("file_name") or "").startswith(f"victim-{tag[:8]}"):
            return str(source["id"])
    raise RuntimeError("the fresh source did not appear")


def _fresh(name: str) -> str:
    ids = _SEED["ids"]
    with _client() as http:
        if name == "workspace_id":
            ws = http.post("/api/workspaces", json={"name": f"victim {uuid.uuid4()}"}).json()
            _upload(http, ws["id"])
            return str(ws["id"])
        if name == "source_id":
            return _upload(http, ids["workspace_id"])
        if name == "highlight_id":
            source = ids["source_id"]
            page = http.get(f"/api/sources/{source}/pages").json()[0]
            quote = " ".join(page["text"].split()[10:14])
            body = {"page": page["page_number"], "quote": quote, "note": "victim"}
            return str(http.post(f"/api/sources/{source}/highlights", json=body).json()["id"])
        if name == "conversation_id":
            url = f"/api/workspaces/{ids['workspace_id']}/ask"
            conversation = ""
            answer = http.post(url, json={"question": "What did the trial compare?"})
            for line in ndjson_lines(answer.content):
                conversation = json.loads(line).get("conversation_id") or conversation
            return conversation
    raise KeyError(name)


def ndjson_lines(body: bytes) -> list[str]:
    """The non-empty lines of an NDJSON body. Lines end at "\n" only: str.splitlines() and
    httpx's iter_lines() also cut at U+2028, U+0085 or \x1c, which JSON strings may hold
    raw (fuzzed text of a workspace echoed in an answer's events)."""
    return [line for line in body.decode("utf-8").split("\n") if line.strip()]


#: The operations that delete a seeded resource, and the parameter naming it.
_DELETES = {
    "/api/workspaces/{workspace_id}": "workspace_id",
    "/api/sources/{source_id}": "source_id",
    "/api/highlights/{highlight_id}": "highlight_id",
    "/api/conversations/{conversation_id}": "conversation_id",
}


@schemathesis.hook
def before_call(context: Any, case: Any, kwargs: dict[str, Any]) -> None:
    if case.method.upper() != "DELETE":
        return
    name = _DELETES.get(case.operation.path)
    params = case.path_parameters or {}
    if name and str(params.get(name)) == str(_SEED["ids"].get(name)):
        params[name] = _fresh(name)


def _ask_event_validator() -> Any:
    import jsonschema

    spec = httpx.get(f"{_SEED['base']}/openapi.json", timeout=30).json()
    schema = {"$ref": "#/components/schemas/AskEvent", "components": spec["components"]}
    return jsonschema.Draft202012Validator(schema)


_ASK_EVENT = _ask_event_validator()


@schemathesis.check
def ndjson_events_conform(ctx: Any, response: Any, case: Any) -> bool | None:
    """The ask streams (application/x-ndjson, which schemathesis cannot deserialize): every
    line is one event matching the ``AskEvent`` schema, and the stream ends in ``done``
    or ``error``."""
    ctype = (response.headers.get("content-type") or [""])[0]
    if response.status_code != 200 or not ctype.startswith("application/x-ndjson"):
        return None
    lines = ndjson_lines(response.content)
    if not lines:
        raise AssertionError("an empty NDJSON stream")
    for number, line in enumerate(lines, 1):
        event = json.loads(line)
        problems = sorted(_ASK_EVENT.iter_errors(event), key=lambda e: list(e.path))
        if problems:
            raise AssertionError(f"event {number} is not an AskEvent: {problems[0].message}")
    last = json.loads(lines[-1]).get("type")
    if last not in ("done", "error"):
        raise AssertionError(f"the stream ends with a {last!r} event, not done or error")
    return True
