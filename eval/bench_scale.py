"""Retrieval at scale: build a workspace of N chunks and time each leg (issue 19.6).

    uv run python eval/bench_scale.py --chunks 100000 --json

Passages (~180 words) are real sentences of SciFact abstracts, shuffled into new
passages, so the lexical leg sees real term statistics. Chunk vectors are *synthetic*
(embedding N passages takes hours on this CPU), in one of two kinds (``--vectors``):

* ``clusters`` (the default, and every run before 4 Dec 2026): each source has a random
  unit centroid and its chunks are the centroid plus Gaussian noise (normalised). Random
  directions in 384 dimensions are all about orthogonal, so past a probe's own ten chunks
  its neighbours are near-ties a hair apart in cosine: an adversarial set for HNSW.
* ``anchored``: real embeddings of the SciFact and ACL 2020 abstracts' sentences (about
  58k, embedded once with the product's embedder and cached in ``--home-root``), a source
  taking ten consecutive sentences (mostly one abstract) and each chunk its sentence's
  vector plus the same Gaussian noise — so the space has the topical structure of real
  text; the vector-leg probes are then the real embedded SciFact queries.

Rows go in through the product's bulk insert (`insert_sources`), so the BM25 postings
trigger and the HNSW index do their real work. Queries: the first ``--queries`` SciFact
queries for the lexical leg and the hybrid search (which embeds the query with the real
model); for the vector leg, perturbed copies of random chunk vectors (``clusters``) or the
same queries embedded (``anchored``), checked against exact top-100 search done in NumPy (``hnsw_recall``; one figure per
``--ef-search`` value, by default the settings' ``retrieval.hnsw_ef_search``, the first
reported at the top level). All latencies are in milliseconds, warm (one untimed pass
first).

Posting blocks (migration 0015) are appended by every insert statement and merged by the
knowledge refresh in the background; the build calls the same compaction
(``compact_postings``) every ``--compact-every`` chunks and once at the end, and its time
is part of the ingest rate (``compaction_s`` says how much). ``lexical_index_mb`` is the
index as it then stands (dead row versions included, as a live database has them),
``lexical_index_mb_vacuumed`` after ``VACUUM FULL`` of its tables. On a schema before 0015
(one row per posting, ``retrieval_impacts``) nothing is compacted and the same sizes are
reported, so two versions can be compared with this one script.

``--bulk-load`` builds the workspace the way a restore does, for sizes (1M chunks) whose
incremental build takes hours on this machine: the chunks go in through the same bulk
insert with the postings triggers and the chunks' HNSW index off, then the product's
repair function (``rebuild_term_stats``) packs every posting into full blocks and the HNSW
index is created over the loaded vectors (``CREATE INDEX``, the migration's definition).
The queries then run against the same tables, functions and indexes as after an
incremental build and its compaction. ``ingest_rows_per_s`` is then the load alone and
``bulk_load`` says where the time went; it is *not* the product's incremental ingest rate.

``lexical_ndcg_vs_exact`` compares the pruned leg (impact-ordered postings, migrations
0009 and 0015) with exact BM25 (``EXACT_PARAMS``) on the same workspace: nDCG@10 of the pruned
ranking with the exact top 10 as graded relevance (gain = exact score), mean over the
queries; ``lexical_exact`` has the exact leg's latencies. SciFact nDCG@10 against qrels:
``marginalia eval retrieval --beir ../shared/data/scifact`` (with and without
``MARGINALIA_RETRIEVAL__LEXICAL_EXACT=true``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np
import psycopg

ROOT = Path(__file__).resolve().parents[1]
SCIFACT = ROOT.parent / "shared" / "data" / "scifact"
ACL = ROOT.parent / "shared" / "data" / "catalog" / "acl2020" / "papers.jsonl"
CHUNKS_PER_SOURCE = 10
SOURCES_PER_BATCH = 200
WORDS_PER_PASSAGE = 180
#: Per-dimension noise around a source's centroid (norm ≈ 0.5 at 384 dimensions).
NOISE = 0.025


def sentences(corpus: Path) -> list[str]:
    out: list[str] = []
    with (corpus / "corpus.jsonl").open() as handle:
        for line in handle:
            text = json.loads(line)["text"]
            out.extend(s.strip() + "." for s in text.split(". ") if len(s.split()) >= 5)
    return out


def anchor_sentences() -> list[str]:
    """The ``anchored`` vectors' sentences, in corpus order (a source's consecutive
    sentences mostly share an abstract)."""
    out = list(sentences(SCIFACT))
    with ACL.open() as handle:
        for line in handle:
            abstract = json.loads(line).get("abstract") or ""
            out.extend(s.strip() + "." for s in abstract.split(". ") if len(s.split()) >= 5)
    return out


async def anchor_vectors(rt: Any, cache_dir: Path) -> np.ndarray:
    """Real embeddings of :func:`anchor_sentences` (those within the model's window),
    cached per model and count: embedding them takes minutes on 2 cores."""
    embedder = rt.embedder
    texts = [t for t in anchor_sentences() if embedder.count_tokens(t) <= embedder.max_tokens]
    name = f"anchors-{embedder.model_id.replace('/', '_').replace('@', '_')}-{len(texts)}.npy"
    path = cache_dir / name
    if path.exists():
        return np.load(path)
    out = np.empty((len(texts), embedder.dim), dtype=np.float32)
    for start in range(0, len(texts), 2048):
        batch = texts[start : start + 2048]
        out[start : start + len(batch)] = await embedder.embed_documents(batch)
        print(f"  embedded {start + len(batch)}/{len(texts)} anchors", file=sys.stderr, end="\r")
    np.save(path, out)
    return out


def passage(pool: list[str], rng: random.Random) -> str:
    words: list[str] = []
    while len(words) < WORDS_PER_PASSAGE:
        words.extend(rng.choice(pool).split())
    return " ".join(words)


def percentiles(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "p50": round(statistics.median(ordered), 2),
        "p95": round(p95, 2),
        "max": round(ordered[-1], 2),
    }


async def timed(calls: list[Any]) -> list[float]:
    """Milliseconds per call, warm: one untimed pass over the calls first."""
    for call in calls:
        await call()
    out = []
    for call in calls:
        t = time.perf_counter()
        await call()
        out.append((time.perf_counter() - t) * 1000)
    return out


def source_vectors(
    nprng: np.random.Generator, n: int, dim: int, anchors: np.ndarray | None
) -> np.ndarray:
    """One source's ``n`` chunk vectors (see the module docstring for the two kinds)."""
    if anchors is None:
        centroid = nprng.normal(size=dim)
        centre = centroid / np.linalg.norm(centroid)
    else:
        centre = anchors[(nprng.integers(len(anchors)) + np.arange(n)) % len(anchors)]
    noisy = centre + nprng.normal(scale=NOISE, size=(n, dim))
    return noisy / np.linalg.norm(noisy, axis=1, keepdims=True)


def replay_vectors(chunks: int, dim: int, seed: int, anchors: np.ndarray | None) -> np.ndarray:
    """The vectors :func:`build` made for ``chunks`` with ``seed``, in insertion order
    (for re-measuring a kept home without rebuilding it)."""
    nprng = np.random.default_rng(seed)
    out = np.empty((chunks, dim), dtype=np.float32)
    made = 0
    while made < chunks:
        n = min(CHUNKS_PER_SOURCE, chunks - made)
        out[made : made + n] = source_vectors(nprng, n, dim, anchors)
        made += n
    return out


def mean_ci95(values: list[float], seed: int = 17, resamples: int = 2000) -> list[float]:
    """95% percentile interval of the mean over ``resamples`` bootstrap resamples."""
    rng = np.random.default_rng(seed)
    data = np.asarray(values)
    means = data[rng.integers(len(data), size=(resamples, len(data)))].mean(axis=1)
    return [round(float(np.percentile(means, 2.5)), 4), round(float(np.percentile(means, 97.5)), 4)]


async def kept_workspace(rt: Any) -> uuid.UUID:
    """The workspace a kept bench_scale home holds (for the scripts that re-measure it)."""
    from sqlalchemy import text

    async with rt.db.session() as session:
        ws = await session.scalar(
            text("SELECT id FROM workspaces WHERE description = 'bench_scale' LIMIT 1")
        )
    if ws is None:
        raise SystemExit("no bench_scale workspace in this home")
    return uuid.UUID(str(ws))


async def vector_recall(
    rt: Any, ws: uuid.UUID, vectors: np.ndarray, probes: np.ndarray, efs: list[int]
) -> dict[int, dict[str, Any]]:
    """Per ``ef_search``: the vector leg's latency (warm) and its recall@100 and @10
    against exact search over ``vectors`` in NumPy. Recall@10 because with the clustered
    vectors only a probe's own source (10 chunks) is truly near it; ranks 11-100 are
    unrelated chunks a hair apart."""
    from marginalia.retrieval.legs import vector_leg

    ids_of = await _chunk_order(rt, ws)
    ranked = [np.argsort(-(vectors @ probe))[:100].tolist() for probe in probes]
    exact = [set(r) for r in ranked]
    by_ef: dict[int, dict[str, Any]] = {}
    for ef in efs:
        recalls: list[float] = []
        recalls10: list[float] = []

        async def vector_call(
            i: int, ef: int = ef, recalls: list[float] = recalls, r10: list[float] = recalls10
        ) -> None:
            hits = await vector_leg(
                rt.db, workspace_id=ws, query_vector=probes[i], depth=100, ef_search=ef
            )
            order = [ids_of[h.chunk_id] for h in sorted(hits.hits, key=lambda h: -h.score)]
            recalls.append(len(set(order) & exact[i]) / 100)
            r10.append(len(set(order[:10]) & set(ranked[i][:10])) / 10)

        vector = await timed([(lambda i=i: vector_call(i)) for i in range(len(probes))])
        timed_recalls, timed_recalls10 = recalls[len(probes) :], recalls10[len(probes) :]
        by_ef[ef] = {
            "vector": percentiles(vector),
            "hnsw_recall": round(float(np.mean(timed_recalls)), 4),
            "hnsw_recall_ci95": mean_ci95(timed_recalls),
            "hnsw_recall_worst": round(float(np.min(timed_recalls)), 4),
            "hnsw_recall_at_10": round(float(np.mean(timed_recalls10)), 4),
            "hnsw_recall_at_10_worst": round(float(np.min(timed_recalls10)), 4),
        }
    return by_ef


async def postings_table(rt: Any) -> str:
    """``retrieval_blocks`` (0015 and later) or ``retrieval_impacts`` (0009-0014)."""
    from sqlalchemy import text

    async with rt.db.session() as session:
        blocks = await session.scalar(text("SELECT to_regclass('retrieval_blocks') IS NOT NULL"))
    return "retrieval_blocks" if blocks else "retrieval_impacts"


async def compact(rt: Any, ws: uuid.UUID) -> float:
    """Seconds spent merging the workspace's posting blocks (0 before migration 0015)."""
    if await postings_table(rt) != "retrieval_blocks":
        return 0.0
    from marginalia.db.repositories.lexical_index import compact_postings

    t = time.perf_counter()
    async with rt.db.transaction() as session:
        await compact_postings(session, ws)
    return time.perf_counter() - t


VECTOR_INDEX = "ix_chunks_embedding_hnsw"
VECTOR_KINDS = {
    "clusters": "synthetic: per-source random centroid + N(0, 0.025) noise per dimension, normalised",
    "anchored": "real sentence embeddings (SciFact + ACL 2020 abstracts), ten consecutive per "
    "source, + N(0, 0.025) noise per dimension, normalised; probes: the embedded queries",
}


async def _bulk_begin(rt: Any) -> tuple[list[str], str]:
    """Switch off the chunks' postings triggers and drop their HNSW index; returns the
    triggers and the index definition for :func:`_bulk_end`."""
    from sqlalchemy import text

    async with rt.db.transaction() as session:
        triggers = list(
            (
                await session.execute(
                    text(
                        "SELECT tgname FROM pg_trigger "
                        "WHERE tgrelid = 'chunks'::regclass AND NOT tgisinternal"
                    )
                )
            ).scalars()
        )
        definition = await session.scalar(
            text("SELECT pg_get_indexdef(to_regclass(:i))"), {"i": VECTOR_INDEX}
        )
        for trigger in triggers:
            await session.execute(text(f'ALTER TABLE chunks DISABLE TRIGGER "{trigger}"'))
        await session.execute(text(f"DROP INDEX {VECTOR_INDEX}"))
    return triggers, str(definition)


async def _bulk_end(
    rt: Any, ws: uuid.UUID, triggers: list[str], definition: str
) -> dict[str, float]:
    """Pack the postings with the repair function, switch the triggers back on and create
    the HNSW index; seconds per step."""
    from sqlalchemy import text

    from marginalia.db.repositories.lexical_index import rebuild_term_stats

    out: dict[str, float] = {}
    t = time.perf_counter()
    async with rt.db.transaction() as session:
        await session.execute(text("SET LOCAL work_mem = '512MB'"))
        await rebuild_term_stats(session, ws)
        for trigger in triggers:
            await session.execute(text(f'ALTER TABLE chunks ENABLE TRIGGER "{trigger}"'))
    out["postings_s"] = round(time.perf_counter() - t, 1)
    t = time.perf_counter()
    with psycopg.connect(rt.db.location.url, autocommit=True) as conn:
        conn.execute("SET maintenance_work_mem = '6GB'")
        conn.execute(f"SET max_parallel_maintenance_workers = {max(0, (os.cpu_count() or 1) - 1)}")
        conn.execute(definition)
    out["vector_index_s"] = round(time.perf_counter() - t, 1)
    return out


async def build(
    rt: Any,
    chunks: int,
    dim: int,
    seed: int,
    compact_every: int,
    bulk: bool = False,
    anchors: np.ndarray | None = None,
) -> tuple[uuid.UUID, np.ndarray, float, float, dict[str, float]]:
    from marginalia.db.repositories import workspaces as workspaces_repo
    from marginalia.db.repositories.sources import NewChunk, NewSource, insert_sources

    rng, nprng = random.Random(seed), np.random.default_rng(seed)
    pool = sentences(SCIFACT)
    async with rt.db.transaction() as session:
        workspace = await workspaces_repo.create(
            session, name=f"scale-{chunks}", description="bench_scale"
        )
    vectors = np.empty((chunks, dim), dtype=np.float32)
    made, compacted_at, compaction_s = 0, 0, 0.0
    bulk_state = await _bulk_begin(rt) if bulk else None
    t0 = time.perf_counter()
    while made < chunks:
        batch: list[NewSource] = []
        for _ in range(SOURCES_PER_BATCH):
            if made >= chunks:
                break
            n = min(CHUNKS_PER_SOURCE, chunks - made)
            noisy = source_vectors(nprng, n, dim, anchors)
            vectors[made : made + n] = noisy
            texts = [passage(pool, rng) for _ in range(n)]
            batch.append(
                NewSource(
                    fields={
                        "kind": "text",
                        "origin": "bench",
                        "title": texts[0][:80],
                        "content_hash": uuid.uuid4().hex,
                        "page_count": 1,
                    },
                    pages=[],
                    chunks=[
                        NewChunk(i, t, "body", None, None, None, None, None, 230, noisy[i])
                        for i, t in enumerate(texts)
                    ],
                )
            )
            made += n
        async with rt.db.transaction() as session:
            await insert_sources(session, workspace_id=workspace.id, sources=batch)
        if bulk_state is None and (made - compacted_at >= compact_every or made >= chunks):
            compaction_s += await compact(rt, workspace.id)
            compacted_at = made
        print(f"  {made}/{chunks} chunks", file=sys.stderr, end="\r")
    load_s = time.perf_counter() - t0
    if bulk_state is None:
        return workspace.id, vectors, load_s, compaction_s, {}
    steps = {"load_s": round(load_s, 1), **await _bulk_end(rt, workspace.id, *bulk_state)}
    print(f"  bulk load {steps}", file=sys.stderr)
    return workspace.id, vectors, load_s, compaction_s, steps


async def measure(args: argparse.Namespace, chunks: int) -> dict[str, Any]:
    from sqlalchemy import text

    from marginalia.config import Settings
    from marginalia.retrieval.beir import load_queries
    from marginalia.retrieval.bm25 import EXACT_PARAMS
    from marginalia.retrieval.hybrid import hybrid_search
    from marginalia.retrieval.legs import lexical_leg
    from marginalia.runtime import open_runtime

    home = Path(tempfile.mkdtemp(prefix=f"bench-scale-{chunks}-", dir=args.home_root))
    os.environ["MARGINALIA_HOME"] = str(home)
    rt = await open_runtime(Settings())
    try:
        dim = rt.settings.embedding.dim
        anchors = None
        if args.vectors == "anchored":
            anchors = await anchor_vectors(rt, Path(args.home_root or tempfile.gettempdir()))
        ws, vectors, build_s, compaction_s, bulk = await build(
            rt, chunks, dim, args.seed, args.compact_every, args.bulk_load, anchors
        )
        table = await postings_table(rt)
        size_sql = text(
            f"SELECT pg_total_relation_size('{table}') + pg_total_relation_size('retrieval_terms')"
        )
        async with rt.db.transaction() as session:
            await session.execute(text("ANALYZE"))
            db_bytes = await session.scalar(text("SELECT pg_database_size(current_database())"))
            lexical_bytes = await session.scalar(size_sql)
            postings = await session.scalar(text("SELECT sum(df) FROM retrieval_terms"))
            rows = await session.scalar(text(f"SELECT count(*) FROM {table}"))
        with psycopg.connect(rt.db.location.url, autocommit=True) as conn:
            conn.execute(f"VACUUM FULL {table}")
            conn.execute("VACUUM FULL retrieval_terms")
            conn.execute("ANALYZE")
        async with rt.db.session() as session:
            vacuumed_bytes = await session.scalar(size_sql)
        queries = list(load_queries(SCIFACT).values())[: args.queries]
        nprng = np.random.default_rng(args.seed + 1)
        if anchors is None:
            picks = nprng.choice(len(vectors), size=args.queries, replace=False)
            probes = vectors[picks] + nprng.normal(scale=NOISE, size=(args.queries, dim))
        else:
            probes = np.stack([await rt.embedder.embed_query(q) for q in queries])
        probes = (probes / np.linalg.norm(probes, axis=1, keepdims=True)).astype(np.float32)

        lexical = await timed(
            [(lambda q=q: lexical_leg(rt.db, workspace_id=ws, query=q)) for q in queries]
        )
        ndcgs: list[float] = []
        score_ratios: list[float] = []

        async def exact_call(q: str) -> None:
            pruned = await lexical_leg(rt.db, workspace_id=ws, query=q, depth=10)
            exact = await lexical_leg(
                rt.db, workspace_id=ws, query=q, depth=10, params=EXACT_PARAMS
            )
            ndcgs.append(_ndcg10([h.chunk_id for h in pruned.hits], exact.hits))
            score_ratios.append(_score_ratio(pruned.hits, exact.hits))

        # One pass over the first --exact-queries queries (exact BM25 is slow at scale).
        lexical_exact = []
        for q in queries[: args.exact_queries]:
            t = time.perf_counter()
            await exact_call(q)
            lexical_exact.append((time.perf_counter() - t) * 1000)
        efs = args.ef_search or [rt.settings.retrieval.hnsw_ef_search]
        by_ef = await vector_recall(rt, ws, vectors, probes, efs)
        first = by_ef[efs[0]]
        hybrid = await timed(
            [
                (lambda q=q: hybrid_search(rt, workspace_id=ws, query=q, rerank=False))
                for q in queries
            ]
        )
        return {
            "chunks": chunks,
            "lexical": percentiles(lexical),
            "vector": first["vector"],
            "hybrid": percentiles(hybrid),
            "hnsw_recall": first["hnsw_recall"],
            "hnsw_recall_worst": first["hnsw_recall_worst"],
            "hnsw_recall_at_10": first["hnsw_recall_at_10"],
            "hnsw_recall_at_10_worst": first["hnsw_recall_at_10_worst"],
            "ef_search": efs[0],
            "vector_by_ef_search": by_ef if len(by_ef) > 1 else None,
            "lexical_ndcg_vs_exact": round(float(np.mean(ndcgs)), 4),
            "lexical_ndcg_vs_exact_worst": round(float(np.min(ndcgs)), 4),
            "lexical_score_ratio_vs_exact": round(float(np.mean(score_ratios)), 4),
            "lexical_score_ratio_vs_exact_worst": round(float(np.min(score_ratios)), 4),
            "lexical_exact_plus_pruned": percentiles(lexical_exact),
            "exact_queries": len(lexical_exact),
            "ingest_rows_per_s": round(chunks / build_s, 1),
            "compaction_s": round(compaction_s, 1),
            "bulk_load": bulk or None,
            "database_mb": round(int(db_bytes or 0) / 1e6, 1),
            "postings_table": table,
            "postings": int(postings or 0),
            "postings_rows": int(rows or 0),
            "lexical_index_mb": round(int(lexical_bytes or 0) / 1e6, 1),
            "lexical_index_mb_vacuumed": round(int(vacuumed_bytes or 0) / 1e6, 1),
            "bytes_per_posting_vacuumed": round(
                int(vacuumed_bytes or 0) / max(1, int(postings or 0)), 1
            ),
            "vectors": VECTOR_KINDS[args.vectors],
            "queries": len(queries),
        }
    finally:
        await rt.close()


def _score_ratio(got: list[Any], exact: list[Any]) -> float:
    """Summed BM25 score of the pruned top 10 over the exact top 10's. The pruned leg
    rescores its candidates exactly, so its scores are exact BM25 scores: 1.0 means it
    found chunks scoring as high as the exact top 10, even where a near-tie (the same
    sentence in many passages) put other chunk ids there, which nDCG counts as misses."""
    best = sum(h.score for h in exact[:10])
    return float(sum(h.score for h in got[:10]) / best) if best else 1.0


def _ndcg10(ranked: list[int], exact: list[Any]) -> float:
    """nDCG@10 of ``ranked`` with the exact hits' scores as gains."""
    gain = {h.chunk_id: h.score for h in exact[:10]}
    ideal = sum(g / np.log2(i + 2) for i, g in enumerate(sorted(gain.values(), reverse=True)))
    got = sum(gain.get(c, 0.0) / np.log2(i + 2) for i, c in enumerate(ranked[:10]))
    return float(got / ideal) if ideal else 1.0


async def _chunk_order(rt: Any, ws: uuid.UUID) -> dict[int, int]:
    """chunk id → row in the build's vector matrix (insertion order)."""
    from sqlalchemy import text

    async with rt.db.session() as session:
        rows = (
            await session.execute(
                text("SELECT id FROM chunks WHERE workspace_id = :w ORDER BY id"), {"w": ws}
            )
        ).all()
    return {int(r[0]): i for i, r in enumerate(rows)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", default="10000", help="comma-separated sizes")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--exact-queries", type=int, default=20, help="queries compared with exact BM25"
    )
    parser.add_argument(
        "--compact-every",
        type=int,
        default=20000,
        help="merge the posting blocks after this many chunks (as the background refresh does)",
    )
    parser.add_argument(
        "--bulk-load",
        action="store_true",
        help="load with the postings triggers and HNSW index off, then rebuild both",
    )
    parser.add_argument(
        "--vectors",
        choices=sorted(VECTOR_KINDS),
        default="clusters",
        help="chunk vectors: random clusters, or real sentence embeddings plus noise",
    )
    parser.add_argument(
        "--ef-search",
        type=lambda v: [int(x) for x in v.split(",")],
        default=None,
        help="comma-separated HNSW ef_search values for the vector leg (the first is reported; "
        "default: the settings' retrieval.hnsw_ef_search)",
    )
    parser.add_argument(
        "--home-root", default=None, help="where the throwaway homes (and cached anchors) go"
    )
    parser.add_argument("--json", action="store_true", help="print JSON only")
    args = parser.parse_args()
    reports = [asyncio.run(measure(args, int(n))) for n in args.chunks.split(",")]
    if args.json:
        print(json.dumps(reports[0] if len(reports) == 1 else reports, indent=2))
        return
    for r in reports:
        print(
            f"{r['chunks']:>8} chunks  lexical p50/p95 {r['lexical']['p50']}/{r['lexical']['p95']} ms"
            f"  vector {r['vector']['p50']}/{r['vector']['p95']} ms"
            f"  hybrid {r['hybrid']['p50']}/{r['hybrid']['p95']} ms"
            f"  recall@100 {r['hnsw_recall']}  {r['ingest_rows_per_s']} rows/s"
            f"  db {r['database_mb']} MB (postings {r['lexical_index_mb']} MB)"
        )


if __name__ == "__main__":
    main()
