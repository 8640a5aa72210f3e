"""The BEIR importer and retrieval eval, on a small slice of SciFact with the real model."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from sqlalchemy import text

from marginalia.errors import ValidationFailed
from marginalia.evaluation.retrieval import (
    METRICS,
    Z95,
    dedupe_docs,
    evaluate_retrieval,
    mrr_at,
    ndcg_at,
    read_query_ids,
    recall_at,
    render_markdown,
    run_retrieval_eval,
    select_queries,
)
from marginalia.evaluation.stats import wilson
from marginalia.retrieval.beir import _batches, import_beir, load_qrels, load_queries
from marginalia.runtime import Runtime
from marginalia.usecases import workspaces as ws_service


def test_metrics_by_hand() -> None:
    rels = {"a": 1, "b": 1, "c": 0}
    ranked = ["x", "a", "y", "b"]
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    idcg = 1 + 1 / math.log2(3)
    assert ndcg_at(ranked, rels) == pytest.approx(dcg / idcg)
    assert recall_at(ranked, rels, 2) == 0.5 and recall_at(ranked, rels, 10) == 1.0
    assert mrr_at(ranked, rels) == 0.5
    assert mrr_at(["x"] * 10 + ["a"], rels) == 0.0
    assert ndcg_at(["c"], {"c": 0}) == 0.0
    # Graded gains are linear (trec_eval / BEIR).
    assert ndcg_at(["b", "a"], {"a": 2, "b": 1}) == pytest.approx(
        (1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3))
    )
    assert dedupe_docs([5, 6, 7, 8], {5: "d1", 6: "d1", 7: "d2"}) == ["d1", "d2"]
    low, high = wilson(8, 10, z=Z95)  # the one Wilson interval, at the report's z
    assert 0.49 < low < 0.5 and 0.94 < high < 0.95  # Wilson 95%: [0.490, 0.943]


@pytest.fixture(scope="module")
def mini_beir(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """8 training queries, their relevant abstracts and 24 other abstracts."""
    src = shared_data / "scifact"
    qrels = load_qrels(src, "train")
    queries = load_queries(src)
    qids = [q for q in sorted(qrels, key=int) if q in queries][:8]
    wanted = {d for q in qids for d in qrels[q]}
    out = tmp_path_factory.mktemp("beir") / "scifact-mini"
    (out / "qrels").mkdir(parents=True)
    kept, others = [], 0
    with (src / "corpus.jsonl").open(encoding="utf-8") as f:
        for line in f:
            doc = json.loads(line)
            if doc["_id"] in wanted or others < 24:
                others += doc["_id"] not in wanted
                kept.append(line)
    (out / "corpus.jsonl").write_text("".join(kept), encoding="utf-8")
    (out / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": q, "text": queries[q]}) + "\n" for q in qids), encoding="utf-8"
    )
    rows = ["query-id\tcorpus-id\tscore"] + [
        f"{q}\t{d}\t{s}" for q in qids for d, s in qrels[q].items()
    ]
    (out / "qrels" / "dev.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return out


def test_import_batches_are_small_at_both_ends() -> None:
    docs = list(range(1000))
    batches = _batches(docs, 200)  # type: ignore[arg-type]
    assert [d for b in batches for d in b] == docs  # every document once, in order
    sizes = [len(b) for b in batches]
    # A small first batch (the embedder starts sooner), full ones, and the last 200
    # documents in eighths (the one store no embedding hides is short).
    assert sizes == [25, 200, 200, 200, 175] + [25] * 8
    assert [len(b) for b in _batches(docs[:30], 200)] == [25, 5]
    assert _batches([], 200) == []


async def test_import_and_evaluate(services: Runtime, mini_beir: Path) -> None:
    ws = await import_beir(services, mini_beir, workspace_name="beir-mini-test")
    n_docs = sum(1 for _ in (mini_beir / "corpus.jsonl").open())
    async with services.db.session() as session:
        row = (
            await session.execute(
                text(
                    "SELECT count(*), count(*) FILTER (WHERE url LIKE 'beir:%' AND origin = 'beir'), "
                    "(SELECT count(*) FROM chunks WHERE workspace_id = :ws), "
                    "(SELECT max(token_count) FROM chunks WHERE workspace_id = :ws) "
                    "FROM sources WHERE workspace_id = :ws"
                ),
                {"ws": ws},
            )
        ).one()
    assert row[0] == row[1] == n_docs
    assert row[2] >= n_docs and row[3] <= services.embedder.max_tokens
    async with services.db.session() as session:
        # Each source's mean embedding, as for uploads: the normalised mean of its chunks.
        worst = await session.scalar(
            text(
                """SELECT max(s.mean_embedding <=> m.v) FROM sources s
                     JOIN (SELECT source_id, l2_normalize(avg(embedding)) AS v
                             FROM chunks WHERE workspace_id = :ws GROUP BY source_id) m
                       ON m.source_id = s.id
                    WHERE s.workspace_id = :ws"""
            ),
            {"ws": ws},
        )
        missing = await session.scalar(
            text(
                "SELECT count(*) FROM sources WHERE workspace_id = :ws AND mean_embedding IS NULL"
            ),
            {"ws": ws},
        )
    assert missing == 0 and worst is not None and worst < 1e-5

    queries = load_queries(mini_beir)
    qrels = load_qrels(mini_beir, "dev")
    report = await evaluate_retrieval(services, ws, queries, qrels, warmup=1)
    assert set(report["legs"]) == {"vector", "lexical", "concept", "fusion", "fusion_rrf"}
    for name, m in report["legs"].items():
        assert set(m) == set(METRICS)
        assert all(0.0 <= v <= 1.0 for v in m.values()), name
    # With 8 queries over ~40 abstracts, both real legs find most relevant documents.
    assert report["legs"]["lexical"]["recall@100"] >= 0.8
    assert report["legs"]["vector"]["recall@100"] >= 0.8
    assert report["legs"]["fusion"]["ndcg@10"] >= 0.5
    assert report["legs"]["concept"]["ndcg@10"] == 0.0  # no concepts in a BEIR workspace
    assert report["queries_with_hits"]["concept"] == 0
    assert report["latency_ms"]["retrieval"]["n"] == report["queries"] == 8
    assert report["latency_ms"]["retrieval"]["p95"] >= report["latency_ms"]["retrieval"]["p50"] > 0
    assert report["intervals"]["fusion"]["success@10"]["n"] == 8
    await ws_service.delete_workspace(services, ws)


def test_missing_split_is_a_clear_error(mini_beir: Path) -> None:
    with pytest.raises(ValidationFailed, match=r"split 'test'.*available splits: dev"):
        run_retrieval_eval(mini_beir, "test")
    with pytest.raises(ValidationFailed, match="unknown legs"):
        run_retrieval_eval(mini_beir, "dev", legs=["bm42"])


def test_query_id_lists_select_judged_queries(mini_beir: Path, tmp_path: Path) -> None:
    qrels = load_qrels(mini_beir, "dev")
    first, second = sorted(qrels)[:2]
    ids = tmp_path / "ids.txt"
    ids.write_text(f"# held out\n{second}\n\n{first}\n{second}\n", encoding="utf-8")
    assert read_query_ids(ids) == [second, first, second]
    assert list(select_queries(qrels, read_query_ids(ids))) == [second, first]
    with pytest.raises(ValidationFailed, match="no judgement"):
        select_queries(qrels, [first, "no-such-query"])
    with pytest.raises(ValidationFailed, match="empty"):
        select_queries(qrels, [])
    with pytest.raises(ValidationFailed, match="not found"):
        run_retrieval_eval(mini_beir, "dev", query_ids_file=tmp_path / "missing.txt")
    ids.write_text("no-such-query\n", encoding="utf-8")
    with pytest.raises(ValidationFailed, match="no judgement"):
        run_retrieval_eval(mini_beir, "dev", query_ids_file=ids)


def test_markdown_report_renders() -> None:
    m = {k: 0.5 for k in METRICS}
    ci = {"success@10": {"successes": 1, "n": 2, "wilson95": [0.1, 0.9]}}
    p = {"p50": 1.0, "p95": 2.0, "mean": 1.5, "n": 2}
    report = {
        "run": {"finished_at": "now", "host": "h", "git_commit": None, "embedding_model": "m"},
        "dataset": {"name": "d", "split": "s", "documents": 2, "chunks": 3, "import_s": 1.0},
        "rerank": None,
        "queries": 2,
        "warmup_queries_unmeasured": 1,
        "legs": {"lexical": m, "fusion": m},
        "intervals": {"lexical": ci, "fusion": ci},
        "latency_ms": {"retrieval": p, "query_embedding": p, "legs": {"lexical": p}},
        "leg_notes": {"concept: none": 2},
        "eval_wall_s": 1.0,
    }
    md = render_markdown(report)
    assert "| fusion | 0.5000 |" in md and "1/2 [0.100, 0.900]" in md


def test_cli_command_imports_evaluates_and_cleans_up(
    mini_beir: Path, tmp_path: Path, subprocess_env: dict[str, str]
) -> None:
    from typer.testing import CliRunner

    from marginalia.cli.eval_cmds import eval_app

    runner = CliRunner()
    args = ["retrieval", "--beir", str(mini_beir), "--split", "dev", "--json"]
    result = runner.invoke(eval_app, [*args, "--report-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert set(report["legs"]) == {"vector", "lexical", "concept", "fusion", "fusion_rrf"}
    assert {"retrieval", "query_embedding"} <= set(report["latency_ms"])
    assert report["run"]["workspace_id"] is None  # the throwaway workspace is gone
    assert (tmp_path / "retrieval-scifact-mini-dev.json").is_file()
    assert (tmp_path / "retrieval-scifact-mini-dev.md").is_file()

    missing = runner.invoke(eval_app, ["retrieval", "--beir", str(mini_beir)])
    assert missing.exit_code == 1
    assert "available splits: dev" in missing.output
