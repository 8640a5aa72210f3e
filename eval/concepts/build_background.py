"""Build the background statistics the offline concept extractor ships with.

    uv run --frozen python eval/concepts/build_background.py \
        [--scifact ../shared/data/scifact/corpus.jsonl] \
        [--acl ../shared/data/catalog/acl2020/papers.jsonl] \
        [--vocab MARGINALIA_HOME/models/all-MiniLM-L6-v2-int8/tokenizer.json]

Writes ``backend/marginalia/knowledge/data/background.json.gz``: derived statistics only,
never the texts:

- ``n_docs`` and ``df``: how many background documents (SciFact's 5,183 abstracts and the
  ACL 2020 catalog's 2,105 titles+abstracts) contain each 1–3-word phrase (merge keys as
  :func:`marginalia.knowledge.concepts.normalize_concept` makes them, phrases cut at stop
  words and punctuation as the extractor cuts them), for phrases in at least
  ``--min-df`` documents;
- ``general``: the whole, alphabetic words of the embedding model's WordPiece vocabulary
  (uncased BERT, learnt on general English): a plain single word listed there is an
  everyday word, not a concept on its own.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "backend"))

from marginalia.knowledge.background import candidate_keys  # noqa: E402

SHARED = REPO.parent / "shared" / "data"
OUT = REPO / "backend" / "marginalia" / "knowledge" / "data" / "background.json.gz"


def texts(scifact: Path, acl: Path) -> list[str]:
    out: list[str] = []
    for line in scifact.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        out.append(f"{row.get('title') or ''}. {row.get('text') or ''}")
    for line in acl.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        out.append(f"{row.get('title') or ''}. {row.get('abstract') or ''}")
    return out


def general_words(vocab_path: Path) -> list[str]:
    vocab = json.loads(vocab_path.read_text(encoding="utf-8"))["model"]["vocab"]
    return sorted(w for w in vocab if w.isalpha() and w.isascii() and len(w) >= 2)


def main(argv: list[str] | None = None) -> int:
    home = Path(os.environ.get("MARGINALIA_HOME", Path.home() / ".marginalia"))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scifact", type=Path, default=SHARED / "scifact" / "corpus.jsonl")
    parser.add_argument("--acl", type=Path, default=SHARED / "catalog" / "acl2020" / "papers.jsonl")
    parser.add_argument(
        "--vocab", type=Path, default=home / "models" / "all-MiniLM-L6-v2-int8" / "tokenizer.json"
    )
    parser.add_argument("--min-df", type=int, default=3)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    docs = texts(args.scifact, args.acl)
    df: Counter[str] = Counter()
    for text in docs:
        df.update(set(candidate_keys(text)))
    kept = {k: n for k, n in sorted(df.items()) if n >= args.min_df}
    data = {
        "n_docs": len(docs),
        "min_df": args.min_df,
        "sources": ["scifact corpus.jsonl (title. text)", "acl2020 papers.jsonl (title. abstract)"],
        "df": kept,
        "general": general_words(args.vocab),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()
    args.out.write_bytes(gzip.compress(raw, compresslevel=9, mtime=0))
    print(
        f"{len(docs)} documents, {len(kept)} phrases with df >= {args.min_df}, "
        f"{len(data['general'])} general words -> {args.out} ({args.out.stat().st_size} bytes)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
