"""Keyphrase extraction for the offline engine: 1–4-word candidates from a
stop-word/punctuation split of the paper's body, filtered (``concept_filter``), merged with
their acronyms, ordered by the shipped concept ranker over their features
(``concept_ranking``; frequency × position × length × specificity without it), at most
one plain single word kept, then diversified by MMR. Pure functions, no database."""

from __future__ import annotations

import functools
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from marginalia.knowledge import keyphrase_words as vocab
from marginalia.knowledge.background import Background, load_background
from marginalia.knowledge.concept_features import SourceShape, candidate_features
from marginalia.knowledge.concept_filter import (
    concept_allowed,
    is_named_token,
    mmr_order,
    token_similarity,
    weight_of,
)
from marginalia.knowledge.concept_levels import provisional_level
from marginalia.knowledge.concept_ranking import load_ranker
from marginalia.knowledge.concepts import is_acronym, is_plain_word, normalize_concept
from marginalia.knowledge.non_concepts import undefined_short_form, upper_compounds
from marginalia.knowledge.schemas import ExtractedConcept
from marginalia.knowledge.sentences import SourceSentence, usable
from marginalia.knowledge.source_markup import (
    CITED_NAME,
    ENDS_IN_XREF,
    LINE_BREAK_HYPHEN,
    NOT_PROSE,
    OPENING_LABELS,
    running_lines,
    without_lines,
    without_markup,
)
from marginalia.knowledge.text import (
    content_tokens,
    normalize_whitespace,
)

_I = re.IGNORECASE


MAX_CONCEPTS = 15
MAX_PLAIN_WORDS = 1
"""Plain single words ("thiophene", "integrand", "self-management") a source keeps: only
its best-ranked one. Outside the background's fields a rare word is often the field's
everyday word ("sublevels"); capping them left precision where it was on development
sets left out of the fit and kept single words rare on the map, while none at all cost
the gold set right ones ("thromboprophylaxis")."""
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
    chunks: set[int] = field(default_factory=set)
    """The chunks that use it."""
    cited: int = 0
    """Uses as a name right before a citation ("Kabluchko [12] showed"): an author."""

    def seen_in(self, sent: SourceSentence, weight: float, uses: int = 1) -> None:
        self.count += uses
        self.score += weight * uses
        self.in_title |= sent.origin == "title"
        self.in_abstract |= sent.origin == "abstract"
        self.first = min(self.first, sent.order)
        if sent.chunk_index is not None:
            self.chunks.add(sent.chunk_index)


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


def _runs(sentence: str) -> list[list[tuple[str, bool]]]:
    """Maximal runs of content words: list of (token, is_sentence_initial)."""
    runs: list[list[tuple[str, bool]]] = []
    current: list[tuple[str, bool]] = []
    first_word_seen = False
    sentence = LINE_BREAK_HYPHEN.sub(r"\1\2", sentence)
    sentence = NOT_PROSE.sub(" ; ", sentence)
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
            or tok == "REF"  # unarXive's placeholder for a cross-reference label
            or low in vocab.PHRASE_SPLIT
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
        key = _ALNUM.sub("", LINE_BREAK_HYPHEN.sub(r"\1\2", sent.text).casefold())
        if key in seen:  # the abstract given apart and again as the first chunk
            continue
        seen.add(key)
        weight = _occurrence_weight(sent)
        title_case = sent.origin == "title"
        text = without_lines(sent.text, repeated) if sent.origin == "chunk" else sent.text
        if ENDS_IN_XREF.search(previous):
            text = OPENING_LABELS.sub(" ; ", text)
        previous = sent.text
        cited = {name for m in CITED_NAME.finditer(text) for name in m.groups() if name}
        for run in _runs(text):
            n_run = len(run)
            for n in range(1, 5):
                for i in range(0, n_run - n + 1):
                    gram = run[i : i + n]
                    first, last = gram[0][0].casefold(), gram[-1][0].casefold()
                    if first in vocab.EDGE_WORDS or last in vocab.EDGE_WORDS:
                        continue
                    if (
                        n == 1
                        and len(first) > 4
                        and first.endswith("ing")
                        and "-" not in first
                        and first not in vocab.NOMINAL_ING
                    ):
                        continue  # "hopping", "screening" alone; "hopping matrix element" stays
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
                    cand.seen_in(sent, weight)
                    cand.cited += n == 1 and gram[0][0] in cited
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
        hits = pattern.findall(LINE_BREAK_HYPHEN.sub(r"\1\2", sent.text))
        if not hits:
            continue
        cand.seen_in(sent, _occurrence_weight(sent), len(hits))
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


