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
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from marginalia.knowledge.concepts import is_acronym, normalize_concept, weighted_pagerank
from marginalia.knowledge.schemas import ExtractedClaim, ExtractedConcept, Extraction
from marginalia.knowledge.text import (
    STOP_WORDS,
    content_tokens,
    normalize_whitespace,
    sentence_spans,
    wordset,
)

CLAIM_CHUNK_LIMIT = 15
"""Claims are taken from the first 15 chunks only (DESIGN §6)."""
MAX_CLAIMS = 20
MAX_KEY_RESULTS = 5
MAX_LIMITATIONS = 5
MAX_CONTRIBUTIONS = 5
MAX_DATASETS = 10
MAX_CONCEPTS = 12
SUMMARY_SENTENCES = 5
TEXTRANK_MAX_SENTENCES = 400
MIN_SENTENCE_CHARS = 25
MAX_SENTENCE_CHARS = 600

RESULT_SECTIONS = frozenset({"results", "discussion", "conclusion"})
SKIP_SECTIONS = frozenset({"references", "bibliography", "acknowledgements", "acknowledgments"})


@dataclass(frozen=True)
class ChunkText:
    """A chunk of a source's text (``index`` is its ``chunk_index``)."""

    index: int
    text: str
    section_type: str = "other"


@dataclass(frozen=True)
class _Sentence:
    text: str  # verbatim
    chunk_index: int | None
    section: str
    origin: str  # "title" | "abstract" | "chunk"
    chunk_pos: int  # position of the chunk in document order (-1 for title/abstract)
    order: int  # global document order


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
_DATASET_KEYWORDS = wordset("dataset datasets corpus corpora benchmark benchmarks treebank")
_DATASET_SKIP = wordset(
    """
    the a an this that these those our their its we new large small public standard
    existing several various different multiple same each both all other two three four
    in on of for and with from to by using use uses used train training test testing
    annotated labeled unlabeled english multilingual synthetic real popular widely
    """
)
_WORD_SPAN_RE = re.compile(r"[A-Za-z0-9][\w\-.’']*[A-Za-z0-9]|[A-Za-z0-9]")


# ---------------------------------------------------------------------------------------------
# Sentences
# ---------------------------------------------------------------------------------------------


def _sentences(text: str) -> list[tuple[int, int]]:
    return sentence_spans(text)


def _collect_sentences(
    title: str | None, abstract: str | None, chunks: Sequence[ChunkText]
) -> list[_Sentence]:
    out: list[_Sentence] = []
    order = 0
    if title and title.strip():
        out.append(_Sentence(title.strip(), None, "title", "title", -1, order))
        order += 1
    if abstract:
        for s, e in _sentences(abstract):
            out.append(_Sentence(abstract[s:e], None, "abstract", "abstract", -1, order))
            order += 1
    for pos, chunk in enumerate(chunks):
        if chunk.section_type in SKIP_SECTIONS:
            continue
        for s, e in _sentences(chunk.text):
            out.append(
                _Sentence(chunk.text[s:e], chunk.index, chunk.section_type, "chunk", pos, order)
            )
            order += 1
    return out


def _usable(sentence: str) -> bool:
    n = len(sentence)
    return (
        MIN_SENTENCE_CHARS <= n <= MAX_SENTENCE_CHARS and sum(c.isalpha() for c in sentence) > n / 2
    )


def _dedupe_key(text: str) -> str:
    return normalize_whitespace(text).casefold()


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


def _central_sentences(candidates: Sequence[_Sentence], k: int) -> list[_Sentence]:
    if not candidates:
        return []
    ranks = textrank([c.text for c in candidates])
    top = sorted(range(len(candidates)), key=lambda i: (-round(ranks[i], 12), i))[:k]
    return [candidates[i] for i in sorted(top)]


# ---------------------------------------------------------------------------------------------
# Acronyms (Schwartz & Hearst 2003)
# ---------------------------------------------------------------------------------------------

