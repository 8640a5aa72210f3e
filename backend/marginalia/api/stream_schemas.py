"""The two streams' event types as OpenAPI components.

The ask stream (NDJSON) and a job's events (SSE) are not JSON responses, so FastAPI would
not describe their events; the web app's client is generated from the schema, so they are
added here as components (``AskEvent``, ``JobEventOut``) and the stream routes point at them.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from pydantic import TypeAdapter

from marginalia.api.schemas import JobEventOut
from marginalia.usecases.ask import AskEvent

REF = "#/components/schemas/{model}"
STREAM_COMPONENTS: dict[str, Any] = {"AskEvent": AskEvent, "JobEventOut": JobEventOut}


def stream_content(media_type: str, component: str) -> dict[str, Any]:
    """A route's 200 ``content`` entry: ``media_type`` events of schema ``component``."""
    assert component in STREAM_COMPONENTS
    ref = {"$ref": REF.format(model=component)}
    if media_type != "text/event-stream":
        return {media_type: {"schema": ref}}
    # An SSE event is its fields (OpenAPI 3.1: the schema describes one event); ``data``
    # is the JSON text of one ``component``.
    event = {
        "type": "object",
        "required": ["data"],
        "properties": {
            "id": {"type": "string"},
            "event": {"type": "string"},
            "data": {
                "type": "string",
                "contentMediaType": "application/json",
                "contentSchema": ref,
            },
        },
    }
    return {media_type: {"schema": event}}


def install_stream_schemas(app: FastAPI) -> None:
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = generate()
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        for name, kind in STREAM_COMPONENTS.items():
            generated = TypeAdapter(kind).json_schema(ref_template=REF, mode="serialization")
            for def_name, definition in generated.pop("$defs", {}).items():
                components.setdefault(def_name, definition)
            components[name] = generated
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
