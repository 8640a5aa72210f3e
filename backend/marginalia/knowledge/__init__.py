"""The "understand" stage (DESIGN §1): extraction, the concept graph, claims and evidence,
source edges, redundancy clusters, quality, wiki pages and learning paths.

Pure algorithms — no database, no model (these names are re-exported here):

* :mod:`.schemas` — the unified extraction result an LLM or the offline engine fills;
* :mod:`.text` — stop words, title tokens, Jaccard, sentence spans, slugs;
* :mod:`.extraction` (with :mod:`.sentences`, :mod:`.acronyms`, :mod:`.keyphrases`) — the
  offline extractive engine;
* :mod:`.concepts`, :mod:`.concept_graph` — concept normalisation, merging, levels, edges,
  graph analysis;
* :mod:`.edges` — deterministic source-to-source edges;
* :mod:`.clusters` — redundancy clusters (average linkage);
* :mod:`.quality` — quality scores;
* :mod:`.paths` — learning path planning;
* :mod:`.wiki` — offline wiki pages with citations and resolvable links.

The LLM engine: :mod:`.llm_extraction` (prompts, validated structured calls, the offline
fallback). Model-backed, no database: :mod:`.vectors` (embedding long texts).

On the database, through :class:`.context.KnowledgeContext`:

* the update side — :mod:`.update` (``update_for_source``, ``remove_source``,
  ``rebuild_workspace``) with :mod:`.concept_store`, :mod:`.linking`, :mod:`.wiki_update`;
* the read side — :mod:`.read` (graph, concepts, claims, wiki) and :mod:`.learning_path`;
* storage — :mod:`.repository` (all of the stage's SQL).
"""

from marginalia.knowledge.clusters import RedundancyCluster, redundancy_clusters
from marginalia.knowledge.concept_graph import (
    CanonicalConcept,
    ConceptEdge,
    ConceptGraphData,
    GraphAnalysis,
    analyze,
)
from marginalia.knowledge.concepts import merge_concepts, normalize_concept
from marginalia.knowledge.edges import (
    EdgeSignals,
    SourceEdge,
    SourceForEdges,
    all_edges,
    edges_for_new_source,
)
from marginalia.knowledge.extraction import combined_acronyms, extract_offline
from marginalia.knowledge.paths import LearningPathPlan, PathSource, PathStep, plan_learning_path
from marginalia.knowledge.quality import QualityScore, quality_score
from marginalia.knowledge.schemas import (
    EvidenceJudgement,
    EvidenceRelation,
    ExtractedClaim,
    ExtractedConcept,
    Extraction,
)
from marginalia.knowledge.sentences import ChunkText
from marginalia.knowledge.wiki import (
    CitedSentence,
    WikiConcept,
    WikiPageDraft,
    extract_links,
    resolve_links,
    write_concept_pages,
)

__all__ = [
    "CanonicalConcept",
    "ChunkText",
    "CitedSentence",
    "ConceptEdge",
    "ConceptGraphData",
    "EdgeSignals",
    "EvidenceJudgement",
    "EvidenceRelation",
    "ExtractedClaim",
    "ExtractedConcept",
    "Extraction",
    "GraphAnalysis",
    "LearningPathPlan",
    "PathSource",
    "PathStep",
    "QualityScore",
    "RedundancyCluster",
    "SourceEdge",
    "SourceForEdges",
    "WikiConcept",
    "WikiPageDraft",
    "all_edges",
    "analyze",
    "combined_acronyms",
    "edges_for_new_source",
    "extract_links",
    "extract_offline",
    "merge_concepts",
    "normalize_concept",
    "plan_learning_path",
    "quality_score",
    "redundancy_clusters",
    "resolve_links",
    "write_concept_pages",
]
