"""OpenAlexClient (pyalex) against the replay server serving recorded OpenAlex responses."""

from __future__ import annotations

import json
import time

import pyalex
import pytest

from marginalia.config import SourceSettings
from marginalia.sources.base import SourceClient, SourceError
from marginalia.sources.openalex_client import OpenAlexClient, reconstruct_abstract
from marginalia.sources.ratelimit import RateLimiter
from tests.support.replay_server import FIXTURES, ReplayServer, replay, replay_clean

__all__ = ["replay", "replay_clean"]

PAPERQA = "PaperQA: Retrieval-Augmented Generative Agent for Scientific Research"
CHEM = "Augmenting large language models with chemistry tools"


def make_client(server: ReplayServer, **overrides: object) -> OpenAlexClient:
    params: dict[str, object] = {
        "email": "tests@example.org",
        "timeout_s": 5.0,
        "deadline_s": 10.0,
        "max_retries": 2,
        "backoff_base_s": 0.01,
        "limiter": RateLimiter(0.0),
    }
    params.update(overrides)
    return OpenAlexClient(server.base_url_for("openalex"), **params)  # type: ignore[arg-type]


def test_from_settings_sets_polite_pool_and_base_url() -> None:
    client = OpenAlexClient.from_settings(
        SourceSettings(openalex_email="me@example.org", openalex_base_url="http://x.test/oa")
    )
    assert isinstance(client, SourceClient)
    assert client.base_url == "http://x.test/oa"
    assert pyalex.config.email == "me@example.org"
    assert pyalex.config.openalex_url == "http://x.test/oa"
    assert pyalex.config.max_retries == 0


async def test_get_by_doi_maps_a_full_work(replay_clean: ReplayServer) -> None:
    work = await make_client(replay_clean).get_by_doi("https://doi.org/10.1016/J.ADDR.2015.01.008")
    assert work is not None
    assert work.origin == "openalex"
    assert work.title == (
        "Pharmacokinetics, biodistribution and cell uptake of antisense oligonucleotides"
    )
    assert work.doi == "10.1016/j.addr.2015.01.008"
    assert work.openalex_id == "W2033425827"
    assert work.year == 2015
    assert work.citation_count == 750
    assert work.venue == "Advanced Drug Delivery Reviews"
    assert len(work.authors) == 4 and all(work.authors)
    assert work.abstract and len(work.abstract.split()) > 50
    # The polite-pool address travels as pyalex's From header.
    assert replay_clean.requests[-1].headers.get("from") == "tests@example.org"


async def test_get_by_doi_without_abstract(replay_clean: ReplayServer) -> None:
    work = await make_client(replay_clean).get_by_doi("10.1016/j.xgen.2025.100814")
    assert work is not None
    assert work.abstract is None
    assert work.venue == "Cell Genomics"
    assert work.url == "https://doi.org/10.1016/j.xgen.2025.100814"


async def test_get_by_doi_404_is_none(replay_clean: ReplayServer) -> None:
    client = make_client(replay_clean)
    # The recorded 404 (an HTML body), requested exactly as recorded.
    missing = await client.get_by_doi(
        "10.1046/j.1365-2699.2003.00795", select=["open_access", "doi"]
    )
    assert missing is None
    assert replay_clean.requests[-1].status == 404
    assert replay_clean.count("/openalex") == 1  # a 404 is not retried


async def test_get_by_doi_with_select(replay_clean: ReplayServer) -> None:
    work = await make_client(replay_clean).get_by_doi(
        "10.1093/nar/gkw1164", select=["open_access", "doi"]
    )
    assert work is not None
    assert work.doi == "10.1093/nar/gkw1164"
    assert work.pdf_url == "https://academic.oup.com/nar/article-pdf/45/1/311/9249485/gkw1164.pdf"


async def test_title_search(replay_clean: ReplayServer) -> None:
    [paper] = await make_client(replay_clean).search_title(PAPERQA, limit=5)
    assert paper.title == PAPERQA
    assert paper.doi == "10.48550/arxiv.2312.07559"
    assert paper.arxiv_id == "2312.07559"  # derived from the arXiv DOI
    assert paper.year == 2023
    # pyalex's own request, relayed to the configured base URL.
    request = replay_clean.requests[-1]
    assert request.path == "/openalex/works"
    assert dict(request.query)["filter"] == f"title.search:{PAPERQA}"


async def test_title_search_best_pdf_and_limit(replay_clean: ReplayServer) -> None:
    client = make_client(replay_clean)
    both = await client.search_title(CHEM, limit=10)
    assert len(both) == 2
    assert both[0].pdf_url == "https://www.nature.com/articles/s42256-024-00832-8.pdf"
    assert both[0].citation_count == 236
    assert len(await client.search_title(CHEM, limit=1)) == 1


async def test_429_then_success(replay_clean: ReplayServer) -> None:
    replay_clean.fail_next("/openalex/works", count=1, status=429, retry_after="0")
    client = make_client(replay_clean)
    [paper] = await client.search_title(PAPERQA, limit=5)
    assert paper.openalex_id == "W4389761608"
    assert client.retries == 1
    assert [r.status for r in replay_clean.requests] == [429, 200]


async def test_5xx_exhausts_retries(replay_clean: ReplayServer) -> None:
    replay_clean.fail_next("/openalex", count=10, status=500)
    client = make_client(replay_clean, max_retries=2)
    with pytest.raises(SourceError) as info:
        await client.search_title(PAPERQA, limit=5)
    assert info.value.reason == "http_status"
    assert info.value.status == 500
    assert replay_clean.count("/openalex") == 3


async def test_timeout_when_server_hangs(replay_clean: ReplayServer) -> None:
    replay_clean.hang_next("/openalex", count=5, seconds=3.0)
    client = make_client(replay_clean, timeout_s=0.2, deadline_s=0.8, max_retries=5)
    t0 = time.monotonic()
    with pytest.raises(SourceError) as info:
        await client.get_by_doi("10.1073/pnas.1414271111")
    assert info.value.reason == "timeout"
    assert time.monotonic() - t0 < 1.5


async def test_references_and_cited_by_requests(replay_clean: ReplayServer) -> None:
    # No recording exists for these lookups; serve a recorded result list at the exact
    # URL the client must ask for.
    listing = json.loads(
        (FIXTURES / "openalex" / "test_title_search_paper_attributes2___3.json").read_text()
    )
    replay_clean.add_response("/openalex/works", {"filter": "cited_by:W4389761608"}, body=listing)
    replay_clean.add_response("/openalex/works", {"filter": "cites:W4389761608"}, body=listing)
    client = make_client(replay_clean)
    refs = await client.references("https://openalex.org/W4389761608", limit=5)
    cites = await client.cited_by("W4389761608", limit=1)
    assert [r.openalex_id for r in refs] == ["W4396723768", "W4365597205"]
    assert len(cites) == 1
    assert dict(replay_clean.requests[0].query)["per-page"] == "5"


async def test_free_text_search_unrecorded_is_http_404(replay_clean: ReplayServer) -> None:
    with pytest.raises(SourceError) as info:
        await make_client(replay_clean).search("efficient attention", limit=3)
    assert info.value.status == 404


def test_reconstruct_abstract() -> None:
    assert reconstruct_abstract({"world": [1], "Hello": [0], "again": [3], "hello": [2]}) == (
        "Hello world hello again"
    )
    assert reconstruct_abstract(None) is None
    assert reconstruct_abstract({}) is None
