"""JSON bodies take numbers and booleans as the schema types them, nothing coerced.

Pydantic's lax mode would turn ``true`` into ``1`` or ``1.0`` and ``"3"`` into ``3``: the
request would be accepted although the OpenAPI schema says it is invalid (schemathesis
ST201). Every number or boolean field of every JSON request body must be strict; this test
walks the app's routes, so a new body with a lax field fails here, not in a fuzz run.
"""

from __future__ import annotations

import types
import typing

import pytest
from fastapi.routing import APIRoute
from pydantic import BaseModel, ValidationError

from marginalia.api.app import create_app

#: A value of the wrong JSON type for each scalar kind, all accepted by lax mode.
WRONG = {int: [True, "3", 2.0], float: [True, "1.5"], bool: [1, "true"]}


def _scalar_kind(annotation: object) -> type | None:
    """``int``, ``float`` or ``bool`` when the field holds one (optionally ``| None``)."""
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        kinds = {_scalar_kind(a) for a in args if a is not type(None)}
        return kinds.pop() if len(kinds) == 1 else None
    if typing.get_origin(annotation) is typing.Annotated:
        return _scalar_kind(args[0])
    return annotation if annotation in WRONG else None


def _api_routes(routes: typing.Iterable[object]) -> typing.Iterator[APIRoute]:
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        included = getattr(route, "original_router", None)  # FastAPI >= 0.160 wraps routers
        if included is not None:
            yield from _api_routes(included.routes)


def _body_models() -> dict[str, type[BaseModel]]:
    models: dict[str, type[BaseModel]] = {}
    for route in _api_routes(create_app().routes):
        if route.body_field is not None:
            for param in route.dependant.body_params:
                annotation = param.field_info.annotation
                for candidate in (annotation, *typing.get_args(annotation)):
                    if isinstance(candidate, type) and issubclass(candidate, BaseModel):
                        models[candidate.__name__] = candidate
    return models


def _cases() -> list[tuple[str, str, object]]:
    cases = []
    for name, model in sorted(_body_models().items()):
        for field, info in model.model_fields.items():
            kind = _scalar_kind(info.annotation)
            for metadata in info.metadata:  # StrictInt and friends keep the type here
                kind = kind or _scalar_kind(metadata)
            if kind is not None:
                cases += [(name, field, wrong) for wrong in WRONG[kind]]
    return cases


CASES = _cases()


def test_the_walk_finds_the_numeric_fields() -> None:
    # Guards the test itself: these fields exist today and must be found.
    found = {(model, field) for model, field, _ in CASES}
    assert {("PingRequest", "interval_s"), ("ResearchRequest", "fetch")} <= found
    assert ("HighlightCreate", "page") in found


@pytest.mark.parametrize(("model_name", "field", "wrong"), CASES)
def test_a_wrongly_typed_scalar_is_refused(model_name: str, field: str, wrong: object) -> None:
    model = _body_models()[model_name]
    with pytest.raises(ValidationError) as refused:
        model.model_validate({field: wrong})
    assert any(error["loc"][:1] == (field,) for error in refused.value.errors()), (
        f"{model_name}.{field} accepted {wrong!r}: type it Strict*"
    )