_PAREN_RE = re.compile(r"\(([^()]{1,120})\)")


def _best_long_form(short: str, long: str) -> str | None:
    s_idx, l_idx = len(short) - 1, len(long) - 1
    while s_idx >= 0:
        c = short[s_idx].lower()
        if not c.isalnum():
            s_idx -= 1
            continue
        while (l_idx >= 0 and long[l_idx].lower() != c) or (
            s_idx == 0 and l_idx > 0 and long[l_idx - 1].isalnum()
        ):
            l_idx -= 1
        if l_idx < 0:
            return None
        l_idx -= 1
        s_idx -= 1
    start = long.rfind(" ", 0, l_idx + 1) + 1
    return long[start:].strip()


def _strip_plural(short: str) -> str:
    return short[:-1] if short.endswith("s") and short[:-1].isupper() else short


def detect_acronyms(text: str) -> dict[str, str]:
    """Short forms defined in ``text`` → their long forms.

    Recognises ``long form (SF)`` and ``SF (long form)``; a long form must match the short
    form's letters in order with its first letter starting a word, and be at most
    ``min(|SF| + 5, 2·|SF|)`` words long. The first definition of a short form wins.
    """
    found: dict[str, str] = {}
    for s, e in sentence_spans(text):
        sent = text[s:e]
        for m in _PAREN_RE.finditer(sent):
            inner = re.split(r"[;,]", m.group(1))[0].strip()
            before = sent[: m.start()].rstrip()
            pair = _pair_from(inner, before)
            if pair and pair[0] not in found:
                found[pair[0]] = pair[1]
    return found


def _pair_from(inner: str, before: str) -> tuple[str, str] | None:
    if is_acronym(inner):
        short = _strip_plural(inner)
        letters = sum(c.isalnum() for c in short)
        max_words = min(letters + 5, 2 * letters)
        words = before.split()[-max_words:]
        candidate = " ".join(words)
        long = _best_long_form(short, candidate)
        if long and _valid_long(short, long, max_words):
            return short, long
        return None
    words_before = before.split()
    if words_before and len(inner.split()) >= 2:
        token = words_before[-1].strip("\"'“”")
        if is_acronym(token):
            short = _strip_plural(token)
            letters = sum(c.isalnum() for c in short)
            max_words = min(letters + 5, 2 * letters)
            long = _best_long_form(short, inner)
            if long and long == inner and _valid_long(short, long, max_words):
                return short, long
    return None


def _valid_long(short: str, long: str, max_words: int) -> bool:
    words = long.split()
    if not words or len(words) > max_words or len(long) <= len(short):
        return False
    if short.casefold() in long.casefold():
        return False
    if words[0].casefold() in STOP_WORDS:
        return False
    return not any(ch in long for ch in "().;:")


# ---------------------------------------------------------------------------------------------
# Keyphrases
# ---------------------------------------------------------------------------------------------

