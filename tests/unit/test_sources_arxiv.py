"""ArxivClient against the replay server serving the recorded arXiv API responses."""

from __future__ import annotations

import time

import pytest

from marginalia.config import SourceSettings
from marginalia.sources.arxiv_client import ArxivClient
from marginalia.sources.base import SourceClient, SourceError
from marginalia.sources.ratelimit import RateLimiter
from tests.support.replay_server import ReplayServer, replay, replay_clean

__all__ = ["replay", "replay_clean"]


def make_client(server: ReplayServer, **overrides: object) -> ArxivClient:
    params: dict[str, object] = {
        "min_interval_s": 0.0,
        "timeout_s": 5.0,
        "deadline_s": 10.0,
        "max_retries": 2,
        "backoff_base_s": 0.01,
        "limiter": RateLimiter(0.0),
    }
    params.update(overrides)
    return ArxivClient(server.base_url_for("arxiv"), **params)  # type: ignore[arg-type]


def test_from_settings_and_protocol() -> None:
    client = ArxivClient.from_settings(SourceSettings(min_interval_s=0.5, max_retries=1))
    assert client.base_url == "https://export.arxiv.org/api/query"
    assert client.limiter.min_interval_s == 0.5
    assert client.policy.max_retries == 1
    assert isinstance(client, SourceClient)


async def test_search_maps_results(replay_clean: ReplayServer) -> None:
    client = make_client(replay_clean)
    results = await client.search("testing", limit=10)
    assert len(results) == 10
    first = results[0]
    assert first.origin == "arxiv"
    assert first.title == (
        "Testing Deep Learning Models: A First Comparative Study of Multiple Testing Techniques"
    )
    assert first.arxiv_id == "2202.12139"
    assert first.pdf_url == "https://arxiv.org/pdf/2202.12139v1"
    assert first.url == "https://arxiv.org/abs/2202.12139v1"
    assert first.year == 2022
    assert first.authors and all(first.authors)
    assert first.abstract and first.abstract.startswith("Deep Learning (DL)")
    assert all(r.arxiv_id and "v" not in r.arxiv_id for r in results)
    assert replay_clean.count("/arxiv") == 1


async def test_search_pages_through_results(replay_clean: ReplayServer) -> None:
    client = make_client(replay_clean, page_size=10)
    results = await client.search("testing", limit=25)
    assert len(results) == 25
    starts = [dict(r.query)["start"] for r in replay_clean.requests]
    assert starts == ["0", "10", "20"]
    assert all(dict(r.query)["max_results"] == "10" for r in replay_clean.requests)
    # Pages are consecutive: the first ten equal a single-page query of ten.
    single = await make_client(replay_clean).search("testing", limit=10)
    assert [c.arxiv_id for c in results[:10]] == [c.arxiv_id for c in single]


async def test_search_with_offset(replay_clean: ReplayServer) -> None:
    results = await make_client(replay_clean, page_size=15).search("testing", limit=15, start=5)
    assert len(results) == 15
    assert dict(replay_clean.requests[0].query)["start"] == "5"


async def test_paging_respects_the_rate_limit(replay_clean: ReplayServer) -> None:
    interval = 0.05
    client = make_client(replay_clean, page_size=10, limiter=RateLimiter(interval))
    t0 = time.monotonic()
    await client.search("testing", limit=30)
    assert time.monotonic() - t0 >= 2 * interval * 0.9


async def test_get_by_ids_new_and_old_style(replay_clean: ReplayServer) -> None:
    client = make_client(replay_clean)
    [paper] = await client.get_by_ids(["2104.12255v1"])
    assert paper.arxiv_id == "2104.12255"
    [old] = await client.get_by_ids(["astro-ph/0601001"])
    assert old.arxiv_id == "astro-ph/0601001"
    assert old.year == 2006
    both = await client.get_by_ids(["0808.05394", "1707.08567"])
    assert len(both) >= 1


async def test_doi_and_journal_ref_mapped(replay_clean: ReplayServer) -> None:
    client = make_client(replay_clean)
    results = await client.search("testing", limit=100)
    with_doi = [r for r in results if r.doi]
    assert with_doi, "the recorded page has entries with DOIs"
    assert all(r.doi == (r.doi or "").lower() and "doi.org" not in (r.doi or "") for r in with_doi)
    assert any(r.venue for r in results)


async def test_empty_result(replay_clean: ReplayServer) -> None:
    assert await make_client(replay_clean).get_by_ids(["0000.0000"]) == []


async def test_bad_id_is_a_400(replay_clean: ReplayServer) -> None:
    with pytest.raises(SourceError) as info:
        await make_client(replay_clean).get_by_ids(["abc"])
    assert info.value.reason == "http_status"
    assert info.value.status == 400
    assert "incorrect id format for abc" in info.value.message
    assert replay_clean.count("/arxiv") == 1  # a 400 is not retried


async def test_429_then_success(replay_clean: ReplayServer) -> None:
    replay_clean.fail_next("/arxiv", count=1, status=429, retry_after="0")
    client = make_client(replay_clean)
    results = await client.search("testing", limit=10)
    assert len(results) == 10
    assert client.retries == 1
    assert [r.status for r in replay_clean.requests] == [429, 200]


async def test_unknown_query_is_a_clear_404(replay_clean: ReplayServer) -> None:
    with pytest.raises(SourceError) as info:
        await make_client(replay_clean).search("never recorded", limit=5)
    assert info.value.status == 404
    assert "no recorded response" in info.value.message


async def test_hanging_server_times_out_within_deadline(replay_clean: ReplayServer) -> None:
    replay_clean.hang_next("/arxiv", count=5, seconds=3.0)
    client = make_client(replay_clean, timeout_s=0.2, deadline_s=0.8, max_retries=5)
    t0 = time.monotonic()
    with pytest.raises(SourceError) as info:
        await client.search("testing", limit=10)
    assert info.value.reason == "timeout"
    assert time.monotonic() - t0 < 1.5


async def test_unreachable_server() -> None:
    client = ArxivClient(
        "http://127.0.0.1:9/api/query",
        timeout_s=1.0,
        deadline_s=2.0,
        max_retries=0,
        limiter=RateLimiter(0.0),
    )
    with pytest.raises(SourceError) as info:
        await client.search("testing", limit=1)
    assert info.value.reason == "unreachable"


async def test_deadline_cuts_a_request_longer_than_it(replay_clean: ReplayServer) -> None:
    # The per-request timeout is longer than the deadline: asyncio.timeout ends the call.
    replay_clean.hang_next("/arxiv", count=1, seconds=2.0)
    client = make_client(replay_clean, timeout_s=5.0, deadline_s=0.4)
    t0 = time.monotonic()
    with pytest.raises(SourceError) as info:
        await client.search("testing", limit=10)
    assert info.value.reason == "timeout"
    assert "deadline" in info.value.message
    assert time.monotonic() - t0 < 1.0
