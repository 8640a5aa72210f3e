"""Where an ingest loses time against the embedder alone: a timeline of embedding batches.

For one corpus (the 9 shared PDFs, or the first N SciFact abstracts), embeds the
passages with the embedder alone, then ingests them for real, in one process,
alternating for ``--repeat`` rounds. Every model batch's start and end are recorded
(by wrapping the embedder's batch method), and reported as:

- slots busy: seconds during which 0, 1, 2 … batches were running (the embedder has
  ``max_concurrency`` slots; time with fewer busy is time the model waited);
- head: start → first batch; tail: last batch → end (the serial parts);
- CPU: core-seconds the whole machine was busy (``/proc/stat``), so the ingest's extra
  work (parsing, chunking, PostgreSQL) shows as the difference from the embedder alone;
- padding: tokens the model ran (every batch padded to its longest input) beyond the
  real tokens; an ingest sorts each embedding call's passages, not the whole corpus.

Rounds after the first ingest the same vectors into the same database again, which
pgvector's HNSW index stores as extra heap pointers on the existing elements (cheap):
their PostgreSQL share is understated. ``eval/bench_ingest.py`` measures every ingest on
an empty database.

Usage: uv run python eval/ingest_timeline.py [--corpus pdfs|scifact] [--scifact-limit N]
       [--repeat 2] [--data ../shared/data]   (a throwaway MARGINALIA_HOME unless one is set)
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_ingest  # the same passages as the benchmark

ROOT = Path(__file__).resolve().parents[1]


def _report(label: str, spans: list[tuple[float, float]], start: float, end: float) -> str:
    events = sorted([(a, 1) for a, _ in spans] + [(b, -1) for _, b in spans])
    busy_for: dict[int, float] = {}
    running, last = 0, start
    for t, step in events:
        busy_for[running] = busy_for.get(running, 0.0) + (t - last)
        running, last = running + step, t
    busy_for[0] = busy_for.get(0, 0.0) + (end - last)
    slots = "  ".join(f"{k} busy {v:6.2f} s" for k, v in sorted(busy_for.items()))
    head = (spans[0][0] - start) if spans else end - start
    tail = (end - max(b for _, b in spans)) if spans else 0.0
    return (
        f"{label:8s} wall {end - start:7.2f} s  head {head:5.2f} s  tail {tail:5.2f} s  "
        f"batches {len(spans):3d}  slots: {slots}"
    )


async def run(corpus: str, data: Path, limit: int | None, repeat: int) -> None:
    from marginalia.config import get_settings
    from marginalia.ingest.pipeline import IngestItem, ingest_many
    from marginalia.retrieval.beir import import_beir
    from marginalia.runtime import open_runtime
    from marginalia.usecases.workspaces import create_workspace

    services = await open_runtime(get_settings())
    try:
        embedder: Any = services.embedder
        embedder.embed_documents_sync(["warm up the model"])
        spans: list[tuple[float, float]] = []
        batches: list[list[str]] = []  # counted after the clock, for the padding
        embed_batch = embedder._embed_batch

        def recorded(texts: list[str]) -> Any:
            began = time.perf_counter()
            try:
                return embed_batch(texts)
            finally:
                spans.append((began, time.perf_counter()))
                batches.append(texts)

        def padding() -> str:
            """Tokens the model ran (each batch padded to its longest) per real token."""
            counts = [embedder.count_tokens_batch(b) for b in batches]
            padded = sum(len(c) * max(c) for c in counts if c)
            real = sum(sum(c) for c in counts)
            batches.clear()
            return f"padding {padded / max(real, 1) - 1:6.2%}"

        embedder._embed_batch = recorded
        pdfs = sorted((data / "pdfs").glob("*.pdf"))
        texts = await (
            bench_ingest._pdf_passages(services, pdfs)
            if corpus == "pdfs"
            else bench_ingest._scifact_passages(services, data / "scifact", limit)
        )
        print(f"{corpus}: {len(texts)} passages, {embedder.max_concurrency} embedding slots")
        for _ in range(repeat):
            spans.clear()
            cpu, start = bench_ingest._busy_core_seconds(), time.perf_counter()
            await embedder.embed_documents(texts)
            end = time.perf_counter()
            alone_wall = end - start
            busy = bench_ingest._busy_core_seconds() - cpu
            print(_report("alone", spans, start, end), f" CPU {busy:6.2f} s ", padding())

            spans.clear()
            cpu, start = bench_ingest._busy_core_seconds(), time.perf_counter()
            if corpus == "pdfs":
                ws = await create_workspace(services, name=f"timeline-{time.time_ns()}")
                items = [IngestItem(load=p.read_bytes, filename=p.name) for p in pdfs]
                async for _ in ingest_many(services, ws.id, items):
                    pass
            else:
                await import_beir(
                    services,
                    data / "scifact",
                    workspace_name=f"timeline-{time.time_ns()}",
                    limit=limit,
                )
            end = time.perf_counter()
            busy = bench_ingest._busy_core_seconds() - cpu
            print(
                _report("ingest", spans, start, end),
                f" CPU {busy:6.2f} s ",
                padding(),
                f" ratio {alone_wall / (end - start):.3f}",
            )
    finally:
        await services.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--corpus", choices=["pdfs", "scifact"], default="pdfs")
    parser.add_argument("--scifact-limit", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    # A throwaway home (database, files, models), unless one is given. It is removed at
    # exit after the embedded server has stopped: registered first, this runs last.
    home = tempfile.mkdtemp(prefix="marginalia-timeline-")
    atexit.register(shutil.rmtree, home, True)
    os.environ.setdefault("MARGINALIA_HOME", home)
    os.environ.setdefault("MARGINALIA_LOG_LEVEL", "WARNING")
    asyncio.run(run(args.corpus, args.data, args.scifact_limit, args.repeat))


if __name__ == "__main__":
    main()
