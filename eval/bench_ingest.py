"""Ingest throughput: the embedder alone vs the whole ingest, side by side in one run.

Two corpora (DESIGN §7 data): the 9 shared PDFs (parse → chunk → embed → store, one
source per file) and the 5,183 SciFact abstracts through the BEIR importer. For each,
the same passages are first embedded by the embedder alone, then ingested for real.

Each measurement runs in its own subprocess (so peak memory, max RSS, is its own) on a
fresh ``MARGINALIA_HOME``: every ingest goes into an empty database, as a first import
does. (Re-ingesting the same corpus into one database flatters later runs: pgvector's
HNSW index stores an identical vector as one more heap pointer on the existing element,
which costs a fraction of a real insert.) Before the clock, each child warms up what it
measures: the embedder child loads the model with one text; the ingest child ingests a
two-document corpus of its own (not the measured one) into another workspace, so module
imports, the connection pool and the tokenizer are ready, as in a running server.

``--baseline-tree DIR`` measures another checkout (say, the commit before a change, made
with ``git worktree add``) in the same run: its children import that tree's package and
migrations (``PYTHONPATH``) with this environment's dependencies, and alternate with this
tree's, so both see the same machine.

``--modes overhead`` (or ``embedder,ingest,overhead``) is a third measurement: the whole
ingest with the model replaced by a lookup of the same passages' vectors (computed
before the clock), which gives the ingest's own CPU cost — core-seconds in this process (parsing, chunking,
building rows) and in the rest of the machine (PostgreSQL; the machine should be quiet).

Usage: uv run python eval/bench_ingest.py [--data ../shared/data] [--repeat 1]
       [--corpus pdfs|scifact|both] [--scifact-limit N] [--baseline-tree DIR]
       [--modes embedder,ingest,overhead] [--out FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def _pdf_passages(services: Any, pdfs: list[Path]) -> list[str]:
    from marginalia.ingest import chunk_document
    from marginalia.ingest.validation import validate_document

    texts: list[str] = []
    for pdf in pdfs:
        doc = validate_document(pdf.read_bytes(), pdf.name, None, services.settings)
        chunks = chunk_document(
            doc, services.embedder.count_tokens, max_tokens=services.embedder.max_tokens
        )
        texts.extend(c.text for c in chunks)
    return texts


async def _scifact_passages(services: Any, beir: Path, limit: int | None) -> list[str]:
    from marginalia.retrieval.beir import chunk_beir_doc, load_corpus

    e = services.embedder
    out: list[str] = []
    for doc in load_corpus(beir, limit=limit):
        out.extend(
            c.text
            for c in chunk_beir_doc(
                doc,
                e.count_tokens,
                max_tokens=e.max_tokens,
                overlap=services.settings.ingest.chunk_overlap,
            )
        )
    return out


_WARM_UP_DOCS = [
    {"_id": "w1", "title": "Warming up", "text": "A first document. It has two sentences."},
    {"_id": "w2", "title": "", "text": "A second one, with a single sentence and no title."},
]


async def _warm_up(services: Any, corpus: str, data: Path) -> None:
    """Outside the clock: what a running server has already done once."""
    services.embedder.embed_documents_sync(["warm up the model"])  # loads the model
    if corpus == "pdfs":
        from marginalia.ingest.pipeline import IngestItem, ingest_many
        from marginalia.ingest.validation import validate_document
        from marginalia.usecases.workspaces import create_workspace

        smallest = min((data / "pdfs").glob("*.pdf"), key=lambda p: p.stat().st_size)
        validate_document(smallest.read_bytes(), smallest.name, None, services.settings)
        ws = await create_workspace(services, name="bench-warm-up")
        item = IngestItem(
            load=lambda: b"# Warming up\n\nA first paragraph. It has two sentences.\n",
            filename="warm-up.md",
        )
        async for _ in ingest_many(services, ws.id, [item]):
            pass
    else:
        from marginalia.retrieval.beir import import_beir

        with tempfile.TemporaryDirectory(prefix="marginalia-bench-warm-") as folder:
            lines = "".join(json.dumps(d) + "\n" for d in _WARM_UP_DOCS)
            (Path(folder) / "corpus.jsonl").write_text(lines, encoding="utf-8")
            await import_beir(services, Path(folder), workspace_name="bench-warm-up")


async def _ingest(services: Any, corpus: str, data: Path, limit: int | None) -> int:
    """The ingest job's own path for the corpus; returns the passages stored."""
    from sqlalchemy import text

    from marginalia.ingest.pipeline import IngestItem, ingest_many
    from marginalia.retrieval.beir import import_beir
    from marginalia.usecases.workspaces import create_workspace

    if corpus == "pdfs":
        ws = await create_workspace(services, name=f"bench-{time.time_ns()}")
        # The next file parses while this one embeds.
        pdfs = sorted((data / "pdfs").glob("*.pdf"))
        items = [IngestItem(load=pdf.read_bytes, filename=pdf.name) for pdf in pdfs]
        passages = 0
        async for _n, outcome in ingest_many(services, ws.id, items):
            passages += getattr(outcome, "chunks", 0)
        return passages
    ws_id = await import_beir(
        services, data / "scifact", workspace_name=f"bench-{time.time_ns()}", limit=limit
    )
    async with services.db.session() as session:
        count = await session.scalar(
            text("SELECT count(*) FROM chunks WHERE workspace_id = :w"), {"w": ws_id}
        )
    return int(count or 0)


