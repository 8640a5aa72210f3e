"""The "understand" stage: pure, deterministic knowledge functions (no database, no LLM).

* :mod:`.schemas` — the unified extraction result an LLM or the offline engine fills;
* :mod:`.text` — stop words, title tokens, Jaccard, sentence spans, slugs;
* :mod:`.extraction` — the offline extractive engine;
* :mod:`.concepts` — concept normalisation, merging, levels, edges, graph analysis;
* :mod:`.edges` — deterministic source-to-source edges;
* :mod:`.clusters` — redundancy clusters (average linkage);
* :mod:`.quality` — quality scores;
* :mod:`.paths` — learning path planning;
* :mod:`.wiki` — offline wiki pages with citations and resolvable links.
"""

from marginalia.knowledge.clusters import RedundancyCluster, redundancy_clusters
from marginalia.knowledge.concepts import (
    CanonicalConcept,
    ConceptEdge,
    ConceptGraphData,
    GraphAnalysis,
    analyze,
    merge_concepts,
    normalize_concept,
)
from marginalia.knowledge.edges import (
    EdgeSignals,
    SourceEdge,
    SourceForEdges,
    all_edges,
    edges_for_new_source,
)
from marginalia.knowledge.extraction import ChunkText, combined_acronyms, extract_offline
from marginalia.knowledge.paths import LearningPathPlan, PathSource, PathStep, plan_learning_path
from marginalia.knowledge.quality import QualityScore, quality_score
from marginalia.knowledge.schemas import (
    EvidenceJudgement,
    EvidenceRelation,
    ExtractedClaim,
    ExtractedConcept,
    Extraction,
)
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
