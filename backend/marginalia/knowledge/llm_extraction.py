"""Prompts and LLM paths of the "understand" stage, each with its offline fallback.

* :func:`extract_source` — the unified extraction: one ``structured`` call per source with
  the :class:`~marginalia.knowledge.schemas.Extraction` schema when the provider is
  generative; :func:`~marginalia.knowledge.extraction.extract_offline` otherwise (or when the
  call fails). A claim's quote that is not verbatim in the chunk it names is dropped (the
  claim is kept without a quote): quotes are never repaired.
* :func:`classify_evidence` — supports / contradicts / qualifies / extends / related for one
  (claim, passage) pair. There is no offline classifier: without a model the caller records
  ``related`` with the similarity and never guesses a direction.
* :func:`plan_wiki_edits` — given the new source and the most similar wiki pages, 2–5 pages to
  create or update.
* :func:`annotate_path` — takeaways and a note per learning-path step (the order itself
  always comes from the concept graph).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field

from marginalia.knowledge.concept_filter import filter_concepts
from marginalia.knowledge.extraction import CLAIM_CHUNK_LIMIT, extract_offline
from marginalia.knowledge.schemas import EvidenceJudgement, ExtractedClaim, Extraction
from marginalia.knowledge.sentences import ChunkText
from marginalia.knowledge.text import normalize_whitespace
from marginalia.llm.base import LLMProvider, engine_label
from marginalia.llm.errors import LLMError

log = logging.getLogger(__name__)

OFFLINE_ENGINE = "offline"
PROMPT_CHAR_BUDGET = 24_000
"""Characters of source text put into one extraction prompt."""
WIKI_PAGE_CHAR_BUDGET = 2_500


def engine_name(provider: LLMProvider | None) -> str:
    if provider is None or not provider.is_generative:
        return OFFLINE_ENGINE
    model = provider.model_for("extraction")
    return f"{provider.name}:{model}" if model else provider.name


def is_generative(provider: LLMProvider | None) -> bool:
    return provider is not None and bool(provider.is_generative)


# ---------------------------------------------------------------------------- extraction

EXTRACTION_SYSTEM = """\
You read one research source and record what it says, faithfully and concisely.
Rules:
- Use only the text given. Do not add facts, numbers or names that are not in it.
- summary: 3-6 sentences. tldr: one sentence. thesis: the central claim, or null.
- methodology: how the work was done (1-3 sentences), or null.
- key_results, limitations, datasets, contributions: short items, empty lists when absent.
- claims: up to 15 findings the source states about its own work. For each, quote the exact
  sentence it comes from (copy it character for character) and give the number of the chunk
  it is in (chunk_index). Claims come from the chunks shown only.
- concepts: 5-12 technical concepts the source discusses (methods, tasks, models, ideas).
  level: 0 foundational (widely known background), 1 intermediate, 2 specialised (specific
  to this line of work). parent: a more general concept it builds on, if any. related:
  other concepts of your list it is closely related to.
