"""The offline extractive engine: an :class:`Extraction` without any model.

Everything it returns is taken from the source's own text; nothing is paraphrased or
invented:

* **summary / tldr** — the abstract (tldr: its first one or two sentences); without an
  abstract, the most central sentences by TextRank (TF-IDF cosine sentence graph, PageRank),
  in document order;
* **claims** — sentences with finding cues ("we show", "results indicate", "outperforms",
  "p < 0.05", "is associated with" …) from the first :data:`CLAIM_CHUNK_LIMIT` chunks; each
  carries its ``chunk_index`` and ``quote`` = the exact sentence, a verbatim substring of
  that chunk (claims from a separately supplied abstract have ``chunk_index`` None and quote
  the abstract verbatim);
* **key_results** — the strongest finding sentences of results/discussion/conclusion
  sections (any chunk); the strongest claims when the source has no such section;
* **limitations** — sentences with limitation cues; **datasets** — capitalised names next to
  "dataset/corpus/benchmark/treebank"; **methodology** — the first sentences of the first
  methods section; **thesis** — the abstract's "we propose/present/introduce/show" sentence;
  **contributions** — "we propose/introduce/release …" sentences of the abstract and
  introduction;
* **concepts** — keyphrases (1–4-word candidates from a stop-word/punctuation split, scored
  by frequency × position with title and abstract boosted, nested fragments dropped) and
  acronyms with their long forms (Schwartz–Hearst), top :data:`MAX_CONCEPTS`. ``level`` is a
  provisional 1, ``parent`` None and ``related`` empty: the engine does not guess relations.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np

from marginalia.knowledge.acronyms import colon_definition, detect_acronyms
from marginalia.knowledge.concept_graph import weighted_pagerank
from marginalia.knowledge.datasets import detect_datasets
from marginalia.knowledge.keyphrases import extract_keyphrases
from marginalia.knowledge.schemas import ExtractedClaim, Extraction
from marginalia.knowledge.sentences import (
    ChunkText,
    SourceSentence,
    collect_sentences,
    dedupe_key,
    shown,
    usable,
)
from marginalia.knowledge.source_markup import without_markup
from marginalia.knowledge.text import (
    content_tokens,
    display_text,
    normalize_whitespace,
    vocabulary,
)

CLAIM_CHUNK_LIMIT = 15
"""Claims are taken from the first 15 chunks only (DESIGN §6)."""
MAX_CLAIMS = 20
MAX_KEY_RESULTS = 5
MAX_LIMITATIONS = 5
MAX_CONTRIBUTIONS = 5
SUMMARY_SENTENCES = 5
TEXTRANK_MAX_SENTENCES = 400

RESULT_SECTIONS = frozenset({"results", "discussion", "conclusion"})


# ---------------------------------------------------------------------------------------------
# Cues
# ---------------------------------------------------------------------------------------------

_I = re.IGNORECASE
_AMOUNT = (
    r"(?:up to\s+|about\s+|nearly\s+|over\s+|more than\s+|approximately\s+|~\s*)?"
    r"(?:\d|an? (?:large|wide|significant|substantial|considerable) margin)"
)
_FINDING_CUES: tuple[tuple[re.Pattern[str], float], ...] = (
    (
        re.compile(
            r"\b(?:we|this (?:paper|work|study))\s+(?:\w+ly\s+)?"
            r"(?:show|shows|find|finds|found|demonstrate|demonstrates|observe|observed|report|"
            r"confirm|establish|prove)\b",
            _I,
        ),
        2.0,
    ),
    (
        re.compile(
            r"\b(?:results?|experiments?|analys[ie]s|findings|evaluations?|data|evidence)\s+"
            r"(?:\w+ly\s+)?(?:show|shows|showed|demonstrate[sd]?|indicate[sd]?|suggest(?:s|ed)?|"
            r"reveal(?:s|ed)?|confirm(?:s|ed)?)\b",
            _I,
        ),
        2.0,
    ),
    (re.compile(r"\boutperform(?:s|ed|ing)?\b", _I), 2.0),
    (re.compile(r"\bimprove[sd]?\b[^.;]{0,80}?\bby\s+" + _AMOUNT, _I), 2.0),
    (re.compile(r"\bimprovements? (?:of|over)\b", _I), 1.5),
    (re.compile(r"\bsignificant(?:ly)?\b", _I), 1.0),
    (re.compile(r"\bachiev(?:e|es|ed|ing)\b", _I), 1.5),
    (re.compile(r"\bstate[- ]of[- ]the[- ]art\b", _I), 1.5),
    (re.compile(r"\bp\s*[<=≤]\s*0?\.\d+", _I), 2.0),
    (
        re.compile(r"\b(?:is|are|was|were)\s+(?:\w+ly\s+)?(?:associated|correlated)\s+with\b", _I),
        2.0,
    ),
    (
        re.compile(
            r"\b(?:increase[sd]?|decrease[sd]?|reduce[sd]?)\b[^.;]{0,60}?\bby\s+" + _AMOUNT, _I
        ),
        1.5,
    ),
    (re.compile(r"\b(?:odds ratio|hazard ratio|confidence interval|95% ci)\b", _I), 1.5),
    (re.compile(r"\d+(?:\.\d+)?\s?%"), 0.5),
    (re.compile(r"\bcompared (?:to|with)\b", _I), 0.5),
)
_CLAIM_MIN_SCORE = 1.0
_OWN_RE = re.compile(
    r"\b(?:we|our|this (?:paper|work|study)|(?:the )?proposed|results?|experiments?)\b", _I
)
_NUMBER_RE = re.compile(r"\d")
_ROADMAP_RE = re.compile(r"^\s*(?:in |see )?(?:section|sec\.|chapter|appendix)\s*\d", _I)

_LIMITATION_RE = re.compile(
    r"\blimitations?\b|\blimited (?:to|by|in)\b|\bshortcomings?\b|\bdrawbacks?\b|\bcaveats?\b"
    r"|\bfuture work\b|\bwe leave\b|\bleft for future\b|\bremains? (?:unclear|open|challenging)\b"
    r"|\bdoes not (?:generali[sz]e|scale|account|capture|address)\b"
    r"|\bdo not (?:generali[sz]e|scale|account|capture|address)\b"
    r"|\bfail(?:s|ed)? to\b|\bunable to\b|\brestricted to\b|\bsmall sample\b",
    _I,
)
_THESIS_RE = re.compile(
    r"\b(?:we|this (?:paper|work|study|article|report))\s+(?:\w+ly\s+)?"
    r"(?:propose|present|introduce|show|describe|develop|demonstrate|report)(?:s|d|ed)?\b",
    _I,
)
_CONTRIBUTION_RE = re.compile(
    r"\b(?:we|this (?:paper|work|study))\s+(?:\w+ly\s+)?"
    r"(?:propose|introduce|present|release|contribute|develop|design|construct|create|"
    r"collect|build)(?:s|d|ed)?\b|\b(?:our|main|key) contributions?\b",
    _I,
)


# ---------------------------------------------------------------------------------------------
# Sentences
# ---------------------------------------------------------------------------------------------


def finding_score(sentence: str) -> float:
    """Sum of the finding-cue weights matched by ``sentence`` (0.0 when none)."""
    if sentence.rstrip().endswith("?") or _ROADMAP_RE.search(sentence):
        return 0.0
    weights = [w for pat, w in _FINDING_CUES if pat.search(sentence)]
    if not any(w >= _CLAIM_MIN_SCORE for w in weights):
        return 0.0
    # weak cues ("achieves", "significant", "state of the art") alone describe background
    # unless the sentence is the source's own finding or reports a number
    if max(weights) < 2.0 and not (_OWN_RE.search(sentence) or _NUMBER_RE.search(sentence)):
        return 0.0
    return sum(weights)


# ---------------------------------------------------------------------------------------------
# TextRank
# ---------------------------------------------------------------------------------------------


def textrank(sentences: Sequence[str]) -> list[float]:
    """Centrality of each sentence: PageRank over a TF-IDF cosine similarity graph."""
    n = len(sentences)
    if n == 0:
        return []
    docs = [content_tokens(s) for s in sentences]
    vocab: dict[str, int] = {}
    for toks in docs:
        for t in toks:
            vocab.setdefault(t, len(vocab))
    if not vocab:
        return [1.0 / n] * n
    tf = np.zeros((n, len(vocab)), dtype=np.float64)
    for i, toks in enumerate(docs):
        for t in toks:
            tf[i, vocab[t]] += 1.0
    df = (tf > 0).sum(axis=0)
    idf = np.log((1.0 + n) / (1.0 + df)) + 1.0
    mat = tf * idf
    norms = np.linalg.norm(mat, axis=1)
    mat = np.divide(mat, norms[:, None], out=np.zeros_like(mat), where=norms[:, None] > 0)
    sim = mat @ mat.T
    np.fill_diagonal(sim, 0.0)
    edges = ((i, j, float(sim[i, j])) for i in range(n) for j in range(i + 1, n) if sim[i, j] > 0)
    ranks = weighted_pagerank(n, edges)
    return [float(r) for r in ranks]


def _central_sentences(candidates: Sequence[SourceSentence], k: int) -> list[SourceSentence]:
    if not candidates:
        return []
    ranks = textrank([c.text for c in candidates])
    top = sorted(range(len(candidates)), key=lambda i: (-round(ranks[i], 12), i))[:k]
    return [candidates[i] for i in sorted(top)]


# ---------------------------------------------------------------------------------------------
# Acronyms (Schwartz & Hearst 2003)
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# Keyphrases
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# Datasets
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# The engine
# ---------------------------------------------------------------------------------------------


def _abstract_text(abstract: str | None, chunks: Sequence[ChunkText]) -> tuple[str | None, bool]:
    """The abstract, and whether it came from the chunks (then its claims cite chunks)."""
    if abstract and abstract.strip():
        return abstract.strip(), False
    parts = [c.text.strip() for c in chunks if c.section_type == "abstract" and c.text.strip()]
    if parts:
        return "\n\n".join(parts), True
    return None, False


def _tldr(sentences: Sequence[str]) -> str:
    if not sentences:
        return ""
    first = normalize_whitespace(sentences[0])
    if len(sentences) > 1 and len(first) < 120:
        second = normalize_whitespace(sentences[1])
        if len(first) + len(second) + 1 <= 350:
            return f"{first} {second}"
    return first


def source_sentences(
    title: str | None, abstract: str | None, ordered: Sequence[ChunkText]
) -> tuple[list[SourceSentence], str | None, bool]:
    """The source's sentences as the extractor reads them (the abstract given apart, or
    found among the chunks), its abstract text, and whether that came from the chunks."""
    abstract_text, abstract_from_chunks = _abstract_text(abstract, ordered)
    own_abstract = None if abstract_from_chunks else abstract_text
    return collect_sentences(title, own_abstract, ordered), abstract_text, abstract_from_chunks


def source_acronyms(sentences: Sequence[SourceSentence]) -> dict[str, str]:
    """Short forms the source defines → long forms (the first definition wins)."""
    acronyms: dict[str, str] = {}
    for s in sentences:
        if s.origin == "title":
            pair = colon_definition(s.text)  # "S2ORC: The Semantic Scholar Open Research Corpus"
            if pair:
                acronyms.setdefault(*pair)
            continue
        if s.matter != "body":
            continue
        for short, long in detect_acronyms(without_markup(s.text)).items():
            acronyms.setdefault(short, long)
    return acronyms


def extract_offline(
    title: str | None,
    abstract: str | None,
    chunks: Sequence[ChunkText],
    *,
    claim_chunk_limit: int = CLAIM_CHUNK_LIMIT,
) -> Extraction:
    """Fill an :class:`Extraction` extractively from the source's own text (deterministic).

    Claims come from the first ``claim_chunk_limit`` chunks (``knowledge.claim_chunk_limit``)."""
    ordered = sorted(chunks, key=lambda c: c.index)
    sentences, abstract_text, abstract_from_chunks = source_sentences(title, abstract, ordered)
    vocab = vocabulary(c.text for c in ordered)
    chunk_sents = [s for s in sentences if s.origin == "chunk"]
    abstract_sents = (
        [s.text for s in chunk_sents if s.section == "abstract"]
        if abstract_from_chunks
        else [s.text for s in sentences if s.origin == "abstract"]
    )

    # summary and tldr
    if abstract_text:
        summary = display_text(abstract_text, vocab)
        tldr = _tldr(abstract_sents)
    else:
        pool = [s for s in chunk_sents if usable(s.text)][:TEXTRANK_MAX_SENTENCES]
        central = _central_sentences(pool, SUMMARY_SENTENCES)
        summary = " ".join(normalize_whitespace(s.text) for s in central)
        if pool:
            ranks = textrank([s.text for s in pool])
            top2 = sorted(range(len(pool)), key=lambda i: (-round(ranks[i], 12), i))[:2]
            tldr = _tldr([pool[i].text for i in sorted(top2)])
        else:
            tldr = normalize_whitespace(title or "")
        if not summary:
            summary = tldr

    # claims: the first claim_chunk_limit chunks (plus a separately supplied abstract)
    claim_chunks = {c.index for c in ordered[:claim_chunk_limit]}
    scored: list[tuple[float, int, ExtractedClaim]] = []
    seen: set[str] = set()
    chunk_keys = {dedupe_key(s.text) for s in chunk_sents if s.chunk_index in claim_chunks}
    for s in sentences:
        if s.origin == "title" or not usable(s.text):
            continue
        if s.origin == "chunk" and s.chunk_index not in claim_chunks:
            continue
        key = dedupe_key(s.text)
        if key in seen or (s.origin == "abstract" and key in chunk_keys):
            continue
        score = finding_score(s.text)
        if score <= 0 or not shown(s.text):
            continue
        seen.add(key)
        claim = ExtractedClaim(
            text=display_text(s.text, vocab), chunk_index=s.chunk_index, quote=s.text
        )
        scored.append((score, s.order, claim))
    top_claims = sorted(scored, key=lambda t: (-t[0], t[1]))[:MAX_CLAIMS]
    claims = [c for _, _, c in sorted(top_claims, key=lambda t: t[1])]

    # key results: results/discussion/conclusion sections of any chunk
    result_scored = [
        (finding_score(s.text), s.order, display_text(s.text, vocab))
        for s in chunk_sents
        if s.section in RESULT_SECTIONS and usable(s.text)
    ]
    result_scored = [t for t in result_scored if t[0] > 0 and shown(t[2])]
    if not result_scored:
        result_scored = [(sc, order, c.text) for sc, order, c in scored]
    key_results = _top_unique(result_scored, MAX_KEY_RESULTS)

    # limitations
    limitations = _unique(
        display_text(s.text, vocab)
        for s in sentences
        if s.origin != "title" and _LIMITATION_RE.search(s.text) and shown(s.text)
    )[:MAX_LIMITATIONS]

    # thesis
    thesis = next(
        (display_text(t, vocab) for t in abstract_sents if _THESIS_RE.search(t) and shown(t)),
        None,
    )

    # contributions: abstract + introduction
    intro = [
        s.text for s in chunk_sents if s.section == "introduction" and s.chunk_index in claim_chunks
    ]
    contributions = _unique(
        display_text(t, vocab)
        for t in [*abstract_sents, *intro]
        if _CONTRIBUTION_RE.search(t) and shown(t)
    )[:MAX_CONTRIBUTIONS]

    # methodology: first sentences of the first methods section
    methodology = None
    methods = [s for s in chunk_sents if s.section == "methods" and shown(s.text)]
    if methods:
        first_chunk = methods[0].chunk_index
        parts = [display_text(s.text, vocab) for s in methods if s.chunk_index == first_chunk][:3]
        text = ""
        for p in parts:
            if text and len(text) + len(p) + 1 > 600:
                break
            text = f"{text} {p}".strip()
        methodology = text or None

    # datasets
    datasets = detect_datasets(s.text for s in sentences if s.origin != "title")

    # acronyms and concepts
    acronyms = source_acronyms(sentences)
    concepts = extract_keyphrases(sentences, acronyms)

    return Extraction(
        summary=summary,
        tldr=tldr,
        thesis=thesis,
        methodology=methodology,
        key_results=key_results,
        limitations=limitations,
        datasets=datasets,
        contributions=contributions,
        claims=claims,
        concepts=concepts,
        acronyms=dict(sorted(acronyms.items())),
    )


def _unique(items: Iterable[str]) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    for it in items:
        key = it.casefold()
        if key not in seen:
            seen.add(key)
            out.append(it)
    return out


def _top_unique(scored: Sequence[tuple[float, int, str]], k: int) -> list[str]:
    seen: set[str] = set()
    unique: list[tuple[float, int, str]] = []
    for sc, order, text in scored:
        if text.casefold() in seen:
            continue
        seen.add(text.casefold())
        unique.append((sc, order, text))
    top = sorted(unique, key=lambda t: (-t[0], t[1]))[:k]
    return [t for _, _, t in sorted(top, key=lambda t: t[1])]


def combined_acronyms(extractions: Iterable[Extraction]) -> dict[str, str]:
    """Union of the acronym maps of several extractions (first definition wins, sorted)."""
    out: dict[str, str] = {}
    for ex in extractions:
        for short, long in sorted(ex.acronyms.items()):
            out.setdefault(short, long)
    return dict(sorted(out.items()))
