"""Write docs/API.md from the app's OpenAPI schema, so the API doc cannot drift.

Usage: uv run python scripts/gen_api_docs.py [--check]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from marginalia.api.app import create_app

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "docs" / "API.md"


def render() -> str:
    spec = create_app().openapi()
    lines = [
        "# API",
        "",
        "Generated from the OpenAPI schema by `scripts/gen_api_docs.py`; the live schema is",
        "served at `/openapi.json` and browsable at `/docs`. Every error is JSON",
        '`{"error": "<code>", "detail": "<message>"}` with the matching status code.',
        "",
    ]
    by_tag: dict[str, list[tuple[str, str, str]]] = {}
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            tag = (op.get("tags") or ["other"])[0]
            summary = op.get("summary") or op.get("operationId", "")
            by_tag.setdefault(tag, []).append((method.upper(), path, summary))
    for tag, rows in by_tag.items():
        lines += [f"## {tag}", "", "| method | path | what |", "|---|---|---|"]
        lines += [f"| {m} | `{p}` | {s} |" for m, p, s in rows]
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true", help="fail if docs/API.md is stale")
    args = parser.parse_args()
    text = render()
    if args.check:
        if not TARGET.exists() or TARGET.read_text() != text:
            sys.exit("docs/API.md is stale: run `uv run python scripts/gen_api_docs.py`")
        return
    TARGET.write_text(text)


if __name__ == "__main__":
    main()
