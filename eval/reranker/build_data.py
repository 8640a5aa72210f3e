"""Training data for the answer-sentence / passage cross-encoder (docs/EVAL.md, "A
cross-encoder trained here"). Runs in the product's environment (it parses the dev PDFs
with the product's parser and splits sentences with the product's splitter); the training
itself runs in ``eval/.venv-train`` (``eval/reranker/train.sh``).

Every example is a *group*: a query, one relevant text and 3 hard negatives, kind
``sentence`` (question → the sentence that answers it) or ``passage`` (question → a
retrieval chunk). Sources, all with a fixed seed (``--seed``):

- SciFact training claims (``../shared/data/scifact``; the 809 training queries only —
  the test split is not here and not guessed). A seeded 200 of them are **held out**
  (written to ``scifact_heldout.txt``, never trained on: the passage-rerank measurement)
  and 60 more (``scifact_valid.txt``) are the validation groups the training loop reports
  and the set the rerank stage's blend is chosen on. Passage groups: claim
  → a cited abstract, negatives the top BM25 abstracts not cited. Sentence groups: claim
  → a rationale sentence (the ``metadata`` evidence indices), negatives the other
  sentences of the same abstract and one of a BM25-near abstract. Claims are turned
  into questions by templates ("Is it true that …?", a number replaced by "How many"/
  "What share", …) so that question form does not decide relevance.
- ACL 2020 catalog (``catalog/acl2020``), SPECTER's and S2ORC's own records excluded
  (they are dev-set papers): title (or a question around it) → abstract, negatives the
  BM25-nearest other abstracts; title → the abstract's contribution sentence ("we
  propose/present/introduce …"), negatives the abstract's other sentences.
- unarXive (``catalog/unarxive``), the 12 papers of the QA test corpus excluded
  (``eval/qa/render_unarxive.py`` ``TEST_PAPERS``): a specific section heading → a paragraph
  of that section, negatives paragraphs of other sections of the same paper; a citing
  sentence with its citation marks removed → the cited entry's title is not used (the
  entries carry no abstract).
- ``eval/qa/dev.jsonl``, the ``fit`` half only (``split_items``): the question → each
  gold quote, negatives sentences of the same PDF — half the most word-sharing ones,
  half at random; six groups per item. The ``eval`` half and ``test.jsonl`` are not read.

    uv run --frozen python eval/reranker/build_data.py --out eval/reranker/data
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import random
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "data"
SEED = 32
HELDOUT = 200
VALID = 60
NEGATIVES = 3
#: Dev-set papers whose catalog records are left out of training.
DEV_TITLES = ("specter", "s2orc")

STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "from",
        "by",
        "with",
        "and",
        "or",
        "but",
        "not",
        "no",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "as",
        "we",
        "our",
        "us",
        "they",
        "their",
        "there",
        "here",
        "than",
        "then",
        "so",
        "such",
        "can",
        "could",
        "may",
        "might",
        "will",
        "would",
        "should",
        "do",
        "does",
        "did",
        "has",
        "have",
        "had",
        "which",
        "who",
        "whom",
        "what",
        "when",
        "where",
        "why",
        "how",
        "into",
        "over",
        "under",
        "about",
        "between",
        "also",
        "more",
        "most",
        "other",
        "some",
        "any",
        "all",
        "each",
        "both",
        "very",
        "only",
        "same",
        "own",
        "too",
        "s",
        "t",
        "just",
    ]
)
WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> list[str]:
    return [w for w in WORD.findall(text.lower()) if w not in STOP and len(w) > 1]


def split_sentences(text: str) -> list[str]:
    """Abstract sentences (SciFact's evidence indices count them this way)."""
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z0-9(\[])", text.strip())
    return [p.strip() for p in parts if p.strip()]


class BM25:
    """A small BM25 (k1 0.9, b 0.4) over a list of texts, for mining hard negatives."""

    def __init__(self, texts: Sequence[str], k1: float = 0.9, b: float = 0.4):
        self.docs = [Counter(words(t)) for t in texts]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.avg = sum(self.lengths) / max(len(self.lengths), 1)
        df: Counter[str] = Counter()
        self.postings: dict[str, list[int]] = defaultdict(list)
        for i, d in enumerate(self.docs):
            for w in d:
                df[w] += 1
                self.postings[w].append(i)
        n = len(self.docs)
        self.idf = {w: math.log(1 + (n - f + 0.5) / (f + 0.5)) for w, f in df.items()}
        self.k1, self.b = k1, b

    def top(self, query: str, k: int) -> list[int]:
        scores: dict[int, float] = defaultdict(float)
        for w in set(words(query)):
            for i in self.postings.get(w, ()):
                tf = self.docs[i][w]
                norm = self.k1 * (1 - self.b + self.b * self.lengths[i] / self.avg)
                scores[i] += self.idf[w] * tf * (self.k1 + 1) / (tf + norm)
        return [i for i, _ in sorted(scores.items(), key=lambda p: -p[1])[:k]]


# ------------------------------------------------------------------ question templates

NUMBER = re.compile(r"^(?:\d[\d.,]*\s*%|\d[\d.,]*(?:\s+(?:in|of|out of)\s+\d[\d.,]*)?)")


def _lower_first(text: str) -> str:
    if len(text) > 1 and text[0].isupper() and not text[1].isupper():
        return text[0].lower() + text[1:]
    return text


def claim_questions(claim: str) -> list[str]:
    """The claim and question forms of it (which ones apply depends on its wording)."""
    body = claim.strip().rstrip(".")
    forms = [claim.strip(), f"Is it true that {_lower_first(body)}?"]
    forms.append(f"Is there evidence that {_lower_first(body)}?")
    m = NUMBER.match(body)
    if m:
        rest = body[m.end() :].strip()
        rest = re.sub(r"^of\s+", "", rest)
        lead = "What share of" if "%" in m.group() else "How many"
        forms.append(f"{lead} {rest}?")
    else:
        forms.append(f"What is known about whether {_lower_first(body)}?")
    return forms


def title_questions(title: str) -> list[str]:
    t = title.strip().rstrip(".")
    return [t, f"What is known about {_lower_first(t)}?", f"Which work studies {_lower_first(t)}?"]


CONTRIBUTION = re.compile(
    r"\b(?:we|this paper|this work|in this paper)\b[^.]{0,40}\b"
    r"(?:propose|present|introduce|describe|develop|show|investigate|study|explore)",
    re.IGNORECASE,
)


# ------------------------------------------------------------------ sources


def group(source: str, kind: str, query: str, pos: str, negs: Iterable[str]) -> dict[str, Any]:
    return {"source": source, "kind": kind, "query": query, "pos": pos, "negs": list(negs)}


def scifact_split(rng: random.Random) -> tuple[list[str], list[str], list[str]]:
    ids = sorted(json.loads(line)["_id"] for line in (SHARED / "scifact" / "queries.jsonl").open())
    rng.shuffle(ids)
    return ids[VALID + HELDOUT :], ids[HELDOUT : HELDOUT + VALID], sorted(ids[:HELDOUT], key=int)


def scifact_groups(query_ids: Sequence[str], rng: random.Random, variants: int) -> list[dict]:
    base = SHARED / "scifact"
    corpus = {}
    for line in (base / "corpus.jsonl").open():
        d = json.loads(line)
        corpus[d["_id"]] = d
    queries = {q["_id"]: q for q in map(json.loads, (base / "queries.jsonl").open())}
    qrels: dict[str, set[str]] = defaultdict(set)
    for line in list((base / "qrels" / "train.tsv").open())[1:]:
        qid, did, score = line.split("\t")
        if int(score) > 0:
            qrels[qid].add(did)
    doc_ids = sorted(corpus)
    passages = [f"{corpus[d]['title']}\n\n{corpus[d]['text']}" for d in doc_ids]
    bm25 = BM25(passages)
    out = []
    for qid in query_ids:
        q = queries[qid]
        relevant = qrels.get(qid, set())
        near = [doc_ids[i] for i in bm25.top(q["text"], 40) if doc_ids[i] not in relevant]
        forms = claim_questions(q["text"])
        for did in sorted(relevant):
            for v in range(variants):
                negs = rng.sample(near[:20], min(NEGATIVES, len(near[:20])))
                text = forms[0] if v == 0 else rng.choice(forms[1:])
                out.append(
                    group(
                        "scifact",
                        "passage",
                        text,
                        passages[doc_ids.index(did)],
                        (passages[doc_ids.index(n)] for n in negs),
                    )
                )
        for did, evidence in sorted(q["metadata"].items()):
            if did not in corpus:
                continue
            sents = split_sentences(corpus[did]["text"])
            rationale = {i for e in evidence for i in e["sentences"] if i < len(sents)}
            others = [s for i, s in enumerate(sents) if i not in rationale and len(s) > 30]
            far = [split_sentences(corpus[n]["text"]) for n in near[:5]]
            far_sents = [s for ss in far for s in ss if len(s) > 30]
            for i in sorted(rationale):
                for v in range(variants):
                    negs = rng.sample(others, min(NEGATIVES - 1, len(others)))
                    negs += rng.sample(far_sents, min(NEGATIVES - len(negs), len(far_sents)))
                    text = forms[0] if v == 0 else rng.choice(forms[1:])
                    out.append(group("scifact", "sentence", text, sents[i], negs))
    return out


def acl_groups(rng: random.Random) -> list[dict]:
    rows = [json.loads(line) for line in (SHARED / "catalog" / "acl2020" / "papers.jsonl").open()]
    rows = [
        r
        for r in rows
        if r.get("abstract")
        and r.get("title")
        and not any(t in r["title"].lower() for t in DEV_TITLES)
    ]
    abstracts = [r["abstract"] for r in rows]
    bm25 = BM25(abstracts)
    out = []
    for i, r in enumerate(rows):
        forms = title_questions(r["title"])
        near = [j for j in bm25.top(r["title"], 15) if j != i]
        negs = rng.sample(near, min(NEGATIVES, len(near)))
        if len(negs) < NEGATIVES:
            continue
        out.append(
            group("acl", "passage", rng.choice(forms), r["abstract"], (abstracts[j] for j in negs))
        )
        sents = split_sentences(r["abstract"])
        pos = next((s for s in sents if CONTRIBUTION.search(s)), None)
        others = [s for s in sents if s is not pos and len(s) > 30]
        if pos is not None and len(others) >= NEGATIVES:
            out.append(
                group("acl", "sentence", rng.choice(forms), pos, rng.sample(others, NEGATIVES))
            )
    return out


GENERIC_HEADINGS = frozenset(
    [
        "abstract",
        "introduction",
        "conclusion",
        "conclusions",
        "discussion",
        "results",
        "related",
        "work",
        "background",
        "method",
        "methods",
        "methodology",
        "experiments",
        "experiment",
        "evaluation",
        "acknowledgments",
        "acknowledgements",
        "appendix",
        "references",
        "preliminaries",
        "overview",
        "summary",
        "future",
    ]
)


def unarxive_groups(rng: random.Random, excluded: set[str]) -> list[dict]:
    out = []
    path = SHARED / "catalog" / "unarxive" / "arXiv_src_2212_086.jsonl"
    for line in path.open():
        paper = json.loads(line)
        if paper["paper_id"] in excluded:
            continue
        body = paper["body_text"]
        if isinstance(body, str):
            body = ast.literal_eval(body)
        by_section: dict[str, list[str]] = defaultdict(list)
        for para in body:
            text = re.sub(r"\{\{(?:formula|cite|figure|table):[^}]*\}\}", " ", para.get("text", ""))
            text = re.sub(r"\s+", " ", text).strip()
            if para.get("content_type") == "paragraph" and len(text.split()) >= 25:
                by_section[(para.get("section") or "").strip()].append(text)
        headings = [
            h for h in by_section if len(words(h)) >= 2 and not set(words(h)) <= GENERIC_HEADINGS
        ]
        for h in headings:
            others = [p for s, ps in by_section.items() if s != h for p in ps]
            if len(others) < NEGATIVES:
                continue
            for para in by_section[h][:2]:
                out.append(
                    group(
                        "unarxive",
                        "passage",
                        h,
                        " ".join(para.split()[:180]),
                        (" ".join(p.split()[:180]) for p in rng.sample(others, NEGATIVES)),
                    )
                )
    return out


def dev_groups(rng: random.Random, per_item: int = 6) -> list[dict]:
    from marginalia.answer.prose import is_prose
    from marginalia.evaluation.qa_scoring import contains_quote, load_qa_set, split_items
    from marginalia.ingest import parse_document
    from marginalia.knowledge.text import sentence_spans

    items = [
        it
        for it in split_items(load_qa_set(REPO / "eval" / "qa" / "dev.jsonl"), "fit")
        if it.answerable and it.follow_up_of is None and it.doc
    ]
    sentences_of: dict[str, list[str]] = {}
    out = []
    for it in items:
        if it.doc not in sentences_of:
            path = SHARED / "pdfs" / it.doc
            parsed = parse_document(
                path.read_bytes(), path.name, max_bytes=200 * 2**20, max_pages=1000
            )
            sents = []
            for page in parsed.pages:
                for a, b in sentence_spans(page.text):
                    s = " ".join(page.text[a:b].split())
                    if is_prose(s) and 6 <= len(s.split()) <= 80:
                        sents.append(s)
            sentences_of[it.doc] = sents
        sents = sentences_of[it.doc]
        others = [
            s
            for s in sents
            if not any(contains_quote(s, g) or contains_quote(g, s) for g in it.gold_quotes)
        ]
        qwords = set(words(it.question))
        ranked = sorted(others, key=lambda s: -len(qwords & set(words(s))))
        for quote in it.gold_quotes:
            for _ in range(per_item):
                negs = rng.sample(ranked[:15], 2) + rng.sample(others, 1)
                out.append(group("dev-fit", "sentence", it.question, " ".join(quote.split()), negs))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=REPO / "eval" / "reranker" / "data")
    ap.add_argument("--seed", type=int, default=SEED)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)

    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "render", REPO / "eval" / "qa" / "render_unarxive.py"
    )
    assert spec is not None and spec.loader is not None
    render = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(render)
    excluded = set(render.TEST_PAPERS)

    train_ids, valid_ids, heldout_ids = scifact_split(rng)
    (REPO / "eval" / "reranker" / "scifact_heldout.txt").write_text("\n".join(heldout_ids) + "\n")
    (REPO / "eval" / "reranker" / "scifact_valid.txt").write_text(
        "\n".join(sorted(valid_ids, key=int)) + "\n"
    )
    train = scifact_groups(train_ids, rng, variants=2)
    train += acl_groups(rng)
    train += unarxive_groups(rng, excluded)
    train += dev_groups(rng)
    valid = scifact_groups(valid_ids, rng, variants=1)
    rng.shuffle(train)
    for name, rows in (("train", train), ("valid", valid)):
        with (args.out / f"{name}.jsonl").open("w") as fh:
            for row in rows:
                fh.write(json.dumps(row) + "\n")
    counts = Counter((g["source"], g["kind"]) for g in train)
    summary = {
        "seed": args.seed,
        "train_groups": len(train),
        "valid_groups": len(valid),
        "heldout_scifact_queries": len(heldout_ids),
        "by_source": {f"{s}/{k}": n for (s, k), n in sorted(counts.items())},
    }
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
