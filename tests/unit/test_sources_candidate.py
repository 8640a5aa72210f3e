"""Candidate normalisation and the identity keys used by dedup layer 1."""

from __future__ import annotations

import pytest

from marginalia.sources.candidate import (
    Candidate,
    normalize_arxiv_id,
    normalize_doi,
    normalize_openalex_id,
    normalized_url,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("https://doi.org/10.1016/J.XGEN.2025.100814", "10.1016/j.xgen.2025.100814"),
        ("http://dx.doi.org/10.1093%2Fnar%2Fgkw1164", "10.1093/nar/gkw1164"),
        ("doi:10.18653/v1/2020.acl-main.1", "10.18653/v1/2020.acl-main.1"),
        ("  10.1023/A:1007154515475 ", "10.1023/a:1007154515475"),
        ("not a doi", None),
        ("", None),
    ],
)
def test_normalize_doi(raw: str, expected: str | None) -> None:
    assert normalize_doi(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2104.12255v1", "2104.12255"),
        ("arXiv:2104.12255", "2104.12255"),
        ("https://arxiv.org/abs/2104.12255v3", "2104.12255"),
        ("http://arxiv.org/pdf/2104.12255v1.pdf", "2104.12255"),
        ("astro-ph/0601001", "astro-ph/0601001"),
        ("quant-ph/0201082v1", "quant-ph/0201082"),
        ("10.48550/arXiv.2312.07559", "2312.07559"),
        ("0704.0001", "0704.0001"),
        ("abc", None),
    ],
)
def test_normalize_arxiv_id(raw: str, expected: str | None) -> None:
    assert normalize_arxiv_id(raw) == expected


def test_normalize_openalex_id() -> None:
    assert normalize_openalex_id("https://openalex.org/W4408732759") == "W4408732759"
    assert normalize_openalex_id("w123") == "W123"
    assert normalize_openalex_id("A123") is None


def test_normalized_url_strips_noise() -> None:
    a = normalized_url("HTTPS://WWW.Example.com/Post/?utm_source=x&b=2&a=1&fbclid=z#section")
    assert a == "https://example.com/Post?a=1&b=2"
    assert normalized_url("http://example.com/post") == normalized_url("https://example.com/post/")
    assert normalized_url("https://example.com:443/x") == "https://example.com/x"
    assert normalized_url("https://example.com:8443/x") == "https://example.com:8443/x"
    # Meaningful parameters stay; only tracking ones go.
    assert normalized_url("https://github.com/o/r?ref=main") == "https://github.com/o/r?ref=main"


def test_arxiv_abs_and_pdf_urls_share_a_key() -> None:
    keys = {
        normalized_url(u)
        for u in (
            "https://arxiv.org/abs/2104.12255",
            "http://arxiv.org/abs/2104.12255v1",
            "https://arxiv.org/pdf/2104.12255v2",
            "https://export.arxiv.org/pdf/2104.12255v1.pdf",
            "https://www.arxiv.org/abs/2104.12255/",
        )
    }
    assert keys == {"https://arxiv.org/abs/2104.12255"}
    assert normalized_url("https://arxiv.org/abs/astro-ph/0601001v2") == (
        "https://arxiv.org/abs/astro-ph/0601001"
    )


def test_doi_urls_normalise_to_doi_org() -> None:
    assert normalized_url("http://dx.doi.org/10.1093/NAR/gkw1164") == (
        "https://doi.org/10.1093/nar/gkw1164"
    )


def test_local_paths_pass_through() -> None:
    assert normalized_url(" /data/papers/a.pdf ") == "/data/papers/a.pdf"


def test_candidate_normalises_ids_and_derives_arxiv_id() -> None:
    c = Candidate(
        title="  PaperQA:\n Retrieval-Augmented   Generative Agent ",
        doi="https://doi.org/10.48550/ARXIV.2312.07559",
        openalex_id="https://openalex.org/W4389761608",
        origin="openalex",
    )
    assert c.title == "PaperQA: Retrieval-Augmented Generative Agent"
    assert c.doi == "10.48550/arxiv.2312.07559"
    assert c.arxiv_id == "2312.07559"
    assert c.openalex_id == "W4389761608"
    from_url = Candidate(title="x", url="https://arxiv.org/pdf/2104.12255v1", origin="brave")
    assert from_url.arxiv_id == "2104.12255"


def test_identity_keys_match_across_sources() -> None:
    from_arxiv = Candidate(
        title="A", url="http://arxiv.org/abs/2312.07559v2", arxiv_id="2312.07559v2", origin="arxiv"
    )
    from_openalex = Candidate(title="A", doi="10.48550/arXiv.2312.07559", origin="openalex")
    from_web = Candidate(title="A", url="https://arxiv.org/pdf/2312.07559", origin="brave")
    assert from_arxiv.identity_keys() & from_openalex.identity_keys() == {"arxiv:2312.07559"}
    assert "url:https://arxiv.org/abs/2312.07559" in (
        from_arxiv.identity_keys() & from_web.identity_keys()
    )
    other = Candidate(title="B", doi="10.1000/xyz", origin="openalex")
    assert not (other.identity_keys() & from_openalex.identity_keys())
    assert Candidate(title="C", origin="upload").identity_keys() == set()
