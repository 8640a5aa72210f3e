"""The offline engine: an extractive answer from the context's best-supported sentences.

Every sentence of the numbered passages gets a *support* score for the question::

    support = 0.6 · cosine(embed(sentence), embed(question))
            + 0.1 · coverage(sentence, question)
            + 0.1 · coverage(sentence and its neighbours, question)
            + 0.2 · coverage(the whole context, question)

``coverage`` is the idf-weighted share of the question's stemmed content terms (Snowball
English via PostgreSQL's ``to_tsvector``, the lexemes BM25 retrieval uses) that the text
contains. The idf is the workspace's BM25 idf (:func:`pg_workspace_idf`: the same
``ln(1 + (N − df + 0.5) / (df + 0.5))`` over the workspace's chunks that lexical
retrieval ranks with), so words common in the workspace ("many", "paper", "use") weigh
little and the question's specific terms weigh most; a term the workspace never contains
gets the largest idf — a question about something absent from the sources scores low.
Without workspace statistics (tests, tools without a database) the idf is computed over
the context's sentences instead. The *neighbours* are the scored sentences just before
and after the sentence in the same passage: a question whose specific terms are spread
over two adjacent sentences (a subject named in one, the figure in the next) is still
covered, while a sentence whose surroundings miss the question's key term is not. The
*context* is every numbered passage together: a question whose specific term (a disease,
a species, a dataset) appears in none of the retrieved passages asks about something the
evidence does not mention, however well one sentence matches the rest of it; a question
that restates its setting ("the codeML part of the large ENSEMBL analysis") finds those
words elsewhere in the passages even when the answering sentence does not repeat them.
The context term is the same for every sentence of one question, so it moves the
evidence score but never the order of the sentences.

The maximum support over the context is the answer's ``evidence_score`` (signal
:data:`marginalia.answer.calibration.SIGNAL`), whatever engine then answers.

The extractive answer takes sentences whose support clears the calibrated threshold,
diversified by maximal marginal relevance (λ = 0.7, cosine between sentence vectors),
at most :data:`MAX_CLAIMS`; each becomes a claim whose text and quote are the sentence
exactly as written in its passage, cited with that passage's number. Among those
sentences, a question asking for a quantity ("how many", "what rate", …; see
:func:`asks_quantity`) ranks sentences stating a number :data:`ANSWER_TYPE_BONUS` higher
(the expected answer type); the bonus orders the claims only — it never changes the
support, the evidence score or which sentences clear the threshold.

Only prose is scored (:mod:`marginalia.answer.prose`: no running headers, affiliations,
equations, reference entries or licence text). :func:`select_claims` is what answers use:
for a question with an expected answer type (:mod:`marginalia.answer.answer_types`:
a number for "how many", a named thing for "which", a date for "when") the first claim is
the best sentence offering that type within :data:`TYPE_MARGIN` of the best claim rank
(:func:`claim_rank`: the support, plus :data:`CLAIM_TYPE_BONUS` for the expected type,
plus :data:`PASSAGE_PRIOR` / n for a sentence of passage n — it orders the claims only);
when none does, the best sentence is quoted together with an adjacent sentence of its
passage that offers it (the answer spans two sentences), and a sentence that opens with
a reference to the one before ("This", "These", "It", …) is quoted with that one.
Section headings the layout glued above a sentence are not quoted
(:mod:`marginalia.answer.claim_quotes`).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from marginalia.answer import answer_types, sentences
from marginalia.answer import repository as repo
from marginalia.answer.claim_quotes import Quote, quote_for
from marginalia.answer.prose import MAX_WORDS, MIN_WORDS
from marginalia.answer.quotes import normalize
from marginalia.answer.schemas import AnswerClaim, Passage
from marginalia.db import Database
from marginalia.db.repositories import sentences as sentences_repo
from marginalia.db.repositories.sentences import ChunkSentences, SentenceRow
from marginalia.embed.base import Embedder
from marginalia.knowledge.text import content_tokens

COSINE_WEIGHT = 0.6
#: Coverage of the sentence itself, of the sentence with its neighbours, and of the
#: whole numbered context (docs/EVAL.md: how these were chosen).
COVERAGE_WEIGHT = 0.1
WINDOW_COVERAGE_WEIGHT = 0.1
CONTEXT_COVERAGE_WEIGHT = 0.2
MMR_LAMBDA = 0.7
MAX_CLAIMS = 3
#: Added to the ranking value (not the support) of a sentence stating a number when the
#: question asks for a quantity.
ANSWER_TYPE_BONUS = 0.05
#: Sentences outside this range of words are headings, captions or run-on table text.
MIN_SENTENCE_WORDS = MIN_WORDS
MAX_SENTENCE_WORDS = MAX_WORDS
#: With the learned gate, the extractive answer quotes sentences whose support is at most
#: this far below the best sentence's.
CLAIM_BAND = 0.1
#: A sentence offering the expected answer type leads when its support is at most this
#: far below the best sentence's.
TYPE_MARGIN = 0.15
#: A sentence at least this similar to one already chosen repeats it (overlapping chunks).
NEAR_DUPLICATE = 0.92
#: How :func:`select_claims` orders the sentences it may quote (never the support or the
#: evidence score): support, plus :data:`CLAIM_TYPE_BONUS` when the sentence offers the
#: expected answer type, plus :data:`PASSAGE_PRIOR` / n for a sentence of passage n — the
#: retrieval's fused rank of the passage carries what the sentence's own score misses
#: (BM25 over the whole chunk, its neighbours' words). Fitted on the dev set (docs/EVAL.md).
CLAIM_TYPE_BONUS = 0.15
PASSAGE_PRIOR = 0.2

Lexer = Callable[[Sequence[str]], Awaitable[list[frozenset[str]]]]
#: Term → idf for the given lexemes, or None when there are no statistics to use.
IdfLookup = Callable[[frozenset[str]], Awaitable[dict[str, float] | None]]


def asks_quantity(question: str) -> bool:
    """Does ``question`` ask for a quantity ("how many", "what rate", "by how much", …)?"""
    return answer_types.expected_type(question) == "quantity"


def states_quantity(sentence: str) -> bool:
    """Does ``sentence`` state a number other than a year or a table/figure reference?"""
    return answer_types.states_quantity(sentence)


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
            return await repo.lexemes(session, texts)

    return lex


def bm25_idf(n: float, df: float) -> float:
    """BM25's idf, as :mod:`marginalia.retrieval.bm25` ranks with it."""
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def pg_workspace_idf(db: Database, workspace_id: object) -> IdfLookup:
    """The workspace's BM25 idf of each lexeme, from the retrieval statistics (chunks
    counted in ``retrieval_source_stats``, document frequencies in
    ``retrieval_postings``); None when the workspace has no chunks."""

    async def lookup(terms: frozenset[str]) -> dict[str, float] | None:
        if not terms:
            return {}
        async with db.session() as session:
            n = await repo.workspace_chunk_count(session, workspace_id)
            if not n:
                return None
            df = await repo.document_frequencies(session, workspace_id, sorted(terms))
        return {t: bm25_idf(float(n), df.get(t, 0.0)) for t in terms}

    return lookup


