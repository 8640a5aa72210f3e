from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_api_doc_matches_the_openapi_schema() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "gen_api_docs", ROOT / "scripts" / "gen_api_docs.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (ROOT / "docs" / "API.md").read_text() == module.render(), (
        "docs/API.md is stale: run `uv run python scripts/gen_api_docs.py`"
    )
