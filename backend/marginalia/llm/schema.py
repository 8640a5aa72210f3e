"""The JSON schema a model is asked to fill, with every array and string bounded.

A small model under constrained decoding that is free to keep going (an unbounded array,
an unbounded string) tends to loop until ``max_tokens`` or its context runs out. The
schema handed to the model therefore carries ``maxItems`` / ``maxLength`` everywhere:
the schema's own bounds where a field sets them (``Field(max_length=...)`` or
``json_schema_extra``), else the defaults below. Only the schema sent out is bounded;
the reply is validated with the pydantic model as it is.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

DEFAULT_MAX_ITEMS = 16
DEFAULT_MAX_LENGTH = 1000


def bounded_json_schema(
    schema: type[BaseModel],
    *,
    max_items: int = DEFAULT_MAX_ITEMS,
    max_length: int = DEFAULT_MAX_LENGTH,
) -> dict[str, Any]:
    """``schema.model_json_schema()`` with ``maxItems``/``maxLength`` wherever missing."""
    out = copy.deepcopy(schema.model_json_schema())
    _bound(out, max_items, max_length)
    return out


def _bound(node: Any, max_items: int, max_length: int) -> None:
    if isinstance(node, list):
        for item in node:
            _bound(item, max_items, max_length)
        return
    if not isinstance(node, dict):
        return
    kind = node.get("type")
    kinds = set(kind) if isinstance(kind, list) else {kind}
    if "array" in kinds and "maxItems" not in node:
        node["maxItems"] = max_items
    if (
        "string" in kinds
        and "maxLength" not in node
        and not ({"enum", "const", "format", "pattern"} & node.keys())
    ):
        node["maxLength"] = max_length
    for key, value in node.items():
        if key in {"properties", "$defs", "definitions", "patternProperties"} and isinstance(
            value, dict
        ):
            for sub in value.values():
                _bound(sub, max_items, max_length)
        elif key in {"items", "additionalProperties", "anyOf", "oneOf", "allOf", "prefixItems"}:
            _bound(value, max_items, max_length)


def bounds(
    *,
    max_length: int | None = None,
    max_items: int | None = None,
    item_max_length: int | None = None,
    max_properties: int | None = None,
) -> Callable[[dict[str, Any]], None]:
    """A ``Field(json_schema_extra=...)`` that bounds the field in the JSON schema only
    (the reply is not refused for exceeding it): on the field itself and on its
    non-null ``anyOf`` branch, so ``str | None`` fields are bounded where the string is.

    ``item_max_length`` bounds the strings of a ``list[str]`` (or the values of a
    ``dict[str, str]``); ``max_properties`` the size of a dict.
    """

    def apply(schema: dict[str, Any]) -> None:
        targets = [schema, *(b for b in schema.get("anyOf", ()) if isinstance(b, dict))]
        for target in targets:
            kind = target.get("type")
            if kind == "string" and max_length is not None:
                target["maxLength"] = max_length
            elif kind == "array":
                if max_items is not None:
                    target["maxItems"] = max_items
                items = target.get("items")
                if isinstance(items, dict) and item_max_length is not None:
                    items["maxLength"] = item_max_length
            elif kind == "object":
                if max_properties is not None:
                    target["maxProperties"] = max_properties
                values = target.get("additionalProperties")
                if isinstance(values, dict) and item_max_length is not None:
                    values["maxLength"] = item_max_length

    return apply