@dataclass(frozen=True)
class QuestionStats:
    """The question's stemmed terms with their workspace idf, and whether one of its
    salient terms (see :func:`marginalia.answer.gate.salient_terms`) occurs in no chunk."""

    idf: dict[str, float]
    salient_absent: bool


def question_stats(
    question_terms: frozenset[str], named: Sequence[frozenset[str]], stats: repo.TermStats
) -> QuestionStats:
    """:class:`QuestionStats` from the lexemes of the question and of its salient terms
    (``named``), with ``stats`` covering all of them."""
    wanted = question_terms | frozenset().union(*named)
    if not wanted:
        return QuestionStats({}, False)
    # A named term whose word part ("zorblax" of "ZORBLAX-9") no chunk contains.
    absent = any(
        stats.df.get(t, 0.0) <= 0 for lex in named for t in lex if sum(c.isalpha() for c in t) >= 3
    )
    idf = {t: bm25_idf(float(stats.chunks), stats.df.get(t, 0.0)) for t in question_terms}
    return QuestionStats(idf, absent)


def pg_question_stats(
    db: Database, workspace_id: object
) -> Callable[[str, Sequence[str]], Awaitable[QuestionStats]]:
    """:class:`QuestionStats` from the workspace's retrieval statistics (one query)."""

    async def stats(question: str, salient: Sequence[str]) -> QuestionStats:
        async with db.session() as session:
            found = await repo.term_stats(session, workspace_id, [question, *salient])
        return question_stats(found.lexemes[0], found.lexemes[1:], found)

    return stats


