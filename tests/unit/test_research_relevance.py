"""The research ranker (issue 36): a paper close to the description and the workspace's
sources outranks one that only matched a query; each gets a why; without embeddings the
description's terms rank alone."""

from __future__ import annotations

import numpy as np

from marginalia.discovery.relevance import paper_text, rank_candidates, score_candidates
from marginalia.sources.candidate import Candidate


def _unit(*v: float) -> np.ndarray:
    a = np.asarray(v, dtype=np.float32)
    return a / np.linalg.norm(a)


DESCRIPTION = "citation-informed representation learning of scientific documents"
TEXTS = [
    "A Chinese medical answer summarizer. We summarize answers to medical questions.",
    "SPECTER: document-level representation learning using citation-informed transformers.",
    "Form document information extraction with layout-aware models.",
]


def test_embedding_similarity_and_centroid_decide_the_order() -> None:
    desc = _unit(1, 0, 0)
    papers = np.stack([_unit(0.2, 1, 0), _unit(1, 0.1, 0), _unit(0.3, 0, 1)])
    ranked = score_candidates(DESCRIPTION, TEXTS, desc, papers, centroid=_unit(0.9, 0, 0.1))
    assert [r.index for r in ranked] == [1, 2, 0]
    top = ranked[0]
    assert "similar to the description (1.00)" in top.why
    assert "close to the workspace's sources" in top.why
    assert "“citation”" in top.why and "“representation”" in top.why
    assert ranked[0].score > ranked[1].score > ranked[2].score


def test_without_sources_the_description_takes_their_weight() -> None:
    desc = _unit(1, 0)
    papers = np.stack([_unit(0, 1), _unit(1, 0)])
    ranked = score_candidates("unrelated words", ["a", "b"], desc, papers)
    assert [r.index for r in ranked] == [1, 0]
    assert ranked[0].score == 0.9  # W_DESCRIPTION + W_SOURCES, no shared terms
    assert "workspace's sources" not in ranked[0].why


async def test_lexical_only_without_an_embedder() -> None:
    candidates = [Candidate(title=t.split(".")[0], abstract=t, origin="catalog") for t in TEXTS]
    ranked = await rank_candidates(None, DESCRIPTION, candidates)
    assert ranked[0].index == 1
    assert paper_text(candidates[1]).startswith("SPECTER")