- acronyms: each acronym defined in the text mapped to its long form.
"""


def extraction_prompt(
    title: str | None,
    abstract: str | None,
    chunks: Sequence[ChunkText],
    claim_chunk_limit: int = CLAIM_CHUNK_LIMIT,
) -> str:
    parts = [f"Title: {title or '(untitled)'}"]
    if abstract and abstract.strip():
        parts.append(f"Abstract:\n{abstract.strip()}")
    budget = PROMPT_CHAR_BUDGET
    for chunk in sorted(chunks, key=lambda c: c.index)[:claim_chunk_limit]:
        if budget <= 0:
            break
        body = chunk.text[:budget]
        budget -= len(body)
        parts.append(f"[chunk {chunk.index} | {chunk.section_type}]\n{body}")
    return "\n\n".join(parts)


def _verified_claims(
    claims: Sequence[ExtractedClaim],
    abstract: str | None,
    chunks: Sequence[ChunkText],
    claim_chunk_limit: int = CLAIM_CHUNK_LIMIT,
) -> list[ExtractedClaim]:
    """Keep quotes that are verbatim (whitespace-normalised) in the chunk they name."""
    texts = {c.index: normalize_whitespace(c.text) for c in chunks}
    abstract_norm = normalize_whitespace(abstract or "")
    out: list[ExtractedClaim] = []
    for claim in claims:
        quote = normalize_whitespace(claim.quote or "")
        if not quote:
            out.append(ExtractedClaim(text=claim.text, chunk_index=None, quote=None))
            continue
        if claim.chunk_index is not None and quote in texts.get(claim.chunk_index, ""):
            out.append(claim)
            continue
        found = next((i for i, t in sorted(texts.items()) if quote in t), None)
        if found is not None and found < claim_chunk_limit:
            out.append(ExtractedClaim(text=claim.text, chunk_index=found, quote=claim.quote))
        elif claim.chunk_index is None and quote in abstract_norm:
            out.append(claim)
        else:
            out.append(ExtractedClaim(text=claim.text, chunk_index=None, quote=None))
    return out


@dataclass(frozen=True)
class ExtractionResult:
    extraction: Extraction
    engine: str
    fallback_reason: str | None = None


async def extract_source(
    provider: LLMProvider | None,
    title: str | None,
    abstract: str | None,
    chunks: Sequence[ChunkText],
    *,
    claim_chunk_limit: int = CLAIM_CHUNK_LIMIT,
) -> ExtractionResult:
    """The unified extraction of one source (LLM when generative, offline otherwise);
    claims come from the first ``claim_chunk_limit`` chunks."""
    limit = claim_chunk_limit
    if is_generative(provider):
        assert provider is not None
        mark = provider.usage.mark()
        try:
            # One deadline for the whole extraction (settings.llm.extraction_deadline_s).
            result = await provider.structured(
                task="extraction",
                system=EXTRACTION_SYSTEM,
                prompt=extraction_prompt(title, abstract, chunks, limit),
                schema=Extraction,
                call="extraction",
            )
            claims = _verified_claims(result.claims, abstract, chunks, limit)
            text = "\n".join([title or "", abstract or "", *(c.text for c in chunks)])
            concepts = filter_concepts(result.concepts, text)
            return ExtractionResult(
                result.model_copy(update={"claims": claims, "concepts": concepts}),
                engine_label(provider, "extraction", since=mark),
            )
        except LLMError as exc:
            log.warning("LLM extraction failed, using the offline engine: %s", exc)
            offline = await asyncio.to_thread(
                extract_offline, title, abstract, chunks, claim_chunk_limit=limit
            )
            return ExtractionResult(
                offline,
                f"{OFFLINE_ENGINE} ({exc.reason_label})",
                fallback_reason=f"{exc.reason_label}: {exc}",
            )
    offline = await asyncio.to_thread(
        extract_offline, title, abstract, chunks, claim_chunk_limit=limit
    )
    return ExtractionResult(offline, OFFLINE_ENGINE)


# ---------------------------------------------------------------------------- evidence

EVIDENCE_SYSTEM = """\
You judge how a passage from one research source bears on a claim made by another source.
Answer with one relation:
- supports: the passage gives evidence that the claim is true;
- contradicts: the passage gives evidence against the claim;
- qualifies: the passage limits the claim (conditions, exceptions, smaller effect);
- extends: the passage generalises the claim or applies it further;
- related: same topic, but none of the above.
Judge from the text only; give a one-sentence rationale.
"""


def evidence_prompt(claim: str, passage: str, passage_title: str | None = None) -> str:
    source = f" (from: {passage_title})" if passage_title else ""
    return f"Claim:\n{claim}\n\nPassage{source}:\n{passage[:4000]}"


async def classify_evidence(
    provider: LLMProvider, claim: str, passage: str, passage_title: str | None = None
) -> EvidenceJudgement | None:
    """The LLM's judgement, or None when the call failed (the caller then says "related")."""
    try:
        return await provider.structured(
            task="extraction",
            system=EVIDENCE_SYSTEM,
            prompt=evidence_prompt(claim, passage, passage_title),
            schema=EvidenceJudgement,
            call="evidence",
        )
    except LLMError as exc:
        log.warning("evidence classification failed: %s", exc)
        return None


