"""Computing cells: one source's answer to one column's question, by the engine the
process has (a generative provider, else the offline extractive engine), stored as the
cache row of ``(source, question, engine)``."""

from __future__ import annotations

import uuid
from typing import Any

from marginalia.answer.context import AnswerContext
from marginalia.ingest.documents import Page
from marginalia.llm import LLMProvider
from marginalia.tables import repository as repo
from marginalia.tables.cells import CellResult, not_reported
from marginalia.tables.columns import profile_of
from marginalia.tables.evidence import EvidenceCache, source_evidence
from marginalia.tables.llm_engine import fill_cell_with_model
from marginalia.tables.offline_engine import ENGINE, fill_cell
from marginalia.tables.repository import RowSource
from marginalia.tables.view import OFFLINE_ENGINE, source_version


def engine_key(llm: LLMProvider) -> str:
    """The cache key of the cells this process computes: ``offline:v1``, or
    ``llm:<provider>:<model>`` with a generative provider."""
    if not llm.is_generative:
        return OFFLINE_ENGINE
    return f"llm:{llm.name}:{llm.model_for('extraction') or 'default'}"


async def source_pages(ctx: AnswerContext, source_id: uuid.UUID) -> list[Page]:
    async with ctx.db.session() as session:
        return [Page(n, text) for n, text in await repo.source_pages(session, source_id)]


def document_name(row: RowSource) -> str:
    return row.title or row.file_name or row.url or f"source {str(row.source_id)[:8]}"


async def compute_cell(
    ctx: AnswerContext,
    *,
    workspace_id: uuid.UUID,
    row: RowSource,
    question: str,
    pages: list[Page],
    cache: EvidenceCache | None = None,
) -> CellResult:
    """The cell of ``row``'s source for ``question`` (the module doc); ``cache`` keeps the
    source's text and the queries' vectors from one cell to the next."""
    if row.kind == "metadata":
        return not_reported("the source is a bibliographic record without text", [], ENGINE)
    profile = profile_of(question)
    evidence = await source_evidence(
        ctx,
        workspace_id=workspace_id,
        source_id=row.source_id,
        question=question,
        query=profile.retrieval_query(question),
        cache=cache,
    )
    if ctx.llm.is_generative:
        return await fill_cell_with_model(
            ctx.llm, evidence, profile, pages, document=document_name(row)
        )
    return fill_cell(evidence, profile, pages)


def cell_values(
    *, row: RowSource, question: str, key: str, engine: str, result: CellResult
) -> dict[str, Any]:
    """The cache row of a computed cell (:func:`marginalia.tables.repository.save_cell`)."""
    return {
        "source_id": row.source_id,
        "question_key": key,
        "engine": engine,
        "source_version": source_version(row),
        "question": question,
        "answer": result.answer,
        "not_reported": result.not_reported,
        "confidence": result.confidence,
        "quotes": [q.model_dump(mode="json") for q in result.quotes],
        "searched": [s.model_dump(mode="json") for s in result.searched],
        "note": result.note,
        "produced_by": result.produced_by,
        "transient": result.transient,
    }
