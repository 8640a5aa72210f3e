"""Structured results of the "understand" stage (DESIGN §1).

The same models are filled two ways:

* by an LLM, constrained with the JSON schema of :class:`Extraction`
  (``Extraction.model_json_schema()``), one call per source;
* by the offline extractive engine (:func:`marginalia.knowledge.extraction.extract_offline`),
  deterministically, from the source's own sentences.

``acronyms`` is an optional addition to the product brief's field list: the offline engine
records the short forms it saw defined (``"BERT" -> "bidirectional encoder representations
from transformers"``) so workspace-level concept merging can unify them. An LLM may leave it
empty.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from marginalia.llm.schema import bounds

EvidenceRelation = Literal["supports", "contradicts", "qualifies", "extends", "related"]
"""How one claim's evidence relates to another source's passage.

The offline engine never guesses the direction of evidence: without a model it can only say
``"related"``.
"""

EVIDENCE_RELATIONS: tuple[EvidenceRelation, ...] = (
    "supports",
    "contradicts",
    "qualifies",
    "extends",
    "related",
)


class ExtractedClaim(BaseModel):
    """A finding stated by the source.

    ``quote`` is the exact sentence text: a verbatim substring of chunk ``chunk_index``, or of
    the abstract when ``chunk_index`` is None.
    """

    model_config = ConfigDict(frozen=True)

    text: str = Field(min_length=1, json_schema_extra=bounds(max_length=400))
    chunk_index: int | None = Field(default=None, ge=0)
    quote: str | None = Field(default=None, json_schema_extra=bounds(max_length=500))


class ExtractedConcept(BaseModel):
    """A concept a source discusses.

    ``level``: 0 foundational, 1 intermediate, 2 specialised. Extraction gives a provisional
    value; the workspace-level value is recomputed by
    :func:`marginalia.knowledge.concepts.merge_concepts`.
    """

    model_config = ConfigDict(frozen=True)

    name: str = Field(min_length=1, json_schema_extra=bounds(max_length=80))
    level: int = Field(default=1, ge=0, le=2)
    description: str | None = Field(default=None, json_schema_extra=bounds(max_length=300))
    parent: str | None = Field(default=None, json_schema_extra=bounds(max_length=80))
    related: list[str] = Field(
        default_factory=list, json_schema_extra=bounds(max_items=5, item_max_length=80)
    )


class Extraction(BaseModel):
    """The unified per-source extraction result (one LLM call, or the offline engine).

    The bounds (``bounds(...)``) are in the JSON schema a model fills, so a small model
    cannot loop; they are not enforced on what the offline engine or a model returns.
    """

    summary: str = Field(json_schema_extra=bounds(max_length=1200))
    tldr: str = Field(json_schema_extra=bounds(max_length=300))
    thesis: str | None = Field(default=None, json_schema_extra=bounds(max_length=500))
    methodology: str | None = Field(default=None, json_schema_extra=bounds(max_length=600))
    key_results: list[str] = Field(
        default_factory=list, json_schema_extra=bounds(max_items=8, item_max_length=300)
    )
    limitations: list[str] = Field(
        default_factory=list, json_schema_extra=bounds(max_items=6, item_max_length=300)
    )
    datasets: list[str] = Field(
        default_factory=list, json_schema_extra=bounds(max_items=10, item_max_length=120)
    )
    contributions: list[str] = Field(
        default_factory=list, json_schema_extra=bounds(max_items=6, item_max_length=300)
    )
    claims: list[ExtractedClaim] = Field(
        default_factory=list, json_schema_extra=bounds(max_items=15)
    )
    concepts: list[ExtractedConcept] = Field(
        default_factory=list, json_schema_extra=bounds(max_items=12)
    )
    acronyms: dict[str, str] = Field(
        default_factory=dict,
        description="Short form -> long form, as defined in the source text (optional).",
        json_schema_extra=bounds(max_properties=20, item_max_length=120),
    )


class EvidenceJudgement(BaseModel):
    """An LLM's classification of how a passage bears on a claim."""

    relation: EvidenceRelation
    rationale: str = ""


def extraction_json_schema() -> dict[str, object]:
    """JSON schema handed to an LLM for structured extraction."""
    return Extraction.model_json_schema()
