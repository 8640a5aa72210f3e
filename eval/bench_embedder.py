"""Embedder throughput: passages/s, wall time and peak RSS, printed as JSON.

Default input: the first 2,000 SciFact abstracts (title + text) from
``../shared/data/scifact/corpus.jsonl``. Abstracts longer than the model window are
split naively on word boundaries into window-sized pieces (``--long chunk``, default)
or left out (``--long skip``); either way the JSON says how many.

The embedder runs as the product configures it (``EmbeddingSettings``: slots, threads
per batch) unless told otherwise. ``--batch-size`` takes a comma-separated list: each
size gets its own embedder, and with ``--repeat`` the sizes alternate round by round,
so all see the same machine; the report gives each size's median (peak RSS is the
process's, over all sizes).

    uv run --frozen python eval/bench_embedder.py [--n 2000] [--batch-size 2,4,8,16]
        [--repeat 3] [--async]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = ROOT.parent / "shared" / "data" / "scifact" / "corpus.jsonl"

sys.path.insert(0, str(ROOT / "backend"))

from marginalia.config import EmbeddingSettings  # noqa: E402
from marginalia.embed import FastEmbedEmbedder  # noqa: E402

_DEFAULTS = EmbeddingSettings()


def _peak_rss_mb() -> float:
    # ru_maxrss is KiB on Linux, bytes on macOS.
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def load_texts(corpus: Path, n: int) -> list[str]:
    texts: list[str] = []
    with corpus.open(encoding="utf-8") as f:
        for line in f:
            if len(texts) >= n:
                break
            doc = json.loads(line)
            texts.append(f"{doc.get('title', '')}\n{doc.get('text', '')}".strip())
    return texts


def split_naively(embedder: FastEmbedEmbedder, text: str) -> list[str]:
    """Greedy word-boundary pieces, each within the window (not the real chunker)."""
    words = text.split()
    pieces: list[str] = []
    start = 0
    while start < len(words):
        lo, hi = start + 1, len(words)
        # Largest end such that words[start:end] fits: binary search on the token count.
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if embedder.count_tokens(" ".join(words[start:mid])) <= embedder.max_tokens:
                lo = mid
            else:
                hi = mid - 1
        pieces.append(" ".join(words[start:lo]))
        start = lo
    return pieces


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--n", type=int, default=2000, help="number of abstracts")
    parser.add_argument("--model", default="sentence-transformers/all-MiniLM-L6-v2")
    parser.add_argument("--models-dir", type=Path, default=None)
    parser.add_argument("--batch-size", default=str(_DEFAULTS.batch_size), help="e.g. 4 or 2,4,8")
    parser.add_argument("--threads", type=int, default=_DEFAULTS.threads)
    parser.add_argument("--max-concurrency", type=int, default=_DEFAULTS.max_concurrency)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--long", choices=["chunk", "skip"], default="chunk")
    parser.add_argument("--async", dest="use_async", action="store_true", help="use the async path")
    args = parser.parse_args(argv)

    if not args.corpus.is_file():
        raise SystemExit(f"corpus not found: {args.corpus} (see ../shared/data/README.md)")

    t_wall = time.perf_counter()
    sizes = [int(v) for v in str(args.batch_size).split(",") if v.strip()]
    models_dir = args.models_dir or Path(tempfile.mkdtemp(prefix="marginalia-bench-models-"))
    embedders = {
        size: FastEmbedEmbedder(
            models_dir,
            model=args.model,
            batch_size=size,
            threads=args.threads,
            max_concurrency=args.max_concurrency,
        )
        for size in sizes
    }
    embedder = embedders[sizes[0]]
    t0 = time.perf_counter()
    for each in embedders.values():
        each.load()
    load_s = time.perf_counter() - t0

    docs = load_texts(args.corpus, args.n)
    t0 = time.perf_counter()
    counts = embedder.count_tokens_batch(docs)
    passages: list[str] = []
    over = 0
    for text, n_tok in zip(docs, counts, strict=True):
        if n_tok <= embedder.max_tokens:
            passages.append(text)
            continue
        over += 1
        if args.long == "chunk":
            passages.extend(split_naively(embedder, text))
    prepare_s = time.perf_counter() - t0
    n_tokens = sum(embedder.count_tokens_batch(passages))

    runs: dict[int, list[float]] = {size: [] for size in sizes}
    shape: list[int] = []
    for _ in range(args.repeat):
        for size, each in embedders.items():
            t0 = time.perf_counter()
            if args.use_async:
                vectors = asyncio.run(each.embed_documents(passages))
            else:
                vectors = each.embed_documents_sync(passages)
            runs[size].append(time.perf_counter() - t0)
            shape = list(vectors.shape)
    wall_s = time.perf_counter() - t_wall

    def summary(size: int) -> dict[str, Any]:
        embed_s = statistics.median(runs[size])
        return {
            "embed_s_median": round(embed_s, 3),
            "embed_s_runs": [round(v, 3) for v in runs[size]],
            "passages_per_s": round(len(passages) / embed_s, 1) if embed_s else None,
            "tokens_per_s": round(n_tokens / embed_s, 1) if embed_s else None,
        }

    report: dict[str, Any] = {
        "model_id": embedder.model_id,
        "dim": embedder.dim,
        "max_tokens": embedder.max_tokens,
        "threads": args.threads,
        "max_concurrency": args.max_concurrency,
        "path": "async" if args.use_async else "sync",
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "abstracts": len(docs),
        "abstracts_over_window": over,
        "long_abstracts": "chunked naively" if args.long == "chunk" else "skipped",
        "passages": len(passages),
        "tokens": n_tokens,
        "vectors_shape": shape,
        "load_s": round(load_s, 3),
        "prepare_s": round(prepare_s, 3),
        "wall_s": round(wall_s, 3),
        "repeat": args.repeat,
        "batch_sizes": {str(size): summary(size) for size in sizes},
        "peak_rss_mb": round(_peak_rss_mb(), 1),
    }
    print(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main()
