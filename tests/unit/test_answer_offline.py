"""The extractive engine's parts: follow-up expansion, sentence scoring, MMR, claims."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from marginalia.answer import offline
from marginalia.answer.quotes import validate_claims
from marginalia.answer.routing import (
    expand_query,
    fuse_history,
    history_terms,
    is_follow_up,
    wiki_passage_text,
)
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


def test_history_terms_resolve_a_follow_up_without_gluing() -> None:
    history = [
        ChatMessage(role="user", content="How does SPECTER use the citation graph?"),
        ChatMessage(role="assistant", content="It uses citations as a training signal [1]."),
    ]
    assert is_follow_up("And how many of those triplets?", history)
    assert not is_follow_up("And how many of those triplets?", None)
    terms = history_terms("What about its evaluation?", history)
    assert terms is not None and terms.split()[0] == "specter"
    assert "citation" in terms and "graph" in terms and "evaluation" not in terms
    standalone = "Which risk factors predict venous thromboembolism after pelvic trauma surgery?"
    assert history_terms(standalone, history) is None


def test_the_history_leg_is_fused_with_the_question() -> None:
    class H:
        def __init__(self, chunk_id: int) -> None:
            self.chunk_id = chunk_id

    main = [H(1), H(2), H(3)]
    hist = [H(9), H(3), H(8)]
    fused = [h.chunk_id for h in fuse_history(main, hist, 4)]
    # 3 is in both; at equal rank the question's own hit goes before the history leg's
    assert fused[0] == 3 and fused.index(1) < fused.index(9)
    assert [h.chunk_id for h in fuse_history([H(20), H(1)], [H(10), H(2)], 4)][:2] == [20, 10]
    assert len(fused) == 4


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


def test_answer_type_detection() -> None:
    assert offline.asks_quantity("How many papers does S2ORC cover?")
    assert offline.asks_quantity("By how much did clickthrough rise?")
    assert offline.asks_quantity("What complication rate was reported?")
    assert not offline.asks_quantity("Which tool is better at extracting titles?")
    assert offline.states_quantity("The rate was 2.8% in trauma patients.")
    assert offline.states_quantity("We find that 101 out of 162 papers skip it.")
    # years of citations and table/figure numbers are not quantities
    assert not offline.states_quantity("As shown by Wang et al. (2013) in Table 6 and Fig. 2.")
    assert not offline.states_quantity("No number is stated here at all.")


def test_bm25_idf_and_context_fallback() -> None:
    # the same formula as lexical retrieval: rarer terms weigh more, absent ones most
    assert offline.bm25_idf(100, 0) > offline.bm25_idf(100, 5) > offline.bm25_idf(100, 50) > 0
    sentences = [frozenset({"specter", "citat"}), frozenset({"citat"}), frozenset({"trauma"})]
    idf = offline.context_idf(frozenset({"specter", "citat", "gpu"}), sentences)
    assert idf["gpu"] > idf["specter"] > idf["citat"]


async def test_workspace_idf_and_window_coverage() -> None:
    embedder = UnitEmbedder()
    query = "How does SPECTER use the citation graph?"
    calls: list[frozenset[str]] = []

    async def workspace_idf(terms: frozenset[str]) -> dict[str, float] | None:
        calls.append(terms)
        # "specter" is rare in the workspace, every other term is common
        return {t: (5.0 if t == "specter" else 0.5) for t in terms}

    scored = await offline.score_sentences(
        query=query,
        query_vector=await embedder.embed_query(query),
        passages=PASSAGES,
        embedder=embedder,  # type: ignore[arg-type]
        lexer=offline.python_lexer(),
        idf=workspace_idf,
    )
    assert calls and "specter" in calls[0]
    by_text = {s.text: s for s in scored}
    first = by_text["SPECTER is trained on the citation graph of papers."]
    second = by_text["The citation graph gives a signal for relatedness of papers."]
    # the second sentence lacks "specter", but its neighbour in the passage has it
    assert second.coverage < first.coverage
    assert second.window_coverage == first.window_coverage > second.coverage
    for s in scored:
        expected = (
            offline.COSINE_WEIGHT * s.cosine
            + offline.COVERAGE_WEIGHT * s.coverage
            + offline.WINDOW_COVERAGE_WEIGHT * s.window_coverage
            + offline.CONTEXT_COVERAGE_WEIGHT * s.context_coverage
        )
        assert abs(s.support - expected) < 1e-9

    async def no_stats(terms: frozenset[str]) -> dict[str, float] | None:
        return None

    fallback = await offline.score_sentences(
        query=query,
        query_vector=await embedder.embed_query(query),
        passages=PASSAGES,
        embedder=embedder,  # type: ignore[arg-type]
        lexer=offline.python_lexer(),
        idf=no_stats,
    )
    plain = await offline.score_sentences(
        query=query,
        query_vector=await embedder.embed_query(query),
        passages=PASSAGES,
        embedder=embedder,  # type: ignore[arg-type]
        lexer=offline.python_lexer(),
    )
    assert [s.support for s in fallback] == [s.support for s in plain]


async def test_context_coverage_lowers_evidence_for_a_term_no_passage_mentions() -> None:
    """A question whose specific term appears in none of the passages scores lower than
    the same question over a context that does mention it, by exactly the context term."""
    embedder = UnitEmbedder()
    query = "How does SPECTER use the citation graph for chimpanzee genes?"

    async def flat_idf(terms: frozenset[str]) -> dict[str, float] | None:
        return dict.fromkeys(terms, 1.0)

    async def score(passages: list[Passage]) -> list[offline.ScoredSentence]:
        return await offline.score_sentences(
            query=query,
            query_vector=await embedder.embed_query(query),
            passages=passages,
            embedder=embedder,  # type: ignore[arg-type]
            lexer=offline.python_lexer(),
            idf=flat_idf,
        )

    mentions = Passage(
        n=3, chunk_id=3, document="Genes", score=0.01,
        text="Chimpanzee genes were compared with human genes in this study of selection.",
    )  # fmt: skip
    without = await score(PASSAGES)
    with_term = await score([*PASSAGES, mentions])
    target = "SPECTER is trained on the citation graph of papers."
    a = next(s for s in without if s.text == target)
    b = next(s for s in with_term if s.text == target)
    assert len({s.context_coverage for s in without}) == 1  # one value per question
    assert a.context_coverage < b.context_coverage
    assert (a.cosine, a.coverage, a.window_coverage) == (b.cosine, b.coverage, b.window_coverage)
    gap = offline.CONTEXT_COVERAGE_WEIGHT * (b.context_coverage - a.context_coverage)
    assert abs((b.support - a.support) - gap) < 1e-9
    assert offline.evidence_score(without) < offline.evidence_score(with_term)


def test_answer_type_orders_claims_but_not_the_pool() -> None:
    def sentence(
        text: str, support: float, vec: list[float], numeric: bool
    ) -> offline.ScoredSentence:
        v = np.asarray(vec, dtype=np.float32)
        return offline.ScoredSentence(
            passage_n=1, text=text, start=0, end=len(text), cosine=support, coverage=0.0,
            window_coverage=0.0, context_coverage=0.0, support=support, vector=v / np.linalg.norm(v), answer_type=numeric,
        )  # fmt: skip

    general = sentence("The trial reported retrieval failures.", 0.62, [1, 0, 0], False)
    figure = sentence("Failed retrieval rates were 2.8% overall.", 0.60, [0, 1, 0], True)
    low = sentence("Retrieval failed in 3 of 9 cases.", 0.40, [0, 0, 1], True)
    chosen = offline.select_mmr([general, figure, low], threshold=0.5)
    assert [s.text for s in chosen] == [figure.text, general.text]  # `low` is below threshold


def test_claims_prefer_the_better_retrieved_passage_and_the_expected_type() -> None:
    def sentence(text: str, n: int, support: float, vec: list[float]) -> offline.ScoredSentence:
        v = np.asarray(vec, dtype=np.float32)
        return offline.ScoredSentence(
            passage_n=n, text=text, start=0, end=len(text), cosine=support, coverage=0.0,
            window_coverage=0.0, context_coverage=0.0, support=support, vector=v / np.linalg.norm(v),
            answer_type=any(c.isdigit() for c in text),
        )  # fmt: skip

    far = sentence("Retrieval of the records failed for some of the patients.", 7, 0.63, [1, 0, 0])
    near = sentence("Retrieval failed for the records of older patients.", 1, 0.61, [0, 1, 0])
    passages = [
        Passage(n=n, document="d", text=s.text, score=1.0) for n, s in ((7, far), (1, near))
    ]
    claims = offline.select_claims(
        [far, near], passages, threshold=0.5, question="Why did retrieval fail?"
    )
    assert [c.citations for c in claims] == [[1], [7]]  # passage 1 first, support aside
    # A question asking for a number: the sentence stating one leads.
    figure = sentence("Retrieval failed for 41 of the 1077 records.", 5, 0.58, [0, 0, 1])
    passages.append(Passage(n=5, document="d", text=figure.text, score=1.0))
    claims = offline.select_claims(
        [far, near, figure], passages, threshold=0.5, question="How many retrievals failed?"
    )
    assert claims[0].quote == figure.text
    assert len({c.quote for c in claims}) == len(claims) == 3  # each sentence once
