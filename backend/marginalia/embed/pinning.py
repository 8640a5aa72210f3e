"""Invariant 2: one database, one embedding model. The model id and dimension are
pinned on first use; a different configured model is refused until `marginalia reembed`."""

from __future__ import annotations

from marginalia.db import Database
from marginalia.db.repositories import embedding_model as repo
from marginalia.embed.base import Embedder
from marginalia.errors import ConflictError


class EmbeddingModelMismatch(ConflictError):
    code = "embedding_model_mismatch"


async def ensure_pinned(db: Database, embedder: Embedder) -> None:
    async with db.transaction() as session:
        model_id, dim = await repo.pin(session, embedder.model_id, embedder.dim)
    if (model_id, dim) != (embedder.model_id, embedder.dim):
        raise EmbeddingModelMismatch(
            f"this database holds vectors from {model_id} ({dim}-d), but the configured model is "
            f"{embedder.model_id} ({embedder.dim}-d); run `marginalia reembed` to re-embed "
            "everything with the configured model, or configure the pinned one again"
        )