def _busy_core_seconds() -> float:
    """Core-seconds the whole machine has been busy (``/proc/stat``)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")  # less idle, iowait


def _own_core_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def measure(mode: str, corpus: str, data: Path, limit: int | None) -> dict[str, Any]:
    """One measurement: ``embedder`` (the passages embedded alone), ``ingest`` (the whole
    ingest), or ``overhead`` (the whole ingest with the model replaced by a lookup of the
    same passages' vectors, computed before the clock: what the ingest costs besides
    the model, in this process and in the rest of the machine — PostgreSQL)."""
    import marginalia
    from marginalia.config import get_settings
    from marginalia.runtime import open_runtime

    services = await open_runtime(get_settings())
    try:
        if mode == "embedder":
            services.embedder.embed_documents_sync(["warm up the model"])  # load outside the clock
        else:
            await _warm_up(services, corpus, data)
        texts: list[str] = []
        if mode in ("embedder", "overhead"):
            texts = await (
                _pdf_passages(services, sorted((data / "pdfs").glob("*.pdf")))
                if corpus == "pdfs"
                else _scifact_passages(services, data / "scifact", limit)
            )
        if mode == "overhead":
            vectors = await services.embedder.embed_documents(texts)
            known = dict(zip(texts, vectors, strict=True))

            async def looked_up(batch: Any) -> Any:
                return np.stack([known[t] for t in batch])

            embedder: Any = services.embedder  # the instance's method, replaced for this run
            embedder.embed_documents = looked_up
        own, busy, start = _own_core_seconds(), _busy_core_seconds(), time.perf_counter()
        if mode == "embedder":
            await services.embedder.embed_documents(texts)
            passages = len(texts)
        else:
            passages = await _ingest(services, corpus, data, limit)
        wall = time.perf_counter() - start
        own, busy = _own_core_seconds() - own, _busy_core_seconds() - busy
        return {
            "mode": mode,
            "corpus": corpus,
            "passages": passages,
            "wall_s": wall,
            "passages_per_s": passages / wall,
            "process_core_s": own,
            "other_core_s": busy - own,
            "peak_rss_mb": _peak_mb(),
            "package": str(Path(marginalia.__file__).resolve().parent),
        }
    finally:
        await services.close()


def _child(
    mode: str, corpus: str, data: Path, limit: int | None, tree: Path | None = None
) -> dict[str, Any]:
    """One measurement in a subprocess on a fresh home (``tree``: another checkout's code)."""
    with tempfile.TemporaryDirectory(prefix="marginalia-bench-ingest-") as home:
        env = dict(os.environ, MARGINALIA_HOME=home, MARGINALIA_LOG_LEVEL="WARNING")
        for var in ("DATABASE_URL", "REDIS_URL"):
            env.pop(var, None)
        if tree is not None:
            env["PYTHONPATH"] = str(tree / "backend")
        out = subprocess.run(
            [sys.executable, __file__, "--child", mode, corpus, "--data", str(data)]
            + (["--scifact-limit", str(limit)] if limit else []),
            env=env,
            cwd=ROOT,
            check=False,
            capture_output=True,
            text=True,
        )
    lines = out.stdout.strip().splitlines()
    if not lines or not lines[-1].startswith("{"):
        raise SystemExit(f"{mode}/{corpus} failed (exit {out.returncode}):\n{out.stderr[-3000:]}")
    result = dict(json.loads(lines[-1]))
    if tree is not None and not result.get("package", "").startswith(str(tree)):
        raise SystemExit(f"the child imported {result.get('package')}, not the tree {tree}")
    # A child that measured and printed but then died at interpreter exit is recorded
    # with its exit code rather than discarded.
    result["exit_code"] = out.returncode
    return result


MODES = ("embedder", "ingest", "overhead")


def _summary(runs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    for mode in ("embedder", "ingest"):
        if rs := runs.get(mode):
            summary[mode] = {
                "passages": rs[0]["passages"],
                "passages_per_s_median": statistics.median(r["passages_per_s"] for r in rs),
                "wall_s_median": statistics.median(r["wall_s"] for r in rs),
                "peak_rss_mb_max": max(r["peak_rss_mb"] for r in rs),
                "runs": rs,
            }
    if rs := runs.get("overhead"):  # the ingest's own work, apart from the model
        summary["overhead"] = {
            "passages": rs[0]["passages"],
            "wall_s_median": statistics.median(r["wall_s"] for r in rs),
            "process_core_s_median": statistics.median(r["process_core_s"] for r in rs),
            "other_core_s_median": statistics.median(r["other_core_s"] for r in rs),
            "runs": rs,
        }
    if "embedder" in summary and "ingest" in summary:
        summary["ratio_ingest_over_embedder"] = (
            summary["ingest"]["passages_per_s_median"]
            / summary["embedder"]["passages_per_s_median"]
        )
        # Per round (an embedder run and the ingest run right after it), for the spread.
        summary["ratio_per_round"] = [
            i["passages_per_s"] / e["passages_per_s"]
            for e, i in zip(runs["embedder"], runs["ingest"], strict=True)
        ]
    return summary


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--corpus", choices=["pdfs", "scifact", "both"], default="both")
    parser.add_argument("--child", nargs=2, metavar=("MODE", "CORPUS"))
    parser.add_argument(
        "--scifact-limit", type=int, default=None, help="only the first N SciFact documents"
    )
    parser.add_argument(
        "--baseline-tree",
        type=Path,
        default=None,
        help="another checkout measured in the same run, alternating with this one",
    )
    parser.add_argument(
        "--modes",
        default="embedder,ingest",
        help="comma-separated: embedder, ingest, overhead (the ingest with the model "
        "replaced by a lookup: its own CPU cost)",
    )
    parser.add_argument("--out", type=Path, default=None, help="also write the report here")
    args = parser.parse_args()
    if unknown := set(args.modes.split(",")) - set(MODES):
        parser.error(f"unknown modes {sorted(unknown)}; choose from {', '.join(MODES)}")
    if args.child:
        print(
            json.dumps(
                asyncio.run(measure(args.child[0], args.child[1], args.data, args.scifact_limit))
            )
        )
        return
    corpora = ["pdfs", "scifact"] if args.corpus == "both" else [args.corpus]
    trees: dict[str, Path | None] = {"this": None}
    if args.baseline_tree is not None:
        trees["baseline"] = args.baseline_tree.resolve()
    report: dict[str, Any] = {
        "data": str(args.data),
        "repeat": args.repeat,
        "scifact_limit": args.scifact_limit,
        "commits": {name: _git_commit(tree or ROOT) for name, tree in trees.items()},
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "corpora": {},
    }
    for corpus in corpora:
        modes = [m for m in MODES if m in args.modes.split(",")]
        runs: dict[str, dict[str, list[dict[str, Any]]]] = {
            name: {mode: [] for mode in modes} for name in trees
        }
        for _ in range(args.repeat):  # interleaved so every mode sees the same machine load
            for name, tree in trees.items():
                for mode in modes:
                    result = _child(mode, corpus, args.data, args.scifact_limit, tree)
                    runs[name][mode].append(result)
                    print(
                        f"{corpus} {name} {mode}: {result['passages_per_s']:.2f} passages/s",
                        file=sys.stderr,
                        flush=True,
                    )
        report["corpora"][corpus] = (
            _summary(runs["this"])
            if len(trees) == 1
            else {name: _summary(r) for name, r in runs.items()}
        )
    text = json.dumps(report, indent=2)
    if args.out is not None:
        args.out.write_text(text + "\n", encoding="utf-8")
    print(text)


def _git_commit(tree: Path) -> str | None:
    out = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=tree, capture_output=True, text=True
    )
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        cwd=tree,
        capture_output=True,
        text=True,
    )
    commit = out.stdout.strip() or None
    return f"{commit}+changes" if commit and dirty.stdout.strip() else commit


if __name__ == "__main__":
    main()
