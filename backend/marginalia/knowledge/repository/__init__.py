"""SQL for the knowledge tables (concepts, claims, evidence, source edges, clusters, wiki,
learning paths) and the source columns the "understand" stage fills — the stage's data
layer, one module per group of tables, re-exported here (``repo.list_concepts``, …).

Every function takes the caller's :class:`AsyncSession`; the caller owns the transaction.
Bulk writes use ``executemany`` inserts or ``unnest`` updates so a workspace of a few hundred
sources is updated in a handful of statements.
"""

from __future__ import annotations

from marginalia.knowledge.repository.claims import (
    EvidenceCandidate,
    claims_near_source,
    claims_with_evidence,
    count_evidence,
    delete_claims_of_source,
    delete_workspace_claims,
    evidence_for_claims,
    insert_claims,
    insert_evidence,
    update_evidence,
)
from marginalia.knowledge.repository.concepts import (
    change_concept_edges,
    change_source_links,
    delete_concepts,
    insert_concepts,
    list_concept_edges,
    list_concepts,
    source_concept_links,
    source_concept_weights,
    update_concepts,
)
from marginalia.knowledge.repository.graph import (
    delete_source_edges,
    insert_source_edges,
    list_clusters,
    list_source_edges,
    replace_clusters,
    syntheses,
)
from marginalia.knowledge.repository.paths import (
    bump_knowledge_version,
    insert_learning_path,
    knowledge_version,
    latest_learning_path,
    read_marks,
    set_step_read,
)
from marginalia.knowledge.repository.sources import (
    SourceRow,
    chunk_rows,
    delete_source,
    get_source,
    get_workspace,
    lock_workspace,
    mean_chunk_embedding,
    set_description_embedding,
    store_extraction,
    store_quality,
    workspace_sources,
)
from marginalia.knowledge.repository.wiki import (
    backlinks,
    cited_chunk_pages,
    delete_wiki_pages,
    get_wiki_page,
    list_revisions,
    list_wiki_pages,
    revision_count,
    similar_wiki_pages,
    write_wiki_page,
)

__all__ = [
    "EvidenceCandidate",
    "SourceRow",
    "backlinks",
    "bump_knowledge_version",
    "change_concept_edges",
    "change_source_links",
    "chunk_rows",
    "cited_chunk_pages",
    "claims_near_source",
    "claims_with_evidence",
    "count_evidence",
    "delete_claims_of_source",
    "delete_concepts",
    "delete_source",
    "delete_source_edges",
    "delete_wiki_pages",
    "delete_workspace_claims",
    "evidence_for_claims",
    "get_source",
    "get_wiki_page",
    "get_workspace",
    "insert_claims",
    "insert_concepts",
    "insert_evidence",
    "insert_learning_path",
    "insert_source_edges",
    "knowledge_version",
    "latest_learning_path",
    "list_clusters",
    "list_concept_edges",
    "list_concepts",
    "list_revisions",
    "list_source_edges",
    "list_wiki_pages",
    "lock_workspace",
    "mean_chunk_embedding",
    "read_marks",
    "replace_clusters",
    "revision_count",
    "set_description_embedding",
    "set_step_read",
    "similar_wiki_pages",
    "source_concept_links",
    "source_concept_weights",
    "store_extraction",
    "store_quality",
    "syntheses",
    "update_concepts",
    "update_evidence",
    "workspace_sources",
    "write_wiki_page",
]