@dataclass(frozen=True)
class AnswerInputs:
    """What scoring an answer reads from the database, in one session and two statements:
    the lexemes and workspace statistics of the query, the question and its salient terms,
    and the stored sentences of the passages' chunks."""

    texts: list[str]
    stats: repo.TermStats
    stored: dict[int, ChunkSentences]

    def lexer(self, fallback: Lexer) -> Lexer:
        """Lexemes of the texts already looked up, the others from ``fallback``."""
        known = dict(zip(self.texts, self.stats.lexemes, strict=True))

        async def lex(texts: Sequence[str]) -> list[frozenset[str]]:
            unknown = list(dict.fromkeys(t for t in texts if t not in known))
            if unknown:
                known.update(zip(unknown, await fallback(unknown), strict=True))
            return [known[t] for t in texts]

        return lex

    def idf(self) -> IdfLookup:
        """The workspace's BM25 idf of the looked-up texts' lexemes (as
        :func:`pg_workspace_idf`)."""

        async def lookup(terms: frozenset[str]) -> dict[str, float] | None:
            if not terms:
                return {}
            if not self.stats.chunks:
                return None
            n = float(self.stats.chunks)
            return {t: bm25_idf(n, self.stats.df.get(t, 0.0)) for t in terms}

        return lookup


async def pg_answer_inputs(
    db: Database,
    workspace_id: object,
    *,
    query: str,
    question: str,
    salient: Sequence[str],
    chunk_ids: Sequence[int],
) -> AnswerInputs:
    """:class:`AnswerInputs` (texts: the query, the question, then the salient terms)."""
    texts = [query, question, *salient]
    async with db.session() as session:
        stats = await repo.term_stats(session, workspace_id, texts)
        stored = await sentences_repo.load(session, chunk_ids)
    return AnswerInputs(texts, stats, stored)


@dataclass(frozen=True)
class ScoredSentence:
    passage_n: int
    text: str  # exactly as in the passage
    start: int
    end: int
    cosine: float
    coverage: float
    window_coverage: float
    #: Coverage of the question by all passages of the context (same for every sentence).
    context_coverage: float
    support: float
    vector: np.ndarray
    #: The sentence offers the question's expected answer type (ranks claims only).
    answer_type: bool = False


def candidate_sentences(
    passages: Sequence[Passage], embedder: Embedder | None = None
) -> list[tuple[int, int, int, str]]:
    """``(passage n, start, end, text)`` of each usable sentence, first occurrence only
    (:mod:`marginalia.answer.sentences`: a sentence over the window is not scored)."""
    return sentences.select_candidates(
        passages, {p.n: sentences.split(p.text, embedder) for p in passages}
    )


def context_idf(
    query_terms: frozenset[str], sentence_terms: Sequence[frozenset[str]]
) -> dict[str, float]:
    """BM25-style idf of each query term over the context's sentences (the fallback when
    there are no workspace statistics)."""
    n = len(sentence_terms)
    return {t: bm25_idf(n, sum(1 for terms in sentence_terms if t in terms)) for t in query_terms}


def _coverage(
    query_terms: frozenset[str], idf: dict[str, float], terms: Sequence[frozenset[str]]
) -> list[float]:
    total = sum(idf.get(t, 0.0) for t in query_terms)
    if not query_terms or total <= 0:
        return [0.0] * len(terms)
    return [sum(idf.get(t, 0.0) for t in query_terms & ts) / total for ts in terms]


def _windows(
    candidates: Sequence[tuple[int, int, int, str]], terms: Sequence[frozenset[str]]
) -> list[frozenset[str]]:
    """Each sentence's terms with those of its neighbouring candidates in the same passage."""
    out = []
    for i, (n, *_rest) in enumerate(candidates):
        window = set(terms[i])
        for j in (i - 1, i + 1):
            if 0 <= j < len(candidates) and candidates[j][0] == n:
                window |= terms[j]
        out.append(frozenset(window))
    return out


