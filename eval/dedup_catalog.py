"""Dedup false merges on a real catalog (issue 34, part 2).

Feeds the 2,105 distinct papers of ``../shared/data/catalog/acl2020/papers.jsonl`` plus
the pair "Attention is not Explanation" (Jain & Wallace, NAACL 2019) / "Attention is not
not Explanation" (Wiegreffe & Pinter, EMNLP 2019; given by title, authors and year, no
abstract) through the dedup cascade one after another, as an import into one workspace
would, and counts merges: every one is false (the anthology lists each paper once).
Twice: with the DOIs, and without them (a BibTeX file without ``doi`` fields — then the
embedding layer decides what titles do not). Each with the rules before issue 34 (title
Jaccard and embedding cosine alone) and with the contradiction checks
(:func:`marginalia.ingest.dedup.contradiction`).

It also checks that true duplicates still merge: for every catalog paper a re-typed copy
(title upper-cased with other punctuation, authors as "Surname, Given", no DOI) must
match its original by title; so must a copy without its subtitle ("X: Y" cited as "X",
when X has three title words or more), same authors, no DOI.

    uv run --frozen python eval/dedup_catalog.py [--catalog PATH] [--no-embedding] [--json OUT]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

from marginalia.ingest.dedup import (
    MIN_TITLE_WORDS,
    DedupRecord,
    embedding_layer_applies,
    identity_keys,
    match_cheap_layers,
)
from marginalia.knowledge.text import jaccard, title_tokens

ROOT = Path(__file__).resolve().parents[1]
CATALOG = ROOT.parent / "shared" / "data" / "catalog" / "acl2020" / "papers.jsonl"
PAIR = [
    {
        "title": "Attention is not Explanation",
        "authors": ["Sarthak Jain", "Byron C. Wallace"],
        "year": 2019,
        "doi": "10.18653/v1/N19-1357",
    },
    {
        "title": "Attention is not not Explanation",
        "authors": ["Sarah Wiegreffe", "Yuval Pinter"],
        "year": 2019,
        "doi": "10.18653/v1/D19-1002",
    },
]


def record(paper: dict[str, Any], *, with_doi: bool) -> DedupRecord:
    return DedupRecord(
        id=uuid.uuid4(),
        title=paper.get("title"),
        keys=identity_keys(doi=paper.get("doi")) if with_doi else frozenset(),
        authors=tuple(paper.get("authors") or ()),
        year=paper.get("year"),
    )


def title_match_before(new: DedupRecord, old: DedupRecord, threshold: float) -> bool:
    """The title layer as it was before issue 34: Jaccard alone."""
    a, b = title_tokens(new.title), title_tokens(old.title)
    if len(a) < MIN_TITLE_WORDS or len(b) < MIN_TITLE_WORDS:
        return False
    return jaccard(a, b) >= threshold


def embedding_before(new: DedupRecord, old: DedupRecord) -> bool:
    """The embedding layer's condition before issue 34: not both with a scholarly id."""
    return not (new.has_scholarly_id and old.has_scholarly_id)


def retyped(paper: dict[str, Any]) -> DedupRecord:
    """The same paper typed again elsewhere: other case and punctuation, "Surname, Given"
    authors, no DOI."""
    title = str(paper["title"]).upper().replace(":", " -")
    authors = tuple(
        f"{a.split()[-1]}, {' '.join(a.split()[:-1])}" if len(a.split()) > 1 else a
        for a in paper.get("authors") or ()
    )
    return DedupRecord(
        id=uuid.uuid4(), title=title, keys=frozenset(), authors=authors, year=paper.get("year")
    )


