"""BraveClient against the replay server serving the recorded Brave responses."""

from __future__ import annotations

import time

import pytest
from pydantic import SecretStr

from marginalia.config import SourceSettings
from marginalia.sources.base import SourceClient, SourceError
from marginalia.sources.brave_client import (
    NOT_CONFIGURED_MESSAGE,
    BraveClient,
    clean_snippet,
    result_to_candidate,
)
from marginalia.sources.ratelimit import RateLimiter
from tests.support.replay_server import ReplayServer, replay, replay_clean

__all__ = ["replay", "replay_clean"]


def make_client(server: ReplayServer, **overrides: object) -> BraveClient:
    params: dict[str, object] = {
        "api_key": "test-key",
        "timeout_s": 5.0,
        "deadline_s": 10.0,
        "max_retries": 2,
        "backoff_base_s": 0.01,
        "limiter": RateLimiter(0.0),
    }
    params.update(overrides)
    return BraveClient(server.base_url_for("brave"), **params)  # type: ignore[arg-type]


async def test_web_search_maps_results(replay_clean: ReplayServer) -> None:
    results = await make_client(replay_clean).search("hello world", limit=20)
    assert len(results) == 20
    first = results[0]
    assert first.origin == "brave"
    assert first.title == '"Hello, World!" program - Wikipedia'
    assert first.url == "https://en.wikipedia.org/wiki/%22Hello,_World!%22_program"
    assert first.abstract is not None
    assert first.abstract.startswith('A "Hello, World!" program is usually a simple')
    assert "<strong>" not in first.abstract and "&quot;" not in first.abstract
    assert first.pdf_url is None
    assert first.venue == "en.wikipedia.org"
    assert first.year == 2024
    request = replay_clean.requests[-1]
    assert request.path == "/brave/res/v1/web/search"
    assert dict(request.query) == {"q": "hello world", "count": "20"}
    assert request.headers["x-subscription-token"] == "test-key"


async def test_limit_caps_results_and_count(replay_clean: ReplayServer) -> None:
    results = await make_client(replay_clean).search("hello world", limit=3)
    assert len(results) == 3
    assert dict(replay_clean.requests[-1].query)["count"] == "3"
    await make_client(replay_clean).search("hello world", limit=50)
    assert dict(replay_clean.requests[-1].query)["count"] == "20"


async def test_news_search(replay_clean: ReplayServer) -> None:
    news = await make_client(replay_clean).search_news("hello world", limit=5)
    assert 0 < len(news) <= 5
    assert news[0].title == "World News and International Headlines : NPR"


def test_pdf_results_get_a_pdf_url() -> None:
    c = result_to_candidate(
        {"title": "A <strong>paper</strong>", "url": "https://example.org/files/paper.PDF"}
    )
    assert c is not None
    assert c.pdf_url == "https://example.org/files/paper.PDF"
    assert c.title == "A paper"
    assert result_to_candidate({"title": "no url"}) is None
    assert clean_snippet("a &amp; <b>b</b>") == "a & b"


async def test_not_configured_is_skipped_without_network(replay_clean: ReplayServer) -> None:
    client = BraveClient.from_settings(
        SourceSettings(brave_base_url=replay_clean.base_url_for("brave"))
    )
    assert isinstance(client, SourceClient)
    assert not client.configured
    with pytest.raises(SourceError) as info:
        await client.search("hello world", limit=5)
    assert info.value.reason == "not_configured"
    assert info.value.message == NOT_CONFIGURED_MESSAGE
    assert "MARGINALIA_SOURCES__BRAVE_API_KEY" in str(info.value)
    assert replay_clean.count() == 0


def test_from_settings_reads_secret_key() -> None:
    client = BraveClient.from_settings(SourceSettings(brave_api_key=SecretStr("k")))
    assert client.configured


async def test_bad_key_is_http_401_not_retried(replay_clean: ReplayServer) -> None:
    client = make_client(replay_clean, api_key="")
    with pytest.raises(SourceError) as info:
        await client.search("x", limit=1)
    assert info.value.reason == "not_configured"
    # A key the service refuses: the replay server answers 401 to a missing header.
    replay_clean.add_response(
        "/brave/res/v1/web/search", {"q": "x", "count": "1"}, body="{}", status=401
    )
    with pytest.raises(SourceError) as info:
        await make_client(replay_clean).search("x", limit=1)
    assert info.value.status == 401
    assert replay_clean.count("/brave") == 1


async def test_429_then_success(replay_clean: ReplayServer) -> None:
    replay_clean.fail_next("/brave", count=2, status=429, retry_after="0")
    client = make_client(replay_clean)
    results = await client.search("hello world", limit=5)
    assert len(results) == 5
    assert client.retries == 2
    assert [r.status for r in replay_clean.requests] == [429, 429, 200]


async def test_timeout_when_server_hangs(replay_clean: ReplayServer) -> None:
    replay_clean.hang_next("/brave", count=5, seconds=3.0)
    client = make_client(replay_clean, timeout_s=0.2, deadline_s=0.7, max_retries=5)
    t0 = time.monotonic()
    with pytest.raises(SourceError) as info:
        await client.search("hello world", limit=5)
    assert info.value.reason == "timeout"
    assert time.monotonic() - t0 < 1.5


async def test_retry_after_is_honoured(replay_clean: ReplayServer) -> None:
    replay_clean.fail_next("/brave", count=1, status=429, retry_after="0.3")
    client = make_client(replay_clean, backoff_base_s=0.0)
    t0 = time.monotonic()
    assert len(await client.search("hello world", limit=2)) == 2
    assert time.monotonic() - t0 >= 0.3
