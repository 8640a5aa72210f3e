"""The answer stage's two halves: :func:`retrieve` (route → number the passages) and
:func:`answer_from_context` (score the evidence → the best evidence → nothing, closest
evidence or an answer whose claims are validated (invariant 3) and checked for the answer
type and the question's named things; :mod:`marginalia.answer.outcomes`). The one flow that sequences them — with the conversation turn before and the
saved message after — is :func:`marginalia.usecases.ask.ask`.

Calibration (invariant 4): the threshold is read from ``eval/calibration.json``
(:func:`marginalia.answer.calibration.load_calibration`); a missing file is an error that
says to run ``marginalia eval calibrate``. ``score_only`` computes the same
``evidence_score`` with no calibration read, no claims and no model call (what the
calibration fits on); an eval that wants answers at a candidate threshold passes
``calibration=Calibration(threshold=x, signal=SIGNAL)``.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import asdict
from typing import Any

from marginalia.answer import followup, gate, offline, outcomes
from marginalia.answer.calibration import SIGNAL, Calibration, load_calibration
from marginalia.answer.context import AnswerContext
from marginalia.answer.followup import ResolvedQuestion
from marginalia.answer.quotes import lead_line, render_answer_text, validate_claims
from marginalia.answer.routing import Context, Scope, build_context, history_terms, load_scope
from marginalia.answer.schemas import Answer, AnswerClaim, Passage
from marginalia.answer.synthesis import synthesize_claims
from marginalia.llm import ChatMessage, LLMError, LLMProvider
from marginalia.llm.base import engine_label
from marginalia.llm.deadline import Deadline

log = logging.getLogger(__name__)


# ------------------------------------------------------------------------------ answering


async def retrieve(
    ctx: AnswerContext,
    *,
    workspace_id: uuid.UUID,
    question: str,
    source_id: uuid.UUID | None = None,
    history: list[ChatMessage] | None = None,
    scope: Scope | None = None,
    resolved: ResolvedQuestion | None = None,
) -> Context:
    """The numbered context for ``question`` (wiki-first, else hybrid). The question was
    checked by :func:`marginalia.usecases.ask.prepare` (the one place that does).
    ``resolved``: the follow-up resolution (:mod:`marginalia.answer.followup`) — its text
    is the history leg and its papers the paper leg; None resolves from ``history``."""
    if scope is None:
        scope = await load_scope(ctx, workspace_id, source_id)
    papers: tuple[uuid.UUID, ...] = ()
    if resolved is None:
        history_query = _history_query(question, history)
    else:
        history_query = resolved.text if resolved.is_followup else None
        papers = resolved.paper_ids
    context = await build_context(
        ctx,
        workspace_id=workspace_id,
        query=question,
        scope=scope,
        source_id=source_id,
        history_query=history_query,
        paper_ids=papers,
    )
    if resolved is not None:
        context.trace["followup"] = resolved.trace()
        if resolved.method == "offline" and not followup.score_resolved(question):
            # the sentences are scored on the follow-up's own words (see followup)
            context.resolved_query, context.resolved_vector = None, None
    return context


def _history_query(question: str, history: list[ChatMessage] | None) -> str | None:
    terms = history_terms(question, history)
    return f"{question} {terms}" if terms else None


def _searched(ctx: Context) -> str:
    what = f"Searched {ctx.scope.describe()} for “{ctx.query}”"
    if ctx.route == "wiki":
        how = f"a matching wiki page and {len(ctx.passages) - 1} passages"
    else:
        how = f"{len(ctx.passages)} passages by hybrid retrieval"
        if ctx.wiki_similarity is not None:
            how += f" (the best wiki page was only {ctx.wiki_similarity:.2f} similar)"
    return f"{what}: {how}."


def refusal_text(ctx: Context, evidence: float, threshold: float) -> str:
    """A refusal that says what was searched and why nothing qualified."""
    if ctx.scope.chunks == 0:
        return (
            f"I can't answer this: {ctx.scope.describe()} holds no passages yet. "
            "Add or ingest sources first."
        )
    if not ctx.passages:
        return f"I found no passage for this question. {_searched(ctx)}"
    return (
        "I found no evidence in your sources that answers this question. "
        f"{_searched(ctx)} The evidence scored {evidence:.2f}, below the "
        f"calibrated threshold of {threshold:.2f}."
    )


async def answer_from_context(
    ctx: AnswerContext,
    context: Context,
    *,
    question: str,
    history: list[ChatMessage] | None = None,
    calibration: Calibration | None = None,
    score_only: bool = False,
    provider: LLMProvider | None = None,
) -> Answer:
    """Answer ``question`` from the numbered ``context`` (or refuse).

    ``calibration``: None reads the calibration file (an error when missing). ``provider``:
    defaults to the context's LLM provider; the offline provider selects the extractive
    engine."""
    # One deadline for the answer, from here: scoring, the model call with its retries and
    # fallbacks; past it the answer is extractive (settings.llm.answer_deadline_s).
    deadline = Deadline.after(ctx.settings.llm.answer_deadline_s)
    if not score_only and calibration is None:
        calibration = load_calibration(settings=ctx.settings)
    resolved = context.resolved_query is not None and context.resolved_vector is not None
    query = context.resolved_query if resolved and context.resolved_query else context.query
    salient = gate.salient_terms(question)
    # One session, two statements: the terms' lexemes and statistics, the stored sentences.
    inputs = await offline.pg_answer_inputs(
        ctx.db,
        context.scope.workspace_id,
        query=query,
        question=question,
        salient=salient,
        chunk_ids=[p.chunk_id for p in context.passages if p.chunk_id is not None],
    )
    scored = await offline.score_sentences(
        query=query,
        query_vector=(
            context.resolved_vector
            if resolved and context.resolved_vector is not None
            else context.query_vector
        ),
        passages=context.passages,
        embedder=ctx.embedder,
        lexer=inputs.lexer(offline.pg_lexer(ctx.db)),
        idf=inputs.idf(),
        question=question,
        stored=inputs.stored,
    )
    evidence = offline.evidence_score(scored)
    stats = offline.question_stats(inputs.stats.lexemes[1], inputs.stats.lexemes[2:], inputs.stats)
    gate_features = gate.features(
        question=question,
        sentences=[
            gate.SentenceView(
                s.text, s.support, s.cosine, s.context_coverage, s.coverage, s.window_coverage
            )
            for s in scored
        ],
        passages=context.passages,
        trace=context.trace,
        absent_term=stats.salient_absent,
        question_idf=stats.idf,
    )
    answer = Answer(
        question=question,
        query=context.query,
        passages=context.passages,
        route=context.route,
        evidence_score=evidence,
        signal=SIGNAL,
        history_turns=len(history or []),
        trace={
            **context.trace,
            "evidence": {
                "signal": SIGNAL,
                "sentences_scored": len(scored),
                "top_sentences": [
                    {
                        "n": s.passage_n,
                        "text": s.text,
                        "support": s.support,
                        "cosine": s.cosine,
                        "coverage": s.coverage,
                        "window_coverage": s.window_coverage,
                        "context_coverage": s.context_coverage,
                        "answer_type": s.answer_type,
                    }
                    for s in scored[:5]
                ],
                "gate_features": gate_features,
            },
        },
    )
    answer.evidence = outcomes.best_evidence(scored, context.passages)
    answer.trace["evidence"]["outcome_signals"] = dict(
        outcomes.outcome_signals(question, scored, context.passages)
    )
    if score_only or calibration is None:
        answer.notes.append("score_only: evidence scored, no answer produced")
        answer.engine = "none"
        return answer
    threshold = calibration.threshold
    answer.threshold = threshold
    answer.trace["evidence"]["calibration"] = calibration.model_dump(mode="json")
    model = calibration.gate_model()
    if model is not None:  # the learned gate: the evidence is P(answerable)
        evidence = model.probability(gate_features)
        answer.evidence_score = evidence
        answer.signal = calibration.signal
        answer.trace["evidence"]["signal"] = calibration.signal
        answer.trace["evidence"]["max_support"] = offline.evidence_score(scored)
    nothing = outcomes.nothing_reason(question, scored, context.passages)
    if nothing is not None:
        answer.outcome = "nothing"
        answer.refused = True
        answer.refusal = refusal_text(context, evidence, threshold)
        answer.reason = f"nothing relevant: {nothing}"
        answer.engine = "none"
        return answer
    if evidence < threshold:  # invariant 4: the threshold separates answered from closest
        answer.engine = "none"
        return _closest(
            answer,
            f"the evidence scored {evidence:.2f}, below the calibrated threshold of "
            f"{threshold:.2f}",
        )

    # Sentences the extractive answer may quote: above the support threshold, or (gate)
    # within offline.CLAIM_BAND of the best one.
    pool_floor = threshold if model is None else offline.evidence_score(scored) - offline.CLAIM_BAND
    # The process's provider (opened once, closed with the runtime) unless one is passed.
    llm = provider if provider is not None else ctx.llm
    mark = llm.usage.mark()
    claims: list[AnswerClaim]
    if llm.is_generative:
        try:
            claims = await synthesize_claims(
                llm,
                question=question,
                passages=context.passages,
                history=history,
                deadline=deadline,
                evidence=answer.evidence,
            )
            answer.engine = engine_label(llm, "synthesis", since=mark)
        except LLMError as exc:
            log.warning("synthesis failed, answering extractively: %s", exc)
            answer.notes.append(
                f"model synthesis failed ({exc.reason_label}: {exc}); extractive answer instead"
            )
            claims = _extractive(scored, context, pool_floor, question)
            answer.engine = f"extractive ({exc.reason_label})"
    else:
        claims = _extractive(scored, context, pool_floor, question)
        answer.engine = "extractive"
    totals = llm.usage.totals(mark)
    answer.usage = {"provider": llm.name, **asdict(totals)}

    kept, dropped = validate_claims(claims, context.passages)
    answer.claims = kept
    answer.dropped = dropped
    answer.text = _with_lead(lead_line(kept, context.passages), render_answer_text(kept))
    if not kept:
        if llm.is_generative and not claims:
            return _closest(answer, "the model judged the best evidence insufficient")
        return _closest(
            answer,
            f"no claim could be verified against the passages it cited ({len(dropped)} dropped)",
        )
    unconfirmed = outcomes.confirm(question, kept, context.passages)
    if unconfirmed is not None:
        answer.notes.append(
            "unconfirmed claims not kept: " + " | ".join(c.quote or c.text for c in kept)
        )
        return _closest(answer, unconfirmed)
    return answer


def _closest(answer: Answer, why: str) -> Answer:
    """The closest-evidence outcome: the evidence stays, no claim is kept (nothing to
    store as a synthesis, no canvas node), a one-line reason."""
    answer.outcome = "closest"
    answer.refused = True
    answer.claims = []
    answer.text = ""
    answer.reason = outcomes.closest_reason(why)
    answer.refusal = outcomes.closest_text(answer.reason)
    return answer


def _extractive(
    scored: list[offline.ScoredSentence], context: Context, threshold: float, question: str
) -> list[AnswerClaim]:
    return offline.select_claims(scored, context.passages, threshold=threshold, question=question)


def _with_lead(lead: str, body: str) -> str:
    return f"{lead}\n{body}" if lead and body else body


def cited_sources(answer: Answer) -> list[dict[str, Any]]:
    """The sources cited by the kept claims, and only those (invariant 7)."""
    out = []
    for passage in answer.cited_passages():
        quotes = [c.quote for c in answer.claims if passage.n in c.citations and c.quote]
        locations = [
            loc.model_dump(mode="json")
            for c in answer.claims
            for loc in c.locations
            if loc.n == passage.n
        ]
        out.append({**_passage_ref(passage), "quotes": quotes, "locations": locations})
    return out


def _passage_ref(p: Passage) -> dict[str, Any]:
    return {
        "n": p.n,
        "kind": p.kind,
        "source_id": str(p.source_id) if p.source_id else None,
        "chunk_id": p.chunk_id,
        "wiki_slug": p.wiki_slug,
        "document": p.document,
        "section_title": p.section_title,
        "page": p.page,
        "page_end": p.page_end,
        "char_start": p.char_start,
        "char_end": p.char_end,
        "score": p.score,
    }
