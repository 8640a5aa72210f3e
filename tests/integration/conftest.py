from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI

from marginalia.api.app import create_app
from marginalia.services.container import Services


@pytest.fixture(scope="session")
def app(services: Services) -> FastAPI:
    application = create_app(services.settings, services=services)
    # httpx's ASGI transport does not run the lifespan; hand the app the session's services.
    application.state.services = services
    return application


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        yield http
