"""BM25 parameters; the SQL statement that scores chunks with them is
``marginalia.retrieval.repository.SCORE_SQL``.

Scores are exactly Okapi BM25 over chunks, with term statistics kept in Postgres by
migration 0002 (``retrieval_postings``: tf and chunk length per lexeme and chunk;
``retrieval_source_stats``: chunk count and total length per source):

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


DEFAULT_PARAMS = BM25Params()