@dataclass
class _Inputs:
    """What scoring needs beyond the question: the candidates, the vectors and lexemes
    already stored for them (by candidate index), and the passages' stored lexemes."""

    candidates: list[sentences.Candidate]
    vectors: dict[int, np.ndarray]
    lexemes: dict[int, frozenset[str]]
    passage_lexemes: dict[int, frozenset[str]]


def _inputs(
    passages: Sequence[Passage],
    embedder: Embedder,
    stored: Mapping[int, ChunkSentences],
) -> _Inputs:
    """The candidates of ``passages``, from the stored sentences of their chunks where
    there are some, else split now."""
    spans: dict[int, list[sentences.SentenceSpan]] = {}
    by_span: dict[tuple[int, int], SentenceRow] = {}
    passage_lexemes: dict[int, frozenset[str]] = {}
    for p in passages:
        chunk = stored.get(p.chunk_id) if p.chunk_id is not None else None
        if chunk is None:
            spans[p.n] = sentences.split(p.text, embedder)
            continue
        spans[p.n] = sentences.spans_of(chunk)
        passage_lexemes[p.n] = chunk.chunk_lexemes
        for row in chunk.rows:
            by_span[(p.n, row.char_start)] = row
    candidates = sentences.select_candidates(passages, spans)
    vectors: dict[int, np.ndarray] = {}
    lexemes: dict[int, frozenset[str]] = {}
    for i, (n, start, _end, _text) in enumerate(candidates):
        found = by_span.get((n, start))
        if found is not None and found.embedding is not None:
            vectors[i] = found.embedding
            if found.lexemes is not None:
                lexemes[i] = found.lexemes
    return _Inputs(candidates, vectors, lexemes, passage_lexemes)


async def score_sentences(
    *,
    query: str,
    query_vector: np.ndarray,
    passages: Sequence[Passage],
    embedder: Embedder,
    lexer: Lexer,
    idf: IdfLookup | None = None,
    question: str | None = None,
    stored: Mapping[int, ChunkSentences] | None = None,
) -> list[ScoredSentence]:
    """Every usable sentence of ``passages`` with its support for ``query``, best first.

    ``idf``: the workspace's term statistics (:func:`pg_workspace_idf`); None, or a
    lookup that returns None, uses the context's sentences. ``question``: the text whose
    expected answer type marks sentences (defaults to ``query``). ``stored``: the stored
    sentences of the passages' chunks by chunk id (:func:`pg_answer_inputs`): their vectors
    and lexemes are used as they are; what is missing is computed (same values)."""
    # Splitting (when nothing is stored) and reading the stored rows: off the event loop.
    inputs = await asyncio.to_thread(_inputs, passages, embedder, stored or {})
    candidates = inputs.candidates
    if not candidates:
        return []
    known = inputs.vectors
    missing = [i for i in range(len(candidates)) if i not in known]
    if missing:
        fresh = await embedder.embed_documents([candidates[i][3] for i in missing])
        known = {**known, **dict(zip(missing, fresh, strict=True))}
    vectors = [known[i] for i in range(len(candidates))]
    unlexed = [i for i in range(len(candidates)) if i not in inputs.lexemes]
    bare = [p for p in passages if p.n not in inputs.passage_lexemes]
    lexed = await lexer([query, *(candidates[i][3] for i in unlexed), *(p.text for p in bare)])
    query_terms = lexed[0]
    by_index = {**inputs.lexemes, **dict(zip(unlexed, lexed[1 : 1 + len(unlexed)], strict=True))}
    sentence_terms = [by_index[i] for i in range(len(candidates))]
    context_terms = frozenset().union(*inputs.passage_lexemes.values(), *lexed[1 + len(unlexed) :])
    weights = await idf(query_terms) if idf is not None else None
    if weights is None:
        weights = context_idf(query_terms, sentence_terms)
    asked = question if question is not None else query
    return await asyncio.to_thread(
        _scored,
        candidates,
        vectors,
        sentence_terms,
        query_terms,
        context_terms,
        weights,
        query_vector,
        asked,
    )


