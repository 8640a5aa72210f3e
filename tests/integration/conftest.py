from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI

from marginalia.api.app import create_app
from marginalia.runtime import Runtime


@pytest.fixture(scope="session")
def app(services: Runtime) -> FastAPI:
    application = create_app(services.settings, runtime=services)
    # httpx's ASGI transport does not run the lifespan; hand the app the session's services.
    application.state.runtime = services
    return application


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        yield http
