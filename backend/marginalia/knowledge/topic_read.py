"""The topic clusters of a workspace from what the knowledge layer stores: the canvas
graph and the learning path read them the same way (``topics.py`` does the clustering)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from marginalia.db.models import Concept, SourceEdge
from marginalia.knowledge import repository as repo
from marginalia.knowledge.repository import citations as cite_repo
from marginalia.knowledge.topics import TopicCluster, topic_clusters


def topics_of(
    sources: Sequence[repo.SourceRow],
    concepts: Sequence[Concept],
    links: Sequence[tuple[uuid.UUID, uuid.UUID]],
    source_edges: Sequence[SourceEdge],
    citations: Sequence[cite_repo.CitationEdge],
    weights: Sequence[tuple[uuid.UUID, uuid.UUID, float]] = (),
) -> list[TopicCluster]:
    """The sources' topic clusters (every concept counts, not only those the canvas shows);
    source and concept keys are their ids as strings. ``weights``: (source, concept,
    weight) links — a concept's standing in a source, for the labels."""
    concepts_of: dict[str, list[str]] = {}
    for sid, cid in links:
        concepts_of.setdefault(str(sid), []).append(str(cid))
    return topic_clusters(
        [str(s.id) for s in sources],
        concepts_of,
        similar=[(str(e.source_a_id), str(e.source_b_id), e.strength) for e in source_edges],
        citations=[(str(c.citing), str(c.cited)) for c in citations],
        embeddings={
            str(s.id): [float(x) for x in s.mean_embedding]
            for s in sources
            if s.mean_embedding is not None
        },
        concept_names={str(c.id): c.name for c in concepts},
        weights={(str(s), str(c)): w for s, c, w in weights},
    )


async def load_topics(
    session: AsyncSession,
    workspace_id: uuid.UUID,
    sources: Sequence[repo.SourceRow],
    concepts: Sequence[Concept],
    links: Sequence[tuple[uuid.UUID, uuid.UUID]],
) -> list[TopicCluster]:
    """:func:`topics_of` with the source edges and citations read in ``session``."""
    source_edges = await repo.list_source_edges(session, workspace_id)
    citations = await cite_repo.citation_edges(session, workspace_id)
    weights = await repo.source_concept_weights(session, workspace_id)
    return topics_of(sources, concepts, links, source_edges, citations, weights)
