"""Keyphrase and dataset-name extraction for the offline engine (1–4-word candidates
from a stop-word/punctuation split, scored by frequency × position): pure functions, no
database, no model."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from marginalia.knowledge import keyphrase_words as vocab
from marginalia.knowledge.background import Background, load_background
from marginalia.knowledge.concept_filter import (
    concept_allowed,
    is_named_token,
    mmr_order,
    token_similarity,
    weight_of,
)
from marginalia.knowledge.concept_levels import provisional_level
from marginalia.knowledge.concepts import is_acronym, normalize_concept
from marginalia.knowledge.schemas import ExtractedConcept
from marginalia.knowledge.sentences import WORD_SPAN_RE, SourceSentence, usable
from marginalia.knowledge.text import (
    STOP_WORDS,
    content_tokens,
    normalize_whitespace,
)

_I = re.IGNORECASE

MAX_DATASETS = 10


MAX_CONCEPTS = 15
ACRONYM_HEAD_SHARE = 0.25
ACRONYM_MODIFIER_MIN = 4
"""A short form seen this often that ends a noun phrase in under this share of its uses
is a modifier ("IVC" of "IVC filter"), not a concept."""
SHORT_SOURCE_SENTENCES = 30
"""A source with fewer body sentences (an abstract-only record) keeps once-used phrases
of its abstract as concept candidates."""


_TOKEN_RE = re.compile(
    r"[A-Za-z][A-Za-z0-9]*(?:[-’'_][A-Za-z0-9]+)*|\d+[A-Za-z][A-Za-z0-9]*(?:[-’'_][A-Za-z0-9]+)*"
    r"|\d+(?:\.\d+)?|[^\sA-Za-z0-9]"
)


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
    heads: int = 0
    """Occurrences that end a noun-phrase run (the phrase is the head, not a modifier), or
    a name before the singular word for its kind ("ScienceParse" of "ScienceParse
    system"; not "NLP" of "NLP models")."""
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


def _occurrence_weight(sent: SourceSentence) -> float:
    if sent.origin in _ORIGIN_WEIGHT:
        return _ORIGIN_WEIGHT[sent.origin]
    return 1.0 / (1.0 + 0.1 * max(sent.chunk_pos, 0))


_ALNUM = re.compile(r"[^0-9a-z]+")
_NOT_PROSE = re.compile(
    r"\b[A-Z][\w'’-]+(?:\s+(?:and|&)\s+[A-Z][\w'’-]+)?\s+et\s+al\b\.?"  # Beltagy et al.
    r"|\([^()]{0,80}?\b(?:19|20)\d{2}[a-z]?\)"  # (Cohan et al., 2020)
    r"|\b(?:https?://|www\.|doi:\s*|10\.\d{4,}/)\S+",  # URLs and DOIs
    re.IGNORECASE,
)
"""Author names before "et al.", parenthesised citations, URLs and DOIs: no concepts."""
_XREF = (
    r"\b(?i:fig|figs|figure|figures|tab|table|tables|sec|section|sections|eq|eqs|equation"
    r"|equations|alg|algorithm|appendix|appendices|listing|lemma|theorem|definition)\b"
)
_LABELS = r"[A-Z0-9][A-Z0-9.]*\b(?:\s*(?:,|and|&|-|–)\s*[A-Z0-9][A-Z0-9.]*\b)*"
_ENDS_IN_XREF = re.compile(_XREF + r"\.\s*$")
_OPENING_LABELS = re.compile(r"^\s*" + _LABELS)
"""A sentence split after "Section." opens with the label the cross-reference names."""
_MARKUP = re.compile(
    r"\$\$.{0,2000}?\$\$|\$[^$]{1,400}?\$"  # TeX math: $$…$$, $…$
    r"|\\\(.{0,400}?\\\)|\\\[.{0,2000}?\\\]"  # \(…\), \[…\]
    r"|\\[A-Za-z]+"  # a TeX command left in the text (\mathbf, \vert, \hdots)
    r"|" + _XREF + r"\.?\s*\(?\s*" + _LABELS,  # Fig. 3, Table REF, equation (REF)
    re.DOTALL,
)
"""Mathematics and TeX markup (a paper rendered from its LaTeX source), and the labels of
cross-references ("Fig. 3", "Section REF", "Tables 2 and 3"): symbols and labels, never
concepts."""
_LINE_BREAK_HYPHEN = re.compile(r"([a-z])[-\u00ad]\s+([a-z])")
"""A word broken across lines ("construc- tions"): joined before phrases are cut."""


def without_markup(text: str) -> str:
    """``text`` with its mathematics, TeX commands and cross-reference labels cut out."""
    return _MARKUP.sub(" ; ", text)


def _runs(sentence: str) -> list[list[tuple[str, bool]]]:
    """Maximal runs of content words: list of (token, is_sentence_initial)."""
    runs: list[list[tuple[str, bool]]] = []
    current: list[tuple[str, bool]] = []
    first_word_seen = False
    sentence = _LINE_BREAK_HYPHEN.sub(r"\1\2", sentence)
    sentence = _NOT_PROSE.sub(" ; ", sentence)
    sentence = without_markup(sentence)
    for m in _TOKEN_RE.finditer(sentence):
        tok = m.group()
        is_word = tok[0].isalpha() or (tok[0].isdigit() and any(c.isalpha() for c in tok))
        initial = is_word and not first_word_seen
        if is_word:
            first_word_seen = True
        if tok.endswith(("'s", "’s")):
            tok = tok[:-2]
        low = tok.casefold()
        if (
            not is_word
            or low in vocab.PHRASE_SPLIT
            or (
                low.endswith("ing")
                and len(low) > 5
                and low not in vocab.NOMINAL_ING
                and "-" not in low
                and not tok[:1].isupper()
            )
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


def _name_with_kind(gram: Sequence[tuple[str, bool]]) -> bool:
    """A name (acronyms, CamelCase or letter-digit tokens, capitalised words) followed by
    a word saying what kind of thing it is."""
    *name, (head, _initial) = gram
    return (
        head.casefold() in vocab.KIND_HEADS
        and is_named_token(name[0][0])
        and all(is_named_token(t) or (t[:1].isupper() and not initial) for t, initial in name)
    )


def _kind_then_name(gram: Sequence[tuple[str, bool]]) -> bool:
    """The word for a kind of thing followed by names ("datasets CMU-MOSI", "the model
    BERT"): the phrase is the name."""
    (kind, _initial), *name = gram
    low = kind.casefold()
    return (low in vocab.KIND_HEADS or low in vocab.DATASET_KEYWORDS) and all(
        is_named_token(t) for t, _ in name
    )


_DIGITS = re.compile(r"\d+")
RUNNING_LINE_CHUNKS = 3
RUNNING_LINE_MAX_CHARS = 120
"""A line printed in this many chunks or more is a running head or foot ("Webb et al.
(2017), PeerJ Comput. Sci., DOI … 4/16"), not the paper's text."""


def _line_key(line: str) -> str:
    return _DIGITS.sub("0", " ".join(line.split())).casefold()


def running_lines(sentences: Sequence[SourceSentence]) -> frozenset[str]:
    """Keys (:func:`_line_key`) of lines of two words to :data:`RUNNING_LINE_MAX_CHARS`
    characters that recur in :data:`RUNNING_LINE_CHUNKS` chunks or more: page heads and
    feet."""
    chunks_of: dict[str, set[int]] = defaultdict(set)
    for sent in sentences:
        if sent.origin != "chunk" or sent.chunk_index is None:
            continue
        lines = sent.text.splitlines()
        if len(lines) < 2:
            continue  # a sentence of one line is text, not a page's layout
        for line in lines:
            key = _line_key(line)
            if len(key.split()) >= 2 and len(key) <= RUNNING_LINE_MAX_CHARS:
                chunks_of[key].add(sent.chunk_index)
    return frozenset(k for k, c in chunks_of.items() if len(c) >= RUNNING_LINE_CHUNKS)


def _without_lines(text: str, lines: frozenset[str]) -> str:
    if not lines or ("\n" not in text and _line_key(text) not in lines):
        return text
    return "\n".join(ln if _line_key(ln) not in lines else " ; " for ln in text.splitlines())


def _phrase_candidates(sentences: Sequence[SourceSentence]) -> dict[str, _Candidate]:
    cands: dict[str, _Candidate] = {}
    seen: set[str] = set()
    repeated = running_lines(sentences)
    own_abstract = any(s.origin == "abstract" for s in sentences)
    previous = ""
    for sent in sentences:
        if sent.matter != "body":
            continue  # authors, affiliations, licence, funding: not the paper's concepts
        if own_abstract and sent.origin == "chunk" and sent.section == "abstract":
            continue  # the abstract given apart is counted once
        key = _ALNUM.sub("", _LINE_BREAK_HYPHEN.sub(r"\1\2", sent.text).casefold())
        if key in seen:  # the abstract given apart and again as the first chunk
            continue
        seen.add(key)
        weight = _occurrence_weight(sent)
        title_case = sent.origin == "title"
        text = _without_lines(sent.text, repeated) if sent.origin == "chunk" else sent.text
        if _ENDS_IN_XREF.search(previous):
            text = _OPENING_LABELS.sub(" ; ", text)
        previous = sent.text
        for run in _runs(text):
            n_run = len(run)
            for n in range(1, 5):
                for i in range(0, n_run - n + 1):
                    gram = run[i : i + n]
                    first, last = gram[0][0].casefold(), gram[-1][0].casefold()
                    if first in vocab.EDGE_WORDS or last in vocab.EDGE_WORDS:
                        continue
                    if (
                        first.endswith("ing")
                        and "-" not in first
                        and first not in vocab.NOMINAL_ING
                        and (n > 1 or len(first) > 4)
                    ):
                        continue
                    if (
                        n > 1
                        and first.endswith("ed")
                        and first not in vocab.NOMINAL_ED
                        and "-" not in first
                        and not gram[0][0][:1].isupper()
                    ):
                        continue
                    if (
                        last.endswith("ed")
                        and len(last) > 4
                        and last not in vocab.ED_NOUNS
                        and "-" not in last
                    ):
                        continue
                    if (
                        n == 1
                        and first.endswith(vocab.ADJECTIVE_SUFFIXES)
                        and not is_acronym(gram[0][0])
                        and not (gram[0][0][:1].isupper() and not gram[0][1])
                    ):
                        continue
                    if n == 1 and (
                        first in vocab.GENERIC_UNIGRAMS
                        or (len(first) < 3 and not is_acronym(gram[0][0]))
                    ):
                        continue
                    if n > 1 and (_name_with_kind(gram) or _kind_then_name(gram)):
                        continue  # "ScienceParse system", "datasets CMU-MOSI": the name
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
                    cand.heads += i + n == n_run or (
                        i + n == n_run - 1
                        and not run[-1][0].casefold().endswith("s")
                        and _name_with_kind(run[i:n_run])
                    )
                    cand.surfaces[surface] += 1
    return cands


def _count_long_form(long: str, sentences: Sequence[SourceSentence]) -> _Candidate:
    words = [re.escape(w) for w in re.split(r"[\s\-]+", long) if w]
    pattern = re.compile(r"\b" + r"[\s\-]+".join(words) + r"\b", _I)
    cand = _Candidate(normalize_concept(long), max(1, len(content_tokens(long))))
    for sent in sentences:
        if sent.matter != "body":
            continue
        hits = pattern.findall(_LINE_BREAK_HYPHEN.sub(r"\1\2", sent.text))
        if not hits:
            continue
        cand.count += len(hits)
        cand.score += _occurrence_weight(sent) * len(hits)
        cand.in_title |= sent.origin == "title"
        cand.in_abstract |= sent.origin == "abstract"
        cand.first = min(cand.first, sent.order)
    cand.heads = cand.count
    return cand


def _best_surface(c: _Candidate) -> str:
    if not c.surfaces:
        return c.key
    return sorted(c.surfaces.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]


def specific_enough(c: _Candidate, background: Background) -> bool:
    """:func:`~marginalia.knowledge.concept_filter.concept_allowed` for a candidate: its
    most common surface form, and the share of its occurrences that head a phrase."""
    return concept_allowed(_best_surface(c), c.key, background, heads=c.heads, count=c.count)


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


def _definition(name: str, long: str | None, sentences: Sequence[SourceSentence]) -> str | None:
    forms = [name] + ([long] if long else [])
    pats = [
        re.compile(t.format(c=r"[\s\-]+".join(re.escape(w) for w in re.split(r"[\s\-]+", f))), _I)
        for f in dict.fromkeys(forms)
        for t in _DEFINITION_TEMPLATES
    ]
    for sent in sentences:
        if sent.origin == "title" or not usable(sent.text):
            continue
        if any(p.search(sent.text) for p in pats):
            return normalize_whitespace(sent.text)
    return None


def extract_keyphrases(
    sentences: Sequence[SourceSentence], acronyms: dict[str, str], limit: int = MAX_CONCEPTS
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

    background = load_background()
    short_source = sum(1 for s in sentences if s.origin == "chunk") < SHORT_SOURCE_SENTENCES
    defined = set(short_of_long) | {normalize_concept(a) for a in acronyms}

    # a short form is as generic as what it stands for ("LM": "language models")
    generic_short = {
        normalize_concept(short)
        for short, long in acronyms.items()
        if len(long.split()) > 1 and not concept_allowed(long, normalize_concept(long), background)
    }

    # a short form used mostly before another noun names the thing it modifies ("IVC
    # filter", "NLP tasks"), not a concept of its own
    for short in acronyms:
        sc = cands.get(normalize_concept(short))
        if sc and sc.count >= ACRONYM_MODIFIER_MIN and sc.heads < ACRONYM_HEAD_SHARE * sc.count:
            generic_short.add(sc.key)

    def eligible(c: _Candidate) -> bool:
        if c.key not in defined and not specific_enough(c, background):
            return False
        surface = _best_surface(c)
        if (
            is_acronym(surface)
            and c.count >= ACRONYM_MODIFIER_MIN
            and c.heads < ACRONYM_HEAD_SHARE * c.count
        ):
            return False
        if c.key in generic_short or (
            c.key in short_of_long and normalize_concept(short_of_long[c.key]) in generic_short
        ):
            return False
        surface = _best_surface(c)
        if c.key not in defined and is_acronym(surface) and len(surface) <= 2 and c.count < 5:
            return False  # "CS", "KB": undefined two-letter short forms seen a few times
        if c.count >= 2:
            return True
        # a once-used phrase counts in the title, or in the abstract of a short source
        return c.n_tokens >= 2 and (c.in_title or (c.in_abstract and short_source))

    pool = {k: c for k, c in cands.items() if eligible(c)}
    # a piece of an acronym's long form ("Open Research Corpus" of "Semantic Scholar Open
    # Research Corpus") is that concept, not another one — unless it mostly stands alone
    # ("Semantic Scholar")
    long_counts = {k.replace(" ", ""): cands[k].count for k in short_of_long}

    def piece_of_long_form(key: str, c: _Candidate) -> bool:
        compact = key.replace(" ", "")
        inside = sum(n for lk, n in long_counts.items() if compact in lk and compact != lk)
        return inside > 0 and c.count < 2 * inside + 2

    pool = {k: c for k, c in pool.items() if k in short_of_long or not piece_of_long_form(k, c)}
    tokens = {k: _gram_tokens(pool[k]) for k in pool}
    # a one-off long phrase that merely extends a multi-word term used elsewhere
    dropped: list[str] = []
    for k in sorted(pool, key=lambda k: (-len(tokens[k]), k)):
        c = pool[k]
        if (
            c.count == 1
            and not c.in_title
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
        return c.score * factor * weight_of(c.key, background)

    ranked = sorted(
        merged.items(), key=lambda kv: (-round(final_score(kv[1][0]), 9), kv[1][0].first, kv[0])
    )
    keys = [k for k, _ in ranked]
    ranked = mmr_order(
        ranked,
        [final_score(c) for _, (c, _n, _l) in ranked],
        lambda i, j: token_similarity(keys[i], keys[j]),
        limit=limit,
    )
    out: list[ExtractedConcept] = []
    for key, (cand, concept_name, concept_long) in ranked:
        forms = [concept_name, *([concept_long] if concept_long else []), *cand.surfaces]
        level_key = normalize_concept(concept_long) if concept_long else key
        out.append(
            ExtractedConcept(
                name=concept_name,
                level=provisional_level(forms, level_key, sentences, background),
                description=_definition(concept_name, concept_long, sentences),
                parent=None,
                related=[],
            )
        )
    return out


def _is_name_token(tok: str, initial: bool) -> bool:
    if tok.casefold() in vocab.DATASET_SKIP or tok.casefold() in STOP_WORDS:
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
        words = [(m.group().rstrip(".’'"), m.start()) for m in WORD_SPAN_RE.finditer(sent)]
        for i, (w, _pos) in enumerate(words):
            if w.casefold() not in vocab.DATASET_KEYWORDS:
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
