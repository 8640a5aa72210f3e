"""Typed dependencies shared by the routers: the process's runtime (the use cases take it)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from marginalia.runtime import Runtime


def get_runtime(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]