@functools.lru_cache(maxsize=8192)
def _definition_patterns(form: str) -> tuple[re.Pattern[str], ...]:
    # compiled once per form: a library's sources share their concepts' names, and there
    # are more of them than the re module's own cache keeps
    words = r"[\s\-]+".join(re.escape(w) for w in re.split(r"[\s\-]+", form))
    return tuple(re.compile(t.format(c=words), _I) for t in _DEFINITION_TEMPLATES)


def _definition(name: str, long: str | None, sentences: Sequence[SourceSentence]) -> str | None:
    forms = [name] + ([long] if long else [])
    pats = [p for f in dict.fromkeys(forms) for p in _definition_patterns(f)]
    for sent in sentences:
        if sent.origin == "title" or not usable(sent.text):
            continue
        if any(p.search(sent.text) for p in pats):
            return normalize_whitespace(sent.text)
    return None


@dataclass(frozen=True)
class ConceptCandidate:
    """A candidate that passed the filters, merged with its long form, and its features."""

    key: str
    name: str
    long_form: str | None
    forms: tuple[str, ...]
    first: int
    features: dict[str, float]
    heuristic: float


def concept_candidates(
    sentences: Sequence[SourceSentence], acronyms: dict[str, str]
) -> list[ConceptCandidate]:
    """Every concept candidate of a source, before ranking (the ranker's training rows)."""
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
        if c.key not in defined and undefined_short_form(_best_surface(c), compounds):
            return False  # "CS", "GP"; "COARSE" of "COARSE-grained"
        if c.n_tokens == 1 and 3 * c.cited >= c.count:
            return False  # an author named with a citation, not a concept
        if c.count >= 2:
            return True
        # a once-used phrase counts in the title, or in the abstract of a short source
        return c.n_tokens >= 2 and (c.in_title or (c.in_abstract and short_source))

    compounds = upper_compounds(s.text for s in sentences)
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
            base.heads + cand.heads,
            chunks=base.chunks | cand.chunks,
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

    shape = SourceShape(
        sentences=max(1, len(sentences)),
        chunks=max(1, len({s.chunk_index for s in sentences if s.chunk_index is not None})),
        headings=" | ".join(
            sorted({normalize_concept(s.section_title) for s in sentences if s.section_title})
        ),
    )
    return [
        ConceptCandidate(
            key=k,
            name=name,
            long_form=long_form,
            forms=tuple(dict.fromkeys([name, *([long_form] if long_form else []), *c.surfaces])),
            first=c.first,
            features=candidate_features(
                c, name, long_form, shape, background, _heuristic_score(c, background)
            ),
            heuristic=_heuristic_score(c, background),
        )
        for k, (c, name, long_form) in sorted(merged.items())
    ]


def extract_keyphrases(
    sentences: Sequence[SourceSentence], acronyms: dict[str, str], limit: int = MAX_CONCEPTS
) -> list[ExtractedConcept]:
    """The source's concepts, best first: candidates ranked by the shipped model (or the
    heuristic without one), then diversified by MMR over shared words."""
    background = load_background()
    ranker = load_ranker()
    candidates = concept_candidates(sentences, acronyms)
    scores = [c.heuristic if ranker is None else ranker.score(c.features) for c in candidates]
    order = sorted(
        range(len(candidates)),
        key=lambda i: (-round(scores[i], 9), candidates[i].first, candidates[i].key),
    )
    extra_plain = set([i for i in order if is_plain_word(candidates[i].name)][MAX_PLAIN_WORDS:])
    order = [i for i in order if i not in extra_plain]
    keys = [candidates[i].key for i in order]
    ranked = mmr_order(
        [candidates[i] for i in order],
        [scores[i] for i in order],
        lambda i, j: token_similarity(keys[i], keys[j]),
        limit=limit,
    )
    out: list[ExtractedConcept] = []
    for cand in ranked:
        level_key = normalize_concept(cand.long_form) if cand.long_form else cand.key
        out.append(
            ExtractedConcept(
                name=cand.name,
                level=provisional_level(list(cand.forms), level_key, sentences, background),
                description=_definition(cand.name, cand.long_form, sentences),
                parent=None,
                related=[],
            )
        )
    return out


def _heuristic_score(c: _Candidate, background: Background) -> float:
    """Frequency × position × length × specificity."""
    factor = _LENGTH_FACTOR.get(min(c.n_tokens, 4), 2.0) if c.count >= 2 else 1.0
    return c.score * factor * weight_of(c.key, background)
