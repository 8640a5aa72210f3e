"""Cost of one cross-encoder call on one onnxruntime thread: ``--sentences`` sentences of
SciFact abstracts (their real length spread) against a question, and ``--passages``
abstract-long texts, each call repeated ``--repeat`` times. Prints medians of wall time
and of the process's CPU time (on a loaded machine the wall time is mostly waiting for a
core; the CPU time is what the call costs on a free one).

    uv run --frozen python eval/reranker/bench_latency.py --model-dir <folder>
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path

from marginalia.retrieval.rerank import OnnxCrossEncoder

SCIFACT = Path(__file__).resolve().parents[3] / "shared" / "data" / "scifact" / "corpus.jsonl"
QUESTION = "How many of the patients were still free of symptoms a year after the treatment?"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model-dir", type=Path, required=True)
    ap.add_argument("--sentences", type=int, default=80)
    ap.add_argument("--passages", type=int, default=30)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    rng = random.Random(32)
    docs = [json.loads(line) for line in SCIFACT.open()]
    rng.shuffle(docs)
    sentences = [s.strip() + "." for d in docs[:60] for s in d["text"].split(". ") if s.strip()]
    sentences = [s for s in sentences if 6 <= len(s.split()) <= 60][: args.sentences]
    passages = [f"{d['title']}\n\n{d['text']}" for d in docs[60 : 60 + args.passages]]
    model = OnnxCrossEncoder(args.model_dir, threads=1)
    model.score(QUESTION, sentences[:4])
    report: dict[str, object] = {"model": str(args.model_dir)}
    for name, texts in (("sentences", sentences), ("passages", passages)):
        wall, cpu = [], []
        for _ in range(args.repeat):
            w, c = time.perf_counter(), time.process_time()
            model.score(QUESTION, texts)
            wall.append((time.perf_counter() - w) * 1000)
            cpu.append((time.process_time() - c) * 1000)
        report[name] = {
            "n": len(texts),
            "words_median": statistics.median(len(t.split()) for t in texts),
            "wall_ms_p50": round(statistics.median(wall), 1),
            "cpu_ms_p50": round(statistics.median(cpu), 1),
        }
    print(json.dumps(report))


if __name__ == "__main__":
    main()