_PHRASE_SPLIT = STOP_WORDS | wordset(
    """
    propose proposes proposed present presents presented introduce introduces introduced show
    shows showed shown demonstrate demonstrates demonstrated achieve achieves achieved improve
    improves outperform outperforms outperformed use uses used using obtain
    obtains obtained provide provides provided require requires required allow allows allowed
    enable enables enabled perform performs performed evaluate evaluates evaluated find finds
    found suggest suggests suggested indicate indicates indicated make makes made yield yields
    yielded consider considers considered compare compares compared study studies studied
    investigate investigates investigated explore explores explored focus focuses focused lead
    leads led help helps helped apply applies applied address addresses addressed describe
    describes described develop develops developed design designs aim aims aimed leverage
    leverages leveraged exploit exploits exploited remain remains remained report reports
    reported observe observes observed include includes included involve involves involved
    contain contains contained take takes took give gives gave called known see seen note
    noted like unlike significantly substantially considerably respectively finally firstly
    secondly lastly additionally specifically particularly especially generally typically
    usually recently previously currently widely highly largely mainly simply directly
    two three four five six seven eight nine ten also can could however paper work
    et al fig figure table section eq equation appendix designed trained brought bring brings
    cause causes caused reach reaches reached save saves saved reveal reveals revealed exhibit
    exhibits exhibited understand understands accelerate accelerates accelerated compress
    compresses compressed predict predicts predicted generate generates generated detect
    detects detected identify identifies identified extract extracts extracted analyze
    analyzes analyzed analyse analyses analysed measure measures measured estimate estimates
    estimated capture captures captured reduce reduces reduced increase increases increased
    decrease decreases decreased enhance enhances enhanced boost boosts boosted encode encodes
    encoded take taking makes making based across toward towards suffer suffers suffered
    benefit benefits benefited tend tends tended appear appears appeared seem seems seemed
    become becomes became remain achieve achieving proposing showing using via whose differ
    differs differed expensive handles computes relies needs speeds
    """
)
_EDGE_WORDS = wordset(
    """
    new novel existing recent different various several multiple many previous prior current
    proposed simple effective good better best strong stronger high higher low lower first
    second third main key important significant additional further specific overall same
    similar whole given respective corresponding certain particular possible available
    typical original final total able much little way better worse comparable remarkable
    great huge entire competitive promising superior notorious difficult easy slow fast
    faster slower smaller larger earlier later greater higher lower bigger
    """
)
_GENERIC_UNIGRAMS = wordset(
    """
    approach approaches method methods model models result results task tasks performance data
    experiment experiments system systems problem problems information set sets number way ways
    case cases example examples baseline baselines state art terms term effect effects
    research challenge challenges question questions setting settings improvement improvements
    gain gains evaluation dataset datasets benchmark benchmarks corpus framework technique
    techniques level levels type types time part order fact point end form kind lot amount
    range variety issue issues aspect aspects property properties application applications
    quality accuracy score scores input inputs output outputs value values step steps stage
    stages idea ideas insight insights paper papers study analysis use users user human
    humans people world art training test tests sample samples size group groups
    """
)
_TOKEN_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-’'_][A-Za-z0-9]+)*|\d+(?:\.\d+)?|[^\sA-Za-z0-9]")
_NOMINAL_ING = wordset(
    """
    learning training embedding reasoning parsing tagging modeling modelling processing
    sampling ranking clustering pooling computing encoding decoding matching labeling
    labelling pretraining mining spelling reading meaning writing string answering
    understanding programming planning forecasting scheduling routing filtering hashing
    indexing retrieval smoothing pruning dropout masking prompting reranking captioning
    grounding linking chunking tokenizing tokenization
    """
)
_ADJECTIVE_SUFFIXES = ("able", "ible", "ous", "ive", "ful", "less", "ical", "istic", "tic")
_ED_NOUNS = wordset("speed seed need feed embed bed breed red shed bleed greed weed deed")
_LENGTH_FACTOR = {1: 1.0, 2: 1.6, 3: 1.9, 4: 2.0}
_ORIGIN_WEIGHT = {"title": 4.0, "abstract": 2.0}


@dataclass
class _Candidate:
    key: str
    n_tokens: int
    count: int = 0
    score: float = 0.0
    in_title: bool = False
    in_abstract: bool = False
    first: int = 1 << 30
    surfaces: dict[str, int] = field(default_factory=lambda: defaultdict(int))


def _display_token(tok: str, sentence_initial: bool, title_case: bool) -> str:
    if is_acronym(tok) or any(c.isdigit() for c in tok):
        return tok
    if _is_capitalized(tok) and (sentence_initial or title_case):
        return tok.lower()
    if tok.isupper() and title_case:
        return tok.lower()
    return tok


def _is_capitalized(tok: str) -> bool:
    """``Transformer``, ``Task-Agnostic``, ``Distillation-aware``: capitals only at word starts."""
    parts = [p for p in re.split(r"[-’'_]", tok) if p and p[0].isalpha()]
    return (
        bool(parts)
        and parts[0][:1].isupper()
        and all(p[1:].islower() or len(p) == 1 for p in parts)
    )


