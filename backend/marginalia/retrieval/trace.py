"""The retrieval trace: what every leg found, at which rank and score, and how long it took.

Returned with every answer (and stored with it), so a user or a test can see why a
passage was cited — or why a leg contributed nothing.
"""

from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

LegStatus = Literal["ok", "empty", "skipped", "error"]


@dataclass(frozen=True)
class RankedEntry:
    chunk_id: int
    rank: int  # 1-based
    score: float


@dataclass
class LegTrace:
    name: str
    status: LegStatus
    ms: float = 0.0
    hits: list[RankedEntry] = field(default_factory=list)
    # How many results the leg returned in all (``hits`` may be cut to the trace depth).
    total: int = 0
    note: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class FusedEntry:
    chunk_id: int
    rank: int
    score: float
    ranks: dict[str, int]  # leg name -> rank in that leg


@dataclass
class RetrievalTrace:
    query: str
    workspace_id: uuid.UUID
    source_id: uuid.UUID | None
    legs: dict[str, LegTrace] = field(default_factory=dict)
    fused: list[FusedEntry] = field(default_factory=list)
    rerank: LegTrace | None = None
    # query_embedding_ms, concept_embedding_ms (both apart from retrieval),
    # retrieval_ms (everything else, legs run concurrently), fusion_ms, hydrate_ms.
    timings_ms: dict[str, float] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-serialisable data."""
        data = asdict(self)
        data["workspace_id"] = str(self.workspace_id)
        data["source_id"] = str(self.source_id) if self.source_id else None
        return data
