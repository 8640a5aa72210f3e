#!/usr/bin/env python3
"""Validate eval/research/research-topics.jsonl against the ACL 2020 catalog.

Checks: every line is JSON with id/topic/split/relevant; split is dev|heldout (3 dev, 5 heldout);
topic ids unique; every relevant id exists in the catalog's `id` field, no duplicates within a topic,
and the stored title equals the catalog title. Exit code 1 on any problem.
Usage: python3 verify.py [gold.jsonl] [catalog.jsonl]
"""

import collections
import json
import pathlib
import sys

here = pathlib.Path(__file__).resolve().parent
gold = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else here / "research-topics.jsonl"
catp = (
    pathlib.Path(sys.argv[2])
    if len(sys.argv) > 2
    else pathlib.Path(__file__).resolve().parents[3] / "shared/data/catalog/acl2020/papers.jsonl"
)

cat = {}
for line in catp.open(encoding="utf-8"):
    if line.strip():
        r = json.loads(line)
        cat[r["id"]] = r

errors, seen, splits = [], set(), collections.Counter()
for n, line in enumerate(gold.open(encoding="utf-8"), 1):
    if not line.strip():
        continue
    try:
        t = json.loads(line)
    except json.JSONDecodeError as e:
        errors.append(f"line {n}: bad JSON: {e}")
        continue
    for k in ("id", "topic", "split", "relevant"):
        if k not in t:
            errors.append(f"line {n}: missing {k}")
    tid = t.get("id")
    if tid in seen:
        errors.append(f"{tid}: duplicate topic id")
    seen.add(tid)
    if t.get("split") not in ("dev", "heldout"):
        errors.append(f"{tid}: bad split {t.get('split')!r}")
    splits[t.get("split")] += 1
    rel = t.get("relevant", [])
    ids = [r.get("id") for r in rel]
    dup = [i for i, c in collections.Counter(ids).items() if c > 1]
    if dup:
        errors.append(f"{tid}: duplicate relevant ids {dup}")
    for r in rel:
        i = r.get("id")
        if i not in cat:
            errors.append(f"{tid}: id {i!r} not in catalog")
        elif r.get("title") != cat[i]["title"]:
            errors.append(f"{tid}: title mismatch for {i}")
    print(f"{tid:34s} {t.get('split'):8s} {len(rel):3d} relevant")
if splits != collections.Counter({"heldout": 5, "dev": 3}):
    errors.append(f"split counts {dict(splits)} (want dev 3, heldout 5)")
if errors:
    print("\n".join(["FAIL", *errors]))
    sys.exit(1)
print(f"OK: {len(seen)} topics, all ids found in {catp} ({len(cat)} records)")
