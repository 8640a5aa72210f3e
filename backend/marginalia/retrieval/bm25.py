"""BM25 parameters; the SQL statement that scores chunks with them is
``marginalia.retrieval.repository.score_sql``.

Scores are exactly Okapi BM25 over chunks, with term statistics kept in Postgres
(migration 0009: ``retrieval_terms`` holds df per lexeme; migration 0015:
``retrieval_blocks`` the postings in blocks per impact bucket, read highest impact first;
``retrieval_source_stats``: chunk count and total length per source). Candidates come from every posting of the rarest query terms (up to
``whole_budget`` in all) and the top ``per_term`` postings of the others by impact
(BM25's tf part at a fixed reference length), the best ``candidates`` of them by summed
idf × impact are scored exactly from ``chunks.tsv``; ``exact=True`` reads every posting
and scores every chunk that holds a query term (for evaluation):

    score(d, q) = Σ_{t ∈ q} idf(t) · tf(t,d) · (k1 + 1) / (tf(t,d) + k1 · (1 − b + b · dl(d) / avgdl))
    idf(t)      = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))

Terms are the lexemes of ``to_tsvector('english', ...)`` — Snowball English stemming and
the English stop-word list, identical for documents (``chunks.tsv``) and queries. N,
df and avgdl are over the whole workspace even when the search is scoped to one source,
so a per-paper search ranks with the same term weights as the workspace. Lengths are
counted in lexeme positions (stop words excluded, as a Lucene analyzer would).
"""

from __future__ import annotations

from dataclasses import dataclass

#: BM25 term-frequency saturation (Anserini/Pyserini's BEIR setting).
K1 = 0.9
#: BM25 length normalisation.
B = 0.4


@dataclass(frozen=True)
class BM25Params:
    k1: float = K1
    b: float = B
    # Count a term repeated in the query once per occurrence (Lucene's bag-of-words
    # query); False counts each distinct query term once.
    query_tf: bool = False
    # Pruning (docs/decisions/0010-impact-ordered-postings.md): postings read per query
    # term, highest impact first, and how many candidates are scored exactly.
    per_term: int = 1000
    candidates: int = 300
    # The rarest query terms are read whole while their postings total at most this
    # (a chunk holding the most selective term is never missed for lack of impact).
    whole_budget: int = 20000
    # Read every posting and score every matching chunk (no pruning).
    exact: bool = False


DEFAULT_PARAMS = BM25Params()
EXACT_PARAMS = BM25Params(exact=True)
