"""Issue 34, part 2: importing "Attention is not Explanation" (Jain & Wallace, NAACL 2019)
and "Attention is not not Explanation" (Wiegreffe & Pinter, EMNLP 2019) keeps both —
before, the import's dedup reported one duplicate and kept only the second."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import numpy as np
from sqlalchemy import select
from sqlmodel import col
from typer.testing import CliRunner

from marginalia.cli.app import app
from marginalia.db.models import Source
from marginalia.knowledge.vectors import embed_leads
from marginalia.runtime import Runtime
from marginalia.usecases.workspaces import find_workspace

# Abstracts written for this test (not the papers' own), alike on purpose: the content
# layer alone would call them one work.
BIB = r"""
@inproceedings{jain2019attention,
  title = {Attention is not Explanation},
  author = {Jain, Sarthak and Wallace, Byron C.},
  booktitle = {Proceedings of NAACL-HLT 2019},
  year = {2019},
  abstract = {Attention weights in recurrent models for text classification are often
    read as explanations of predictions. We test whether attention weights agree with
    gradient-based feature importance and whether other attention distributions yield the
    same predictions, and find that attention is not a faithful explanation.}
}
@inproceedings{wiegreffe2019attention,
  title = {Attention is not not Explanation},
  author = {Wiegreffe, Sarah and Pinter, Yuval},
  booktitle = {Proceedings of EMNLP-IJCNLP 2019},
  year = {2019},
  abstract = {Attention weights in recurrent models for text classification are often
    read as explanations of predictions. We revisit tests of whether attention weights
    agree with feature importance and whether other attention distributions yield the same
    predictions, and argue that attention can be an explanation after all.}
}
"""


async def test_the_attention_pair_imports_as_two_sources(services: Runtime, tmp_path: Path) -> None:
    texts = [
        "Attention is not Explanation. " + BIB.split("abstract = {")[1].split("}")[0],
        "Attention is not not Explanation. " + BIB.split("abstract = {")[2].split("}")[0],
    ]
    vectors = await embed_leads(services.embedder, texts)
    cosine = float(np.dot(vectors[0], vectors[1]))
    # The content layer's threshold is met: only the contradiction checks keep them apart.
    assert cosine >= services.settings.ingest.dedup_embedding, cosine

    bib = tmp_path / "pair.bib"
    bib.write_text(BIB)
    name = f"attention pair {uuid.uuid4().hex[:6]}"
    result = await asyncio.to_thread(
        CliRunner().invoke, app, ["import-bibtex", str(bib), "-w", name, "--quiet"]
    )
    assert result.exit_code == 0, result.output
    ws = await find_workspace(services, name)
    async with services.db.session() as session:
        rows = (
            await session.execute(select(Source).where(col(Source.workspace_id) == ws.id))
        ).scalars()
        titles = sorted(s.title or "" for s in rows)
    assert titles == ["Attention is not Explanation", "Attention is not not Explanation"]
