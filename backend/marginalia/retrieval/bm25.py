"""BM25 parameters and the one SQL statement that scores chunks with them.

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

# Parameters: :ws (workspace), :query (text), :src (source or NULL), :k1, :b, :depth.
SCORE_SQL = """
WITH q AS MATERIALIZED (
    SELECT u.lexeme,
           CASE WHEN :query_tf THEN coalesce(array_length(u.positions, 1), 1) ELSE 1 END AS qtf
      FROM unnest(to_tsvector('english', :query)) AS u
),
st AS MATERIALIZED (
    SELECT sum(n_chunks)::float8 AS n,
           sum(total_len)::float8 / nullif(sum(n_chunks), 0)::float8 AS avgdl
      FROM retrieval_source_stats
     WHERE workspace_id = :ws
),
p AS MATERIALIZED (
    SELECT p.lexeme, p.chunk_id, p.source_id, p.tf, p.dl
      FROM retrieval_postings AS p
      JOIN q ON q.lexeme = p.lexeme
     WHERE p.workspace_id = :ws
),
df AS (
    SELECT lexeme, count(*)::float8 AS df FROM p GROUP BY lexeme
)
SELECT p.chunk_id,
       p.source_id,
       sum(
           q.qtf
           * ln(1.0 + (st.n - df.df + 0.5) / (df.df + 0.5))
           * p.tf * (:k1 + 1.0)
           / (p.tf + :k1 * (1.0 - :b + :b * p.dl / nullif(st.avgdl, 0)))
       ) AS score
  FROM p
  JOIN df ON df.lexeme = p.lexeme
  JOIN q ON q.lexeme = p.lexeme
 CROSS JOIN st
 WHERE CAST(:src AS uuid) IS NULL OR p.source_id = CAST(:src AS uuid)
 GROUP BY p.chunk_id, p.source_id
 ORDER BY score DESC, p.chunk_id
 LIMIT :depth
"""
