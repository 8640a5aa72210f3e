"""Bibliography out (issue 36, item 3): an entry lacking DOI, pages or venue gets them
from the catalog's record of the same work, the origin written with it; the file is
named after the workspace; a selection exports only the chosen sources; and export →
import into an empty workspace → export gives the same entries in every format."""

from __future__ import annotations

import dataclasses
import json
import uuid
from pathlib import Path

import httpx
import pytest

from marginalia.api.app import create_app
from marginalia.formats import untrusted
from marginalia.jobs.events import follow_events
from marginalia.runtime import Runtime
from marginalia.usecases import exports, imports
from marginalia.usecases.workspaces import create_workspace

CATALOG = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "catalog"
pytestmark = pytest.mark.skipif(not CATALOG.is_dir(), reason=f"no shared catalog at {CATALOG}")

# Two entries as a user's reference manager might have them: SPECTER without DOI, pages
# or venue (the catalog has them), and a paper the catalog does not hold.
LIBRARY = r"""
@inproceedings{cohan2020specter,
  title = {{SPECTER}: Document-level Representation Learning using Citation-informed Transformers},
  author = {Cohan, Arman and Feldman, Sergey and Beltagy, Iz and Downey, Doug and Weld, Daniel},
  year = {2020},
  abstract = {Representation learning is a critical ingredient for natural language processing systems.},
}
@article{roe2019widgets,
  title = {On the Careful Ranking of Widgets in Large Warehouses},
  author = {Roe, Jane},
  year = {2019},
  journal = {Journal of Widgets},
  pages = {12-30},
  doi = {10.5555/widgets.2019},
}
"""


def _with_catalog(rt: Runtime) -> Runtime:
    return dataclasses.replace(
        rt, settings=rt.settings.model_copy(update={"catalog_path": CATALOG})
    )


async def _import(rt: Runtime, name: str, text: str, fmt: str) -> uuid.UUID:
    ws = await create_workspace(rt, name=name)
    job = await imports.submit_import(rt, ws.id, text, fmt, fetch=False)  # type: ignore[arg-type]
    async for _ in follow_events(rt.db, job.id):
        pass
    done = await rt.jobs.get(job.id)
    assert done.status == "succeeded", done.error
    return ws.id


def _fields(text: str, fmt: str) -> dict[str, dict[str, object]]:
    parsed = untrusted.PARSERS[fmt](text)  # type: ignore[index]
    out = {}
    for r in parsed.records:
        c = r.candidate.model_dump(exclude={"source_id", "origin"})
        out[r.candidate.title] = {**c, "notes": r.notes}
    return out


@pytest.mark.parametrize("fmt", ["bibtex", "ris", "csl-json"])
async def test_filled_from_the_catalog_and_kept_through_a_round_trip(
    services: Runtime, fmt: str
) -> None:
    rt = _with_catalog(services)
    name = f"My Review {fmt} {uuid.uuid4().hex[:6]}"
    library = await _import(rt, name, LIBRARY, "bibtex")
    text, file_name = await exports.export_selection(rt, library, fmt)  # type: ignore[arg-type]
    assert file_name == name.lower().replace(" ", "-") + exports.EXTENSIONS[fmt]
    first = _fields(text, fmt)
    specter = next(v for k, v in first.items() if k.startswith("SPECTER"))
    assert specter["doi"] == "10.18653/v1/2020.acl-main.207"
    assert specter["pages"] == "2270--2282"
    assert "Association for Computational Linguistics" in str(specter["venue"])
    assert specter["metadata_origins"] == {"doi": "catalog", "pages": "catalog", "venue": "catalog"}
    widgets = first["On the Careful Ranking of Widgets in Large Warehouses"]
    assert (widgets["pages"], widgets["doi"], widgets["metadata_origins"]) == (
        "12--30",
        "10.5555/widgets.2019",
        {},
    )
    # into an empty workspace (no catalog there: what comes back is what was stored)
    again = await _import(services, f"again-{uuid.uuid4().hex[:6]}", text, fmt)
    text2, _ = await exports.export_selection(services, again, fmt)  # type: ignore[arg-type]
    assert _fields(text2, fmt) == first


async def test_export_route_names_the_file_and_exports_a_selection(services: Runtime) -> None:
    rt = _with_catalog(services)
    name = f"Selection Test {uuid.uuid4().hex[:6]}"
    library = await _import(rt, name, LIBRARY, "bibtex")
    app = create_app(rt.settings, runtime=rt)
    app.state.runtime = rt
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        sources = (await http.get(f"/api/workspaces/{library}/sources")).json()
        widgets = next(s["id"] for s in sources if s["title"].startswith("On the Careful"))
        got = await http.get(
            f"/api/workspaces/{library}/export",
            params={"format": "csl-json", "source_id": [widgets]},
        )
        assert got.status_code == 200, got.text
        slug = name.lower().replace(" ", "-")
        assert got.headers["content-disposition"] == (
            f"attachment; filename=\"{slug}.json\"; filename*=UTF-8''{slug}.json"
        )
        items = json.loads(got.text)
        assert [i["title"] for i in items] == [
            "On the Careful Ranking of Widgets in Large Warehouses"
        ]
        whole = await http.get(f"/api/workspaces/{library}/bibtex")
        assert f'filename="{slug}.bib"' in whole.headers["content-disposition"]
        assert whole.text.count("@") == 2 and "metadata-origin" in whole.text
        for bad in ({"format": "docx"}, {"source_id": [str(uuid.uuid4())]}, {"source_id": "x"}):
            refused = await http.get(f"/api/workspaces/{library}/export", params=bad)
            assert refused.status_code == 422, (bad, refused.text)