def _display_phrase(gram: Sequence[tuple[str, bool]], title_case: bool) -> str:
    """Display form of an n-gram: Title Case and sentence-initial capitals are lower-cased;
    mixed capitalisation (``natural Language``) is lower-cased; acronyms stay as written."""
    toks = [_display_token(t, ini, title_case) for t, ini in gram]
    caps = [i for i, t in enumerate(toks) if _is_capitalized(t) and not is_acronym(t)]
    plain = [
        i
        for i, t in enumerate(toks)
        if not is_acronym(t) and not _is_capitalized(t) and t.isalpha()
    ]
    if caps and plain:
        toks = [t.lower() if i in caps else t for i, t in enumerate(toks)]
    return " ".join(toks)


def _occurrence_weight(sent: _Sentence) -> float:
    if sent.origin in _ORIGIN_WEIGHT:
        return _ORIGIN_WEIGHT[sent.origin]
    return 1.0 / (1.0 + 0.1 * max(sent.chunk_pos, 0))


def _runs(sentence: str) -> list[list[tuple[str, bool]]]:
    """Maximal runs of content words: list of (token, is_sentence_initial)."""
    runs: list[list[tuple[str, bool]]] = []
    current: list[tuple[str, bool]] = []
    first_word_seen = False
    for m in _TOKEN_RE.finditer(sentence):
        tok = m.group()
        is_word = tok[0].isalpha()
        initial = is_word and not first_word_seen
        if is_word:
            first_word_seen = True
        if tok.endswith(("'s", "’s")):
            tok = tok[:-2]
        low = tok.casefold()
        if (
            not is_word
            or low in _PHRASE_SPLIT
            or (len(tok) < 2 and not tok.isupper())
            or (
                low.endswith("ly")
                and len(low) > 5
                and low not in {"anomaly", "family", "assembly", "supply", "poly", "monopoly"}
            )
        ):
            if current:
                runs.append(current)
            current = []
            continue
        current.append((tok, initial))
    if current:
        runs.append(current)
    return runs


def _phrase_candidates(sentences: Sequence[_Sentence]) -> dict[str, _Candidate]:
    cands: dict[str, _Candidate] = {}
    for sent in sentences:
        weight = _occurrence_weight(sent)
        title_case = sent.origin == "title"
        for run in _runs(sent.text):
            n_run = len(run)
            for n in range(1, 5):
                for i in range(0, n_run - n + 1):
                    gram = run[i : i + n]
                    first, last = gram[0][0].casefold(), gram[-1][0].casefold()
                    if first in _EDGE_WORDS or last in _EDGE_WORDS:
                        continue
                    if (
                        first.endswith("ing")
                        and "-" not in first
                        and first not in _NOMINAL_ING
                        and (n > 1 or len(first) > 4)
                    ):
                        continue
                    if (
                        last.endswith("ed")
                        and len(last) > 4
                        and last not in _ED_NOUNS
                        and "-" not in last
                    ):
                        continue
                    if (
                        n == 1
                        and first.endswith(_ADJECTIVE_SUFFIXES)
                        and not is_acronym(gram[0][0])
                    ):
                        continue
                    if n == 1 and (
                        first in _GENERIC_UNIGRAMS
                        or (len(first) < 3 and not is_acronym(gram[0][0]))
                    ):
                        continue
                    surface = _display_phrase(gram, title_case)
                    key = normalize_concept(surface)
                    if not key:
                        continue
                    cand = cands.get(key)
                    if cand is None:
                        cand = cands[key] = _Candidate(key, n)
                    cand.count += 1
                    cand.score += weight
                    cand.in_title |= sent.origin == "title"
                    cand.in_abstract |= sent.origin == "abstract"
                    cand.first = min(cand.first, sent.order)
                    cand.surfaces[surface] += 1
    return cands