def _scored(
    candidates: Sequence[sentences.Candidate],
    vectors: Sequence[np.ndarray],
    sentence_terms: Sequence[frozenset[str]],
    query_terms: frozenset[str],
    context_terms: frozenset[str],
    weights: dict[str, float],
    query_vector: np.ndarray,
    asked: str,
) -> list[ScoredSentence]:
    """The support of each candidate (the module doc's formula), best first."""
    coverage = _coverage(query_terms, weights, sentence_terms)
    window = _coverage(query_terms, weights, _windows(candidates, sentence_terms))
    (in_context,) = _coverage(query_terms, weights, [context_terms])
    kind = answer_types.expected_type(asked)
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
            window_coverage=win,
            context_coverage=in_context,
            support=COSINE_WEIGHT * float(cos)
            + COVERAGE_WEIGHT * cov
            + WINDOW_COVERAGE_WEIGHT * win
            + CONTEXT_COVERAGE_WEIGHT * in_context,
            vector=np.asarray(vec, dtype=np.float32),
            answer_type=answer_types.offers(kind, sentence, asked),
        )
        for (n, start, end, sentence), vec, cos, cov, win in zip(
            candidates, vectors, cosines, coverage, window, strict=True
        )
    ]
    scored.sort(key=lambda s: (-s.support, s.passage_n, s.start))
    return scored


def evidence_score(scored: Sequence[ScoredSentence]) -> float:
    """The answer's ``evidence_score``: the best sentence support (0.0 with no sentence)."""
    return max((s.support for s in scored), default=0.0)


def claim_rank(s: ScoredSentence) -> float:
    """The value :func:`select_claims` orders a sentence by (see :data:`PASSAGE_PRIOR`)."""
    return (
        s.support
        + (CLAIM_TYPE_BONUS if s.answer_type else 0.0)
        + PASSAGE_PRIOR / max(s.passage_n, 1)
    )


def select_mmr(
    scored: Sequence[ScoredSentence],
    *,
    threshold: float,
    k: int = MAX_CLAIMS,
    lam: float = MMR_LAMBDA,
    rank: Callable[[ScoredSentence], float] | None = None,
) -> list[ScoredSentence]:
    """Up to ``k`` sentences with support ≥ ``threshold``, diversified by MMR; relevance is
    ``rank`` (default: the support, :data:`ANSWER_TYPE_BONUS` higher for a sentence of the
    expected answer type)."""
    pool = [s for s in scored if s.support >= threshold]
    chosen: list[ScoredSentence] = []
    while pool and len(chosen) < k:
        best: ScoredSentence | None = None
        best_value = -math.inf
        for cand in pool:
            redundancy = max((float(cand.vector @ c.vector) for c in chosen), default=0.0)
            if redundancy >= NEAR_DUPLICATE:
                continue
            relevance = (
                rank(cand)
                if rank is not None
                else cand.support + (ANSWER_TYPE_BONUS if cand.answer_type else 0.0)
            )
            value = lam * relevance - (1.0 - lam) * redundancy
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


def select_claims(
    scored: Sequence[ScoredSentence],
    passages: Sequence[Passage],
    *,
    threshold: float,
    question: str,
    k: int = MAX_CLAIMS,
) -> list[AnswerClaim]:
    """The extractive answer: up to ``k`` claims from sentences with support ≥
    ``threshold`` — the expected answer type first, MMR after, a neighbour quoted with a
    sentence when the answer spans both; each claim's text is its quote, once."""
    pool = sorted(
        (s for s in scored if s.support >= threshold),
        key=lambda s: (-claim_rank(s), s.passage_n, s.start),
    )
    if not pool:
        return []
    want_type = answer_types.expected_type(question) != "none"
    top = claim_rank(pool[0])
    first = next(
        (s for s in pool if want_type and s.answer_type and claim_rank(s) >= top - TYPE_MARGIN),
        None,
    )
    rest = [s for s in pool if s is not first]
    chosen = ([first] if first is not None else []) + select_mmr(
        rest, threshold=threshold, k=k - (first is not None), rank=claim_rank
    )
    texts = {p.n: p.text for p in passages}
    quotes: list[Quote] = []
    for s in chosen:
        q = quote_for(s, scored, texts, want_type=want_type and not quotes)
        if any(q.passage_n == o.passage_n and q.start < o.end and o.start < q.end for o in quotes):
            continue  # overlaps a quote already chosen
        quotes.append(q)
    return [
        AnswerClaim(text=normalize(q.text), citations=[q.passage_n], quote=q.text) for q in quotes
    ]
