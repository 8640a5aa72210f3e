"""Wall time and entries kept when importing a 500-entry BibTeX file, as a user would.

The file is built from the first ``--unique`` records of the shared ACL 2020 catalog
(real titles, authors, years, venues, DOIs, abstracts): every fifth entry without its
abstract (so it becomes a metadata-only source), and ``--entries - --unique`` exact
repeats of earlier entries (duplicates in the file). A throwaway MARGINALIA_HOME; the
CLI is run as a user would (``marginalia import-bibtex FILE -w bench --no-fetch -q``),
then ``marginalia sources list -w bench --json`` counts what was kept, by kind.

Usage: uv run python eval/bench_import.py [--entries 500] [--unique 490] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "backend"))

from marginalia.sources.bibtex import to_bibtex  # noqa: E402
from marginalia.sources.candidate import Candidate  # noqa: E402

CATALOG = ROOT.parent / "shared" / "data" / "catalog" / "acl2020" / "papers.jsonl"


def build_bibtex(entries: int, unique: int) -> str:
    records: list[Candidate] = []
    with CATALOG.open(encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            if len(records) >= unique:
                break
            r = json.loads(line)
            if not r.get("title"):
                continue
            records.append(
                Candidate(
                    title=r["title"],
                    authors=list(r.get("authors") or []),
                    year=r.get("year"),
                    venue=r.get("venue"),
                    abstract=None if i % 5 == 4 else r.get("abstract"),
                    doi=r.get("doi"),
                    origin="bibtex",
                )
            )
    repeats = [records[i] for i in range(entries - len(records))]
    return to_bibtex(records + repeats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entries", type=int, default=500)
    parser.add_argument("--unique", type=int, default=490)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="marginalia-bench-import-"))
    env = {**os.environ, "MARGINALIA_HOME": str(home), "MARGINALIA_LOG_LEVEL": "WARNING"}
    for var in ("DATABASE_URL", "REDIS_URL"):
        env.pop(var, None)
    env.setdefault("MARGINALIA_LLM__PROVIDER", "offline")
    try:
        bib = home / "library.bib"
        bib.write_text(build_bibtex(args.entries, args.unique), encoding="utf-8")
        cli = [sys.executable, "-m", "marginalia"]
        subprocess.run([*cli, "db", "upgrade"], env=env, check=True, capture_output=True)
        t = time.perf_counter()
        run = subprocess.run(
            [*cli, "import-bibtex", str(bib), "-w", "bench", "--no-fetch", "-q"],
            env=env,
            capture_output=True,
            text=True,
        )
        wall = time.perf_counter() - t
        listed = subprocess.run(
            [*cli, "sources", "list", "-w", "bench", "--json"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        sources = json.loads(listed.stdout)
        kinds = Counter("abstract" if s["abstract_only"] else s["kind"] for s in sources)
        flat = " ".join(run.stdout.split())
        summary = (
            flat[flat.find(f"{args.entries} entries:") :] if "entries:" in flat else flat[-400:]
        )
        report: dict[str, Any] = {
            "entries": args.entries,
            "unique": args.unique,
            "exit_code": run.returncode,
            "wall_s": round(wall, 1),
            "entries_per_s": round(args.entries / wall, 2),
            "sources_kept": len(sources),
            "kinds": dict(kinds),
            "summary": summary,
            "cores": os.cpu_count(),
            "load_1min": round(os.getloadavg()[0], 2),
        }
        if args.json:
            print(json.dumps(report, indent=2))
        else:
            for k, v in report.items():
                print(f"{k:14} {v}")
            if run.returncode:
                print(run.stdout[-2000:], run.stderr[-2000:])
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