def _count_long_form(long: str, sentences: Sequence[_Sentence]) -> _Candidate:
    words = [re.escape(w) for w in re.split(r"[\s\-]+", long) if w]
    pattern = re.compile(r"\b" + r"[\s\-]+".join(words) + r"\b", _I)
    cand = _Candidate(normalize_concept(long), max(1, len(content_tokens(long))))
    for sent in sentences:
        hits = pattern.findall(sent.text)
        if not hits:
            continue
        cand.count += len(hits)
        cand.score += _occurrence_weight(sent) * len(hits)
        cand.in_title |= sent.origin == "title"
        cand.in_abstract |= sent.origin == "abstract"
        cand.first = min(cand.first, sent.order)
    return cand


def _gram_tokens(c: _Candidate) -> list[str]:
    """Surface tokens (as written, case-folded) of a candidate's most common form."""
    if not c.surfaces:
        return c.key.split()
    surface = sorted(c.surfaces.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
    return [normalize_concept(t) or t.casefold() for t in surface.split()]


def _contains(longer: Sequence[str], shorter: Sequence[str]) -> bool:
    n, m = len(longer), len(shorter)
    return m < n and any(list(longer[i : i + m]) == list(shorter) for i in range(n - m + 1))


_DEFINITION_TEMPLATES = (
    r"\b{c}\s*(?:\([^)]*\)\s*)?(?:is|are|refers to|denotes)\s+(?:a|an|the)?\b",
    r"\b{c}\s*,\s*(?:a|an|which is)\b",
)


def _definition(name: str, long: str | None, sentences: Sequence[_Sentence]) -> str | None:
    forms = [name] + ([long] if long else [])
    pats = [
        re.compile(t.format(c=r"[\s\-]+".join(re.escape(w) for w in re.split(r"[\s\-]+", f))), _I)
        for f in forms
        for t in _DEFINITION_TEMPLATES
    ]
    for sent in sentences:
        if sent.origin == "title" or not _usable(sent.text):
            continue
        if any(p.search(sent.text) for p in pats):
            return normalize_whitespace(sent.text)
    return None


def extract_keyphrases(
    sentences: Sequence[_Sentence], acronyms: dict[str, str], limit: int = MAX_CONCEPTS
) -> list[ExtractedConcept]:
    cands = _phrase_candidates(sentences)
    short_of_long: dict[str, str] = {}
    for short_form, long_form in sorted(acronyms.items()):
        long_cand = _count_long_form(long_form, sentences)
        if long_cand.count == 0:
            continue
        existing = cands.get(long_cand.key)
        if existing is None or existing.count < long_cand.count:
            cands[long_cand.key] = long_cand
        short_of_long[long_cand.key] = short_form

    def eligible(c: _Candidate) -> bool:
        if c.count >= 2:
            return True
        return c.n_tokens >= 2 and (c.in_title or c.in_abstract)

    pool = {k: c for k, c in cands.items() if eligible(c)}
    tokens = {k: _gram_tokens(pool[k]) for k in pool}
    # a one-off long phrase that merely extends a multi-word term used elsewhere
    dropped: list[str] = []
    for k in sorted(pool, key=lambda k: (-len(tokens[k]), k)):
        c = pool[k]
        if (
            c.count == 1
            and len(tokens[k]) >= 3
            and any(
                len(tokens[o]) >= 2 and pool[o].count > 1 and _contains(tokens[k], tokens[o])
                for o in pool
            )
        ):
            dropped.append(k)
    # a fragment that never stands alone outside a longer phrase (RAKE: keep maximal phrases)
    kept: dict[str, _Candidate] = {}
    for k in sorted(pool, key=lambda k: (-len(tokens[k]), k)):
        if k in dropped:
            continue
        c = pool[k]
        if any(
            _contains(tokens[o], tokens[k]) and pool[o].count >= c.count for o in [*kept, *dropped]
        ):
            continue
        kept[k] = c

    # merge acronyms with their long forms
    merged: dict[str, tuple[_Candidate, str, str | None]] = {}

    def add(key: str, cand: _Candidate, name: str, long_form: str | None) -> None:
        if key not in merged:
            merged[key] = (cand, name, long_form)
            return
        base = merged[key][0]
        combined = _Candidate(
            key,
            max(base.n_tokens, cand.n_tokens),
            base.count + cand.count,
            base.score + cand.score,
            base.in_title or cand.in_title,
            base.in_abstract or cand.in_abstract,
            min(base.first, cand.first),
        )
        merged[key] = (combined, name, long_form)

    acronym_by_key = {normalize_concept(a): a for a in sorted(acronyms)}
    for k in sorted(kept):
        c = kept[k]
        if k in short_of_long:
            short_form = short_of_long[k]
            add(normalize_concept(short_form), c, short_form, acronyms[short_form])
        elif k in acronym_by_key:
            short_form = acronym_by_key[k]
            add(k, c, short_form, acronyms[short_form])
        else:
            name = sorted(c.surfaces.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
            add(k, c, name, None)

    def final_score(c: _Candidate) -> float:
        factor = _LENGTH_FACTOR.get(min(c.n_tokens, 4), 2.0) if c.count >= 2 else 1.0
        return c.score * factor

    ranked = sorted(
        merged.items(), key=lambda kv: (-round(final_score(kv[1][0]), 9), kv[1][0].first, kv[0])
    )
    out: list[ExtractedConcept] = []
    for _key, (_cand, concept_name, concept_long) in ranked[:limit]:
        out.append(
            ExtractedConcept(
                name=concept_name,
                level=1,
                description=_definition(concept_name, concept_long, sentences),
                parent=None,
                related=[],
            )
        )
    return out


# ---------------------------------------------------------------------------------------------
# Datasets
# ---------------------------------------------------------------------------------------------


def _is_name_token(tok: str, initial: bool) -> bool:
    if tok.casefold() in _DATASET_SKIP or tok.casefold() in STOP_WORDS:
        return False
    if any(c.isdigit() for c in tok) and any(c.isalpha() for c in tok):
        return True
    if sum(c.isupper() for c in tok) >= 2:
        return True
    return tok[:1].isupper() and not initial


def detect_datasets(sentences: Iterable[str]) -> list[str]:
    """Capitalised names right before/after "dataset", "corpus", "benchmark" or "treebank"."""
    names: list[str] = []
    seen: set[str] = set()
    for sent in sentences:
        words = [(m.group().rstrip(".’'"), m.start()) for m in _WORD_SPAN_RE.finditer(sent)]
        for i, (w, _pos) in enumerate(words):
            if w.casefold() not in _DATASET_KEYWORDS:
                continue
            name_tokens: list[str] = []
            j = i - 1
            while j >= 0 and len(name_tokens) < 4 and _is_name_token(words[j][0], j == 0):
                name_tokens.insert(0, words[j][0])
                j -= 1
            if name_tokens and w.casefold() == "treebank" and w[:1].isupper():
                name_tokens.append(w)
            if not name_tokens and i + 1 < len(words) and _is_name_token(words[i + 1][0], False):
                k = i + 1
                while (
                    k < len(words) and len(name_tokens) < 4 and _is_name_token(words[k][0], False)
                ):
                    name_tokens.append(words[k][0])
                    k += 1
            if not name_tokens:
                continue
            name = " ".join(name_tokens)
            if name.casefold() not in seen:
                seen.add(name.casefold())
                names.append(name)
    return names[:MAX_DATASETS]


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


def extract_offline(
    title: str | None, abstract: str | None, chunks: Sequence[ChunkText]
) -> Extraction:
    """Fill an :class:`Extraction` extractively from the source's own text (deterministic)."""
    ordered = sorted(chunks, key=lambda c: c.index)
    abstract_text, abstract_from_chunks = _abstract_text(abstract, ordered)
    own_abstract = None if abstract_from_chunks else abstract_text
    sentences = _collect_sentences(title, own_abstract, ordered)
    chunk_sents = [s for s in sentences if s.origin == "chunk"]
    abstract_sents = (
        [s.text for s in chunk_sents if s.section == "abstract"]
        if abstract_from_chunks
        else [s.text for s in sentences if s.origin == "abstract"]
    )

    # summary and tldr
    if abstract_text:
        summary = normalize_whitespace(abstract_text)
        tldr = _tldr(abstract_sents)
    else:
        pool = [s for s in chunk_sents if _usable(s.text)][:TEXTRANK_MAX_SENTENCES]
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

    # claims: first CLAIM_CHUNK_LIMIT chunks (plus a separately supplied abstract)
    claim_chunks = {c.index for c in ordered[:CLAIM_CHUNK_LIMIT]}
    scored: list[tuple[float, int, ExtractedClaim]] = []
    seen: set[str] = set()
    chunk_keys = {_dedupe_key(s.text) for s in chunk_sents if s.chunk_index in claim_chunks}
    for s in sentences:
        if s.origin == "title" or not _usable(s.text):
            continue
        if s.origin == "chunk" and s.chunk_index not in claim_chunks:
            continue
        key = _dedupe_key(s.text)
        if key in seen or (s.origin == "abstract" and key in chunk_keys):
            continue
        score = finding_score(s.text)
        if score <= 0:
            continue
        seen.add(key)
        claim = ExtractedClaim(
            text=normalize_whitespace(s.text), chunk_index=s.chunk_index, quote=s.text
        )
        scored.append((score, s.order, claim))
    top_claims = sorted(scored, key=lambda t: (-t[0], t[1]))[:MAX_CLAIMS]
    claims = [c for _, _, c in sorted(top_claims, key=lambda t: t[1])]

    # key results: results/discussion/conclusion sections of any chunk
    result_scored = [
        (finding_score(s.text), s.order, normalize_whitespace(s.text))
        for s in chunk_sents
        if s.section in RESULT_SECTIONS and _usable(s.text)
    ]
    result_scored = [t for t in result_scored if t[0] > 0]
    if not result_scored:
        result_scored = [(sc, order, c.text) for sc, order, c in scored]
    key_results = _top_unique(result_scored, MAX_KEY_RESULTS)

    # limitations
    limitations = _unique(
        normalize_whitespace(s.text)
        for s in sentences
        if s.origin != "title" and _usable(s.text) and _LIMITATION_RE.search(s.text)
    )[:MAX_LIMITATIONS]

    # thesis
    thesis = next((normalize_whitespace(t) for t in abstract_sents if _THESIS_RE.search(t)), None)

    # contributions: abstract + introduction
    intro = [
        s.text for s in chunk_sents if s.section == "introduction" and s.chunk_index in claim_chunks
    ]
    contributions = _unique(
        normalize_whitespace(t)
        for t in [*abstract_sents, *intro]
        if _usable(t) and _CONTRIBUTION_RE.search(t)
    )[:MAX_CONTRIBUTIONS]

    # methodology: first sentences of the first methods section
    methodology = None
    methods = [s for s in chunk_sents if s.section == "methods" and _usable(s.text)]
    if methods:
        first_chunk = methods[0].chunk_index
        parts = [normalize_whitespace(s.text) for s in methods if s.chunk_index == first_chunk][:3]
        text = ""
        for p in parts:
            if text and len(text) + len(p) + 1 > 600:
                break
            text = f"{text} {p}".strip()
        methodology = text or None

    # datasets
    datasets = detect_datasets(s.text for s in sentences if s.origin != "title")

    # acronyms and concepts
    acronyms: dict[str, str] = {}
    for s in sentences:
        if s.origin == "title":
            continue
        for short, long in detect_acronyms(s.text).items():
            acronyms.setdefault(short, long)
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
