"""eval/citation_chasing.py on the shared catalog: the references the product lists for
the unarXive papers match their bib entries that resolve to catalog records (issue 36
floor: recall >= 0.9, nothing invented)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CATALOG = ROOT.parent / "shared" / "data" / "catalog"


def test_listed_references_match_the_resolvable_bib_entries() -> None:
    if not (CATALOG / "unarxive").is_dir():
        pytest.skip(f"shared catalog not found at {CATALOG}")
    path = ROOT / "eval" / "citation_chasing.py"
    spec = importlib.util.spec_from_file_location("evalscript_citation_chasing", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    result = module.evaluate(CATALOG)
    assert result["papers"] == 49 and result["bib_entries"] == 1786
    assert result["gold"] >= 2
    assert result["recall"] >= 0.9
    assert result["invented"] == 0
    assert result["floor_met"] is True