# ---------------------------------------------------------------------------- wiki


class WikiPageEdit(BaseModel):
    """One wiki page to create (new slug) or update (existing slug)."""

    slug: str = Field(min_length=1, description="lower-case words joined by '-'")
    title: str = Field(min_length=1)
    body_markdown: str = Field(
        min_length=1,
        description="Markdown; link other pages with [[slug]]; cite with [source:<id>#<chunk>]",
    )
    reason: str = ""


class WikiPlan(BaseModel):
    """The wiki pages to create or update after a source was added (2-5)."""

    pages: list[WikiPageEdit] = Field(default_factory=list, max_length=5)


WIKI_SYSTEM = """\
You maintain a small research wiki. A new source was added to the workspace. Decide which
2-5 wiki pages to create or update so the wiki reflects it.
Rules:
- Update an existing page (reuse its slug exactly) when the source adds to its topic; keep
  what the page already says unless the source corrects it. Create a page for an important
  concept the wiki lacks.
- Write short encyclopedic Markdown: a first sentence defining the topic, then what the
  sources say. Every statement from a source ends with its citation marker, exactly as
  given, e.g. [source:<id>#<chunk>].
- Link related pages with [[slug]], only to slugs listed as existing pages or pages you
  create in this reply.
- Use only the text given.
"""


def wiki_prompt(
    *,
    source_id: str,
    title: str,
    summary: str,
    concepts: Sequence[str],
    passages: Sequence[tuple[int, str]],
    pages: Sequence[tuple[str, str, str]],
) -> str:
    parts = [
        f"New source {source_id}: {title}",
        f"Summary: {summary}",
        "Concepts: " + ", ".join(concepts),
        "Passages:",
    ]
    budget = PROMPT_CHAR_BUDGET // 2
    for idx, passage in passages:
        if budget <= 0:
            break
        body = passage[:budget]
        budget -= len(body)
        parts.append(f"[source:{source_id}#{idx}] {body}")
    if pages:
        parts.append("Existing pages (most similar first):")
        for slug, page_title, body in pages:
            parts.append(f"--- [[{slug}]] {page_title}\n{body[:WIKI_PAGE_CHAR_BUDGET]}")
    else:
        parts.append("The wiki is empty.")
    return "\n\n".join(parts)


async def plan_wiki_edits(provider: LLMProvider, prompt: str) -> WikiPlan | None:
    try:
        return await provider.structured(
            task="extraction", system=WIKI_SYSTEM, prompt=prompt, schema=WikiPlan, call="wiki"
        )
    except LLMError as exc:
        log.warning("wiki planning failed, using the offline pages: %s", exc)
        return None


# ---------------------------------------------------------------------------- learning paths


class StepAnnotation(BaseModel):
    source_id: str
    takeaways: list[str] = Field(default_factory=list, max_length=3)
    note: str = ""


class PathAnnotation(BaseModel):
    """Takeaways and notes for an ordered reading list (the order is fixed)."""

    overview: str = ""
    steps: list[StepAnnotation] = Field(default_factory=list)


PATH_SYSTEM = """\
You annotate a reading order for a researcher. The order is fixed: do not reorder. For each
step give up to 3 key takeaways (short, from the summary given) and a one-line note on why
it comes at this point. Add a two-sentence overview.
"""


def path_prompt(steps: Sequence[tuple[str, str, str, Sequence[str]]]) -> str:
    """``steps``: (source id, title, summary, concepts) in reading order."""
    lines = []
    for i, (sid, title, summary, concepts) in enumerate(steps, start=1):
        lines.append(
            f"{i}. [{sid}] {title}\n   concepts: {', '.join(concepts[:8])}\n"
            f"   summary: {summary[:800]}"
        )
    return "\n".join(lines)


async def annotate_path(provider: LLMProvider, prompt: str) -> PathAnnotation | None:
    try:
        return await provider.structured(
            task="extraction", system=PATH_SYSTEM, prompt=prompt, schema=PathAnnotation, call="path"
        )
    except LLMError as exc:
        log.warning("learning path annotation failed: %s", exc)
        return None
