"""The extractive engine's parts: follow-up expansion, sentence scoring, MMR, claims."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from marginalia.answer import offline
from marginalia.answer.quotes import validate_claims
from marginalia.answer.routing import expand_query, wiki_passage_text
from marginalia.answer.schemas import Passage
from marginalia.answer.streaming import source_entry, token_pieces
from marginalia.llm import ChatMessage


def test_follow_up_expansion() -> None:
    history = [
        ChatMessage(role="user", content="How does SPECTER use the citation graph?"),
        ChatMessage(role="assistant", content="It uses citations as a training signal [1]."),
    ]
    assert expand_query("What about its evaluation?", history) == (
        "What about its evaluation? (How does SPECTER use the citation graph?)"
    )
    assert expand_query("And SciDocs?", history).endswith(
        "(How does SPECTER use the citation graph?)"
    )
    standalone = "Which risk factors predict venous thromboembolism after pelvic trauma surgery?"
    assert expand_query(standalone, history) == standalone
    assert expand_query("What about its evaluation?", None) == "What about its evaluation?"


def test_wiki_text_drops_markers_and_link_brackets() -> None:
    body = (
        "# Citation graph\n\n## What the sources say\n\n"
        "- SPECTER trains on citations. [source:abc#3]\n\nRelated: [[scidocs]], [[hard-negatives|negatives]]\n"
    )
    text = wiki_passage_text("Citation graph", body)
    assert "[source:" not in text and "[[" not in text
    assert "SPECTER trains on citations." in text and "scidocs, negatives" in text


class UnitEmbedder:
    """Sentences embed to fixed unit vectors chosen by keyword."""

    model_id = "unit"
    dim = 3
    max_tokens = 256

    def count_tokens(self, text: str) -> int:
        return len(text.split()) + 2

    def _vec(self, text: str) -> np.ndarray:
        t = text.lower()
        if "citation" in t:
            v = np.array([1.0, 0.1 if "graph" in t else 0.0, 0.0])
        elif "negative" in t:
            v = np.array([0.6, 0.8, 0.0])
        else:
            v = np.array([0.0, 0.0, 1.0])
        return (v / np.linalg.norm(v)).astype(np.float32)

    async def embed_query(self, text: str) -> np.ndarray:
        return self._vec(text)

    async def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self._vec(t) for t in texts])


PASSAGES = [
    Passage(
        n=1,
        chunk_id=1,
        document="SPECTER",
        text=(
            "SPECTER is trained on the citation graph of papers. "
            "The citation graph gives a signal for relatedness of papers. "
            "Fig. 2."
        ),
        score=0.03,
    ),
    Passage(
        n=2,
        chunk_id=2,
        document="SPECTER",
        text=(
            "Hard negatives are papers cited by a cited paper but not by the query. "
            "Trauma patients are at risk of venous thromboembolism after surgery."
        ),
        score=0.02,
    ),
]


async def test_scoring_mmr_and_claims_validate() -> None:
    embedder = UnitEmbedder()
    query = "How does SPECTER use the citation graph?"
    scored = await offline.score_sentences(
        query=query,
        query_vector=await embedder.embed_query(query),
        passages=PASSAGES,
        embedder=embedder,  # type: ignore[arg-type]
        lexer=offline.python_lexer(),
    )
    # "Fig. 2." is too short to be a sentence worth citing
    assert all("Fig" not in s.text for s in scored)
    assert scored[0].text == "SPECTER is trained on the citation graph of papers."
    assert offline.evidence_score(scored) == scored[0].support
    assert scored[-1].text.startswith("Trauma")
    assert 0.0 <= scored[-1].support < scored[0].support

    # the two citation-graph sentences are near duplicates: MMR takes one, then the
    # differently-embedded hard-negatives sentence; the trauma sentence is below threshold
    chosen = offline.select_mmr(scored, threshold=scored[-1].support + 1e-6)
    texts = [s.text for s in chosen]
    assert texts[0] == "SPECTER is trained on the citation graph of papers."
    assert "The citation graph gives a signal for relatedness of papers." not in texts
    assert any(t.startswith("Hard negatives") for t in texts)
    assert not any(t.startswith("Trauma") for t in texts)

    claims = offline.extractive_claims(chosen)
    kept, dropped = validate_claims(claims, PASSAGES)
    assert kept == claims and dropped == []
    assert [c.citations for c in claims] == [[s.passage_n] for s in chosen]
    assert offline.select_mmr(scored, threshold=2.0) == []


def test_token_pieces_and_source_entry() -> None:
    text = "SPECTER uses citations. [1] Hard negatives help. [2]"
    pieces = token_pieces(text)
    assert "".join(pieces) == text and len(pieces) > 3
    entry = source_entry(PASSAGES[0])
    assert entry["n"] == 1 and entry["document"] == "SPECTER" and entry["excerpt"]
