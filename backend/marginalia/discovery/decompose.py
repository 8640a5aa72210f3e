"""Query decomposition: a workspace description → intent, 2–3 refined queries and, when a
model is available, 5–8 named paper recommendations (DESIGN §1 "discover").

With a generative provider one ``structured(task="extraction")`` call does it; the
offline engine derives the queries deterministically from the description's keyphrases
(the knowledge layer's extractive keyphrase code) and says plainly that it makes no
recommendations. A model failure falls back to the offline decomposition, with the reason.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from marginalia.knowledge.extraction import extract_offline
from marginalia.knowledge.text import content_tokens, normalize_whitespace
from marginalia.llm.base import LLMProvider
from marginalia.llm.errors import LLMError

log = logging.getLogger(__name__)

Intent = Literal["research", "learn"]

MIN_QUERIES = 2
MAX_QUERIES = 3
MIN_RECOMMENDATIONS = 5
MAX_RECOMMENDATIONS = 8
# Words of the description kept in the broad query.
BROAD_QUERY_WORDS = 8

OFFLINE_NOTE = (
    "offline engine: queries derived from the description's keyphrases; "
    "no paper recommendations are made without a language model"
)

# Phrases that say the user wants to learn a topic rather than survey/extend research.
_LEARN_CUES = re.compile(
    r"\b(?:learn(?:ing)?\b(?!\s+(?:rate|to\s+rank|representations?|algorithms?|models?))|"
    r"understand(?:ing)?|introduc(?:e|tion)\s+to|tutorials?|basics|beginners?|primer|"
    r"explain(?:ed)?|teach\s+me|get\s+started|getting\s+started|from\s+scratch|"
    r"how\s+(?:does|do|to)\b|what\s+(?:is|are)\b|study\s+guide|course)",
    re.IGNORECASE,
)
# Leading request phrasing that is not part of the topic.
_REQUEST_PREFIX = re.compile(
    r"^\s*(?:i\s+(?:want|would\s+like|need)\s+to\s+(?:learn|understand|know|read)\s+"
    r"(?:about\s+|how\s+)?|(?:help\s+me\s+)?(?:learn(?:ing)?|understand(?:ing)?)\s+(?:about\s+)?|"
    r"(?:find|show\s+me)\s+(?:papers?\s+)?(?:on|about)\s+|papers?\s+(?:on|about)\s+)",
    re.IGNORECASE,
)


class PaperRecommendation(BaseModel):
    """A paper the model named as essential for the topic (resolved against the sources)."""

    model_config = ConfigDict(extra="ignore")
    title: str = Field(min_length=3, max_length=400)
    authors: list[str] = Field(default_factory=list, max_length=20)
    year: int | None = Field(default=None, ge=1800, le=2100)
    reason: str | None = Field(default=None, max_length=600)

    @field_validator("title")
    @classmethod
    def _clean(cls, value: str) -> str:
        return normalize_whitespace(value).strip(" \"'")


class DecompositionOutput(BaseModel):
    """Decompose a research workspace description. intent: "learn" when the user wants to
    learn/understand a topic, else "research". queries: 2-3 distinct, refined search
    queries for arXiv/OpenAlex/web search (keywords, no boolean syntax).
    recommendations: 5-8 real, named papers (exact titles) central to the topic."""

    intent: Intent
    queries: list[str] = Field(min_length=1, max_length=6)
    recommendations: list[PaperRecommendation] = Field(default_factory=list, max_length=12)


class Decomposition(BaseModel):
    """What the research pipeline searches for, and how it was derived."""

    description: str
    intent: Intent
    queries: list[str]
    recommendations: list[PaperRecommendation] = Field(default_factory=list)
    engine: str  # "offline" or the provider's name
    note: str | None = None
    fallback_reason: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def detect_intent(description: str) -> Intent:
    """``learn`` when the description asks to learn/understand a topic, else ``research``."""
    return "learn" if _LEARN_CUES.search(description) else "research"


def _topic_text(description: str) -> str:
    text = normalize_whitespace(description)
    return _REQUEST_PREFIX.sub("", text).strip(" .?!") or text


def _dedupe_queries(queries: list[str], limit: int) -> list[str]:
    out: list[str] = []
    seen: set[frozenset[str]] = set()
    for query in queries:
        cleaned = normalize_whitespace(query).strip(" .,;:?!\"'")
        if not cleaned:
            continue
        key = frozenset(content_tokens(cleaned)) or frozenset([cleaned.lower()])
        if key in seen:
            continue
        seen.add(key)
        out.append(cleaned)
        if len(out) == limit:
            break
    return out


def offline_queries(description: str) -> list[str]:
    """2–3 queries from the description's keyphrases (deterministic; fewer only when the
    description has fewer distinct content words).

    1. the broad query: the description's content words, in order (stop words removed);
    2–3. the top keyphrases, each alone (or the first two joined when there is just one
       more distinct phrase to add).
    """
    topic = _topic_text(description)
    words = content_tokens(topic)
    broad = " ".join(dict.fromkeys(words))
    broad = " ".join(broad.split()[:BROAD_QUERY_WORDS])
    phrases = [c.name for c in extract_offline(topic, None, []).concepts]
    candidates = [broad, *phrases]
    queries = _dedupe_queries(candidates, MAX_QUERIES)
    if len(queries) < MIN_QUERIES and len(words) >= 2:
        # One phrase covering everything: add its most specific (longest) word alone.
        specific = sorted(dict.fromkeys(words), key=lambda w: (-len(w), w))[0]
        queries = _dedupe_queries([*queries, specific], MAX_QUERIES)
    return queries or [normalize_whitespace(description)]


def decompose_offline(description: str, *, fallback_reason: str | None = None) -> Decomposition:
    return Decomposition(
        description=normalize_whitespace(description),
        intent=detect_intent(description),
        queries=offline_queries(description),
        recommendations=[],
        engine="offline",
        note=OFFLINE_NOTE,
        fallback_reason=fallback_reason,
    )


_SYSTEM = (
    "You plan literature searches for a research workspace. Given the user's description, "
    "decide the intent (learn: they want to understand a topic; research: they want the "
    "state of the art / related work), write 2-3 distinct refined search queries (plain "
    "keywords suited to arXiv, OpenAlex and web search; no boolean operators, no quotes), "
    "and name 5-8 real papers central to the topic with their exact titles, first authors "
    "and years. Name only papers you are confident exist."
)


async def decompose(description: str, *, provider: LLMProvider | None = None) -> Decomposition:
    """Decompose ``description``; offline (keyphrases, no recommendations) without a model."""
    text = normalize_whitespace(description)
    if not text:
        raise ValueError("the research description is empty")
    if provider is None or not provider.is_generative:
        return decompose_offline(text)
    try:
        out = await provider.structured(
            task="extraction",
            system=_SYSTEM,
            prompt=f"Workspace description:\n{text}",
            schema=DecompositionOutput,
            call="decomposition",
        )
    except LLMError as exc:
        log.warning("decomposition by %s failed, using the offline engine: %s", provider.name, exc)
        return decompose_offline(text, fallback_reason=f"{type(exc).__name__}: {exc}")
    queries = _dedupe_queries(out.queries, MAX_QUERIES)
    if len(queries) < MIN_QUERIES:
        queries = _dedupe_queries([*queries, *offline_queries(text)], MAX_QUERIES)
    seen: set[str] = set()
    recommendations: list[PaperRecommendation] = []
    for rec in out.recommendations:
        key = rec.title.casefold()
        if key not in seen:
            seen.add(key)
            recommendations.append(rec)
    recommendations = recommendations[:MAX_RECOMMENDATIONS]
    note = None
    if len(recommendations) < MIN_RECOMMENDATIONS:
        note = f"the model named {len(recommendations)} papers (asked for 5-8)"
    return Decomposition(
        description=text,
        intent=out.intent,
        queries=queries,
        recommendations=recommendations,
        engine=provider.name,
        note=note,
    )
