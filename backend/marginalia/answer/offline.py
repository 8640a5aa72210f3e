"""The offline engine: an extractive answer from the context's best-supported sentences.

Every sentence of the numbered passages gets a *support* score for the question::

    support = 0.6 · cosine(embed(sentence), embed(question))
            + 0.4 · coverage(sentence, question)

``coverage`` is the idf-weighted share of the question's stemmed content terms (Snowball
English via PostgreSQL's ``to_tsvector``, the lexemes BM25 retrieval uses) that the
sentence contains; idf is computed over the context's sentences, and a question term no
sentence contains keeps the largest idf — so a question about something absent from the
context scores low. The maximum support over the context is the answer's
``evidence_score`` (signal ``max_sentence_support``), whatever engine then answers.

The extractive answer takes sentences whose support clears the calibrated threshold,
diversified by maximal marginal relevance (λ = 0.7, cosine between sentence vectors),
at most :data:`MAX_CLAIMS`; each becomes a claim whose text and quote are the sentence
exactly as written in its passage, cited with that passage's number.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import numpy as np
from sqlalchemy import text

from marginalia.answer.quotes import normalize
from marginalia.answer.schemas import AnswerClaim, Passage
from marginalia.db import Database
from marginalia.embed.base import Embedder
from marginalia.knowledge.text import content_tokens, sentence_spans

COSINE_WEIGHT = 0.6
COVERAGE_WEIGHT = 0.4
MMR_LAMBDA = 0.7
MAX_CLAIMS = 4
#: Sentences outside this range of words are headings, captions or run-on table text.
MIN_SENTENCE_WORDS = 5
MAX_SENTENCE_WORDS = 80
#: A sentence at least this similar to one already chosen repeats it (overlapping chunks).
NEAR_DUPLICATE = 0.92

Lexer = Callable[[Sequence[str]], Awaitable[list[frozenset[str]]]]


def python_lexer() -> Lexer:
    """Lower-cased content words (no stemming): for tests and tools without a database."""

    async def lex(texts: Sequence[str]) -> list[frozenset[str]]:
        return [frozenset(content_tokens(t)) for t in texts]

    return lex


def pg_lexer(db: Database) -> Lexer:
    """Snowball English lexemes from PostgreSQL, one round trip for all texts."""

    async def lex(texts: Sequence[str]) -> list[frozenset[str]]:
        if not texts:
            return []
        async with db.session() as session:
            rows = await session.execute(
                text(
                    """SELECT i, tsvector_to_array(to_tsvector('english', t))
                         FROM unnest(CAST(:texts AS text[])) WITH ORDINALITY AS u(t, i)
                        ORDER BY i"""
                ),
                {"texts": list(texts)},
            )
            return [frozenset(r[1] or ()) for r in rows.all()]

    return lex


@dataclass(frozen=True)
class ScoredSentence:
    passage_n: int
    text: str  # exactly as in the passage
    start: int
    end: int
    cosine: float
    coverage: float
    support: float
    vector: np.ndarray


def _usable(sentence: str) -> bool:
    words = sentence.split()
    if not MIN_SENTENCE_WORDS <= len(words) <= MAX_SENTENCE_WORDS:
        return False
    visible = [c for c in sentence if not c.isspace()]
    letters = sum(c.isalpha() for c in visible)
    return letters >= 0.6 * len(visible)


def candidate_sentences(
    passages: Sequence[Passage], embedder: Embedder | None = None
) -> list[tuple[int, int, int, str]]:
    """``(passage n, start, end, text)`` of each usable sentence, first occurrence only."""
    seen: set[str] = set()
    out: list[tuple[int, int, int, str]] = []
    for passage in passages:
        for start, end in sentence_spans(passage.text):
            sentence = passage.text[start:end]
            key = normalize(sentence)
            if key in seen or not _usable(sentence):
                continue
            if embedder is not None and embedder.count_tokens(sentence) > embedder.max_tokens:
                continue  # never truncated (invariant 1): such a sentence is not scored
            seen.add(key)
            out.append((passage.n, start, end, sentence))
    return out


def _coverage(query_terms: frozenset[str], sentence_terms: Sequence[frozenset[str]]) -> list[float]:
    if not query_terms:
        return [0.0] * len(sentence_terms)
    n = len(sentence_terms)
    idf = {}
    for term in query_terms:
        df = sum(1 for terms in sentence_terms if term in terms)
        idf[term] = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
    total = sum(idf.values())
    if total <= 0:
        return [0.0] * n
    return [sum(idf[t] for t in query_terms & terms) / total for terms in sentence_terms]


async def score_sentences(
    *,
    query: str,
    query_vector: np.ndarray,
    passages: Sequence[Passage],
    embedder: Embedder,
    lexer: Lexer,
) -> list[ScoredSentence]:
    """Every usable sentence of ``passages`` with its support for ``query``, best first."""
    candidates = candidate_sentences(passages, embedder)
    if not candidates:
        return []
    vectors = await embedder.embed_documents([c[3] for c in candidates])
    lexemes = await lexer([query, *(c[3] for c in candidates)])
    coverage = _coverage(lexemes[0], lexemes[1:])
    q = np.asarray(query_vector, dtype=np.float32)
    cosines = np.asarray(vectors, dtype=np.float32) @ q
    scored = [
        ScoredSentence(
            passage_n=n,
            text=sentence,
            start=start,
            end=end,
            cosine=float(cos),
            coverage=cov,
            support=COSINE_WEIGHT * float(cos) + COVERAGE_WEIGHT * cov,
            vector=np.asarray(vec, dtype=np.float32),
        )
        for (n, start, end, sentence), vec, cos, cov in zip(
            candidates, vectors, cosines, coverage, strict=True
        )
    ]
    scored.sort(key=lambda s: (-s.support, s.passage_n, s.start))
    return scored


def evidence_score(scored: Sequence[ScoredSentence]) -> float:
    """The answer's ``evidence_score``: the best sentence support (0.0 with no sentence)."""
    return max((s.support for s in scored), default=0.0)


def select_mmr(
    scored: Sequence[ScoredSentence],
    *,
    threshold: float,
    k: int = MAX_CLAIMS,
    lam: float = MMR_LAMBDA,
) -> list[ScoredSentence]:
    """Up to ``k`` sentences with support ≥ ``threshold``, diversified by MMR."""
    pool = [s for s in scored if s.support >= threshold]
    chosen: list[ScoredSentence] = []
    while pool and len(chosen) < k:
        best: ScoredSentence | None = None
        best_value = -math.inf
        for cand in pool:
            redundancy = max((float(cand.vector @ c.vector) for c in chosen), default=0.0)
            if redundancy >= NEAR_DUPLICATE:
                continue
            value = lam * cand.support - (1.0 - lam) * redundancy
            if value > best_value:
                best, best_value = cand, value
        if best is None:
            break
        chosen.append(best)
        pool.remove(best)
    return chosen


def extractive_claims(selected: Sequence[ScoredSentence]) -> list[AnswerClaim]:
    """One claim per sentence: its text (line-break hyphens and whitespace normalised), its
    passage number, and the sentence exactly as written as the quote."""
    return [
        AnswerClaim(text=normalize(s.text), citations=[s.passage_n], quote=s.text) for s in selected
    ]
