"""Where eval reports go and how they are written: ``eval/reports/<stem>.json`` (the full
report) beside ``<stem>.md`` (its human summary), with the commit they were run on."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[3]
REPORTS_DIR = REPO_ROOT / "eval" / "reports"


def git_commit() -> str | None:
    """The short commit of the checkout the eval runs from (None outside git)."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def write_report(
    report: Mapping[str, Any], *, stem: str, markdown: str, out_dir: Path = REPORTS_DIR
) -> tuple[Path, Path]:
    """Write ``<stem>.json`` and ``<stem>.md`` into ``out_dir``; returns both paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path, md_path = out_dir / f"{stem}.json", out_dir / f"{stem}.md"
    json_path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    md_path.write_text(markdown, encoding="utf-8")
    return json_path, md_path
