"""Typed dependencies shared by the routers: the process's runtime (the use cases take it),
who the request acts for, and the access check every API router runs."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import Depends, Request
from starlette.types import Scope

from marginalia.api.hardening import UNSAFE_METHODS
from marginalia.errors import Unauthorized
from marginalia.runtime import Runtime
from marginalia.usecases import accounts
from marginalia.usecases.accounts import Principal

# POSTs that only read the workspace: a reader may ask.
_READING_POSTS = frozenset({"ask_workspace", "ask_source"})


def get_runtime(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]


def credentials(request: Request) -> tuple[str | None, str | None]:
    """``(bearer token, session cookie)`` the request carries."""
    scheme, _, credential = request.headers.get("authorization", "").partition(" ")
    bearer = credential.strip() if scheme.lower() == "bearer" and credential.strip() else None
    return bearer, request.cookies.get(accounts.SESSION_COOKIE) or None


async def get_principal(request: Request, rt: RuntimeDep) -> Principal:
    """The local user, or the user of the request's API token / session cookie (401 in
    accounts mode without a valid one). Resolved once per request."""
    cached: Principal | None = getattr(request.state, "principal", None)
    if cached is not None:
        return cached
    bearer, cookie = credentials(request)
    principal = await accounts.authenticate(rt, bearer=bearer, cookie=cookie)
    request.state.principal = principal
    return principal


PrincipalDep = Annotated[Principal, Depends(get_principal)]


async def authenticate_early(scope: Scope) -> str | None:
    """For ``api.hardening.RequestGuard``, before a body is read: in accounts mode the 401's
    detail when the request has no valid credentials; else None, the principal kept for
    :func:`get_principal`. Any other failure (the database away) is left to the route's
    own check, which answers it the way every route does."""
    runtime: Runtime | None = getattr(getattr(scope.get("app"), "state", None), "runtime", None)
    if runtime is None or not accounts.accounts_mode(runtime):
        return None
    request = Request(scope)
    bearer, cookie = credentials(request)
    try:
        principal = await accounts.authenticate(runtime, bearer=bearer, cookie=cookie)
    except Unauthorized as exc:
        return exc.detail
    except Exception:
        return None
    request.state.principal = principal
    return None


async def require_access(request: Request, rt: RuntimeDep, principal: PrincipalDep) -> None:
    """Every workspace, source, conversation, highlight or job the path names must be the
    principal's to see (else 404), and to change when the method writes (else 403)."""
    addressed: dict[str, uuid.UUID] = {}
    for name, value in request.path_params.items():
        if name in accounts.ADDRESSABLE:
            try:
                addressed[name] = uuid.UUID(str(value))
            except ValueError:
                continue  # the route's own validation answers 422
    route_name = getattr(request.scope.get("route"), "name", "")
    write = request.method in UNSAFE_METHODS and route_name not in _READING_POSTS
    await accounts.authorize(rt, principal, addressed, write=write)