def run(
    records: list[DedupRecord],
    vectors: np.ndarray | None,
    *,
    before: bool,
    threshold: float,
    cosine: float,
) -> list[tuple[str, str, str]]:
    """Each record against those kept before it: identity, title, then (with vectors)
    embedding. Returns the merges as (new title, kept title, layer)."""
    kept: list[int] = []
    merges: list[tuple[str, str, str]] = []
    for i, rec in enumerate(records):
        others = [records[k] for k in kept]
        layer, hit = None, None
        if before:
            hit = next((k for k in kept if rec.keys & records[k].keys), None)
            layer = "identity" if hit is not None else None
            if hit is None:
                hit = next(
                    (k for k in kept if title_match_before(rec, records[k], threshold)), None
                )
                layer = "title" if hit is not None else None
        else:
            match = match_cheap_layers(rec, others, title_threshold=threshold)
            if match is not None:
                hit = next(k for k in kept if records[k].id == match.existing_id)
                layer = match.layer
        if hit is None and vectors is not None and kept:
            sims = vectors[kept] @ vectors[i]
            for j in np.argsort(-sims):
                if sims[j] < cosine:
                    break
                other = records[kept[int(j)]]
                applies = (
                    embedding_before(rec, other) if before else embedding_layer_applies(rec, other)
                )
                if applies:
                    hit, layer = kept[int(j)], "embedding"
                    break
        if hit is None:
            kept.append(i)
        else:
            merges.append((str(rec.title), str(records[hit].title), str(layer)))
    return merges


def embed(texts: list[str]) -> np.ndarray:
    from marginalia.config import get_settings
    from marginalia.embed import FastEmbedEmbedder
    from marginalia.knowledge.vectors import embed_leads

    settings = get_settings()
    embedder = FastEmbedEmbedder.from_settings(settings.embedding, settings.models_dir)
    return asyncio.run(embed_leads(embedder, texts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", type=Path, default=CATALOG)
    parser.add_argument("--threshold", type=float, default=0.5, help="ingest.dedup_title_jaccard")
    parser.add_argument("--cosine", type=float, default=0.7, help="ingest.dedup_embedding")
    parser.add_argument("--no-embedding", action="store_true", help="layers 1-2 only")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    args = parser.parse_args()
    papers = [json.loads(line) for line in args.catalog.read_text().splitlines() if line.strip()]
    everything = papers + PAIR
    started = time.perf_counter()
    vectors = None
    if not args.no_embedding:
        # What the research/import dedup stage embeds: title and abstract, lead piece.
        texts = [f"{p['title']}. {p.get('abstract') or ''}".strip(" .") for p in everything]
        vectors = embed(texts)
    figures: dict[str, Any] = {"catalog": args.catalog.name, "records": len(everything)}
    for with_doi in (True, False):
        records = [record(p, with_doi=with_doi) for p in everything]
        for before in (True, False):
            merges = run(
                records, vectors, before=before, threshold=args.threshold, cosine=args.cosine
            )
            name = f"{'with' if with_doi else 'without'}_doi_{'before' if before else 'after'}"
            figures[name] = {
                "false_merges": len(merges),
                "by_layer": {
                    layer: sum(1 for m in merges if m[2] == layer)
                    for layer in ("identity", "title", "embedding")
                },
                "pair_merged": any("Attention is not" in m[0] for m in merges),
                "examples": merges[:5],
            }
    missed = [
        str(paper["title"])
        for paper in papers
        if match_cheap_layers(
            retyped(paper), [record(paper, with_doi=True)], title_threshold=args.threshold
        )
        is None
    ]
    figures["true_duplicates"] = {
        "copies": len(papers),
        "missed": len(missed),
        "examples": missed[:5],
    }
    # The same paper cited without its subtitle ("X: Y" as "X"), same authors, no DOI.
    shortened = [
        (paper, dataclasses.replace(record(paper, with_doi=False), title=head))
        for paper in papers
        if ":" in paper["title"]
        and len(title_tokens(head := paper["title"].split(":")[0])) >= MIN_TITLE_WORDS
    ]
    lost = [
        str(paper["title"])
        for paper, short in shortened
        if match_cheap_layers(short, [record(paper, with_doi=True)], title_threshold=args.threshold)
        is None
    ]
    figures["subtitle_dropped"] = {
        "copies": len(shortened),
        "missed": len(lost),
        "examples": lost[:5],
    }
    figures["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(figures, indent=2, ensure_ascii=False))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
