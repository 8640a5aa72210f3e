import { useState } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import { api, unwrap } from '../../api/client'
import type { AnswerClaim, AnswerSource, AnswerSummary } from '../../api/ask'
import { Markdown } from '../../lib/Markdown'
import { normalize } from '../../lib/quotes'
import { Button } from '../../ui/Button'
import { CitationButton } from './Citation'
import { ResolvedQuestion } from './ResolvedQuestion'
import { answerMarkdown } from './copy'
import { EvidenceBlock, OutcomeLine } from './Evidence'

export interface Turn {
  key: string
  question: string
  sources: AnswerSource[]
  /** The answer text as streamed so far. */
  text: string
  summary: AnswerSummary | null
  error: string | null
  streaming: boolean
  /** A follow-up's question as searched (the stream's meta event, the stored answer). */
  resolvedQuestion?: string | null
  /** The stored assistant message (the pin's target), once known. */
  messageId?: string | null
  /** On the canvas: the user pinned it. */
  pinned?: boolean
}

export function TurnView({ turn, workspaceId }: { turn: Turn; workspaceId: string }) {
  const byN = new Map(turn.sources.map((s) => [s.n, s]))
  const cite = (claimIndex: number, quote: string | null) => (n: number) => (
    <CitationButton
      key={`${claimIndex}-${n}`}
      id={`${turn.key}:${claimIndex}:${n}`}
      n={n}
      source={byN.get(n)}
      quote={quote}
      location={turn.summary?.claims[claimIndex]?.locations?.find((l) => l.n === n)}
      workspaceId={workspaceId}
    />
  )
  const cited = new Set(turn.summary?.cited ?? turn.summary?.claims.flatMap((c) => c.citations) ?? [])
  return (
    <article className="grid gap-2" data-testid="turn" aria-label={`Question: ${turn.question}`}>
      <p className="ml-auto max-w-[85%] rounded-lg bg-accent-600 px-3 py-2 text-white dark:bg-accent-700" data-testid="question">
        {turn.question}
      </p>
      <div className="rounded-lg border border-stone-200 bg-white p-3 dark:border-stone-800 dark:bg-stone-900">
        <ResolvedQuestion text={turn.resolvedQuestion ?? turn.summary?.resolved_question} />
        {turn.summary && (turn.summary.outcome ?? 'answered') !== 'nothing' && <EvidenceBlock evidence={turn.summary.evidence ?? []} workspaceId={workspaceId} />}
        {turn.summary && <div className="mt-2"><OutcomeLine summary={turn.summary} /></div>}
        {turn.sources.length > 0 && <SourcesList sources={turn.sources} cited={cited} />}
        {turn.sources.length === 0 && turn.streaming && <p className="text-sm text-stone-600 dark:text-stone-400">Searching your sources…</p>}
        <div className="prose-answer mt-2 leading-relaxed" data-testid="answer">
          {turn.error && (
            <p role="alert" className="text-red-800 dark:text-red-300">
              {turn.error}
            </p>
          )}
          {turn.summary?.refused && turn.summary.outcome === 'closest' ? null : turn.summary?.refused ? (
            <div data-testid="refusal" className="rounded-md border-l-4 border-amber-500 bg-amber-50 p-2 text-stone-800 dark:bg-amber-900/20 dark:text-stone-200">
              {turn.summary.refusal ?? turn.text}
            </div>
          ) : turn.summary ? (
            <ol className="grid gap-2">
              {turn.summary.claims.map((claim, i) => (
                <ClaimView key={i} claim={claim} renderCitation={cite(i, claim.quote ?? null)} />
              ))}
            </ol>
          ) : (
            <div data-testid="answer-text" aria-live="polite" aria-busy={turn.streaming}>
              <Markdown text={turn.text} renderCitation={cite(-1, null)} />
              {turn.streaming && turn.text && <span className="ml-0.5 inline-block h-4 w-1.5 animate-pulse bg-stone-400 align-middle" aria-hidden="true" />}
            </div>
          )}
        </div>
        {turn.summary && !turn.streaming && (
          <div className="mt-2 flex flex-wrap items-center gap-2">
            <CopyButton turn={turn} />
            {!turn.summary.refused && turn.messageId && <PinButton messageId={turn.messageId} initial={Boolean(turn.pinned)} workspaceId={workspaceId} />}
          </div>
        )}
      </div>
    </article>
  )
}

function ClaimView({ claim, renderCitation }: { claim: AnswerClaim; renderCitation: (n: number) => React.ReactNode }) {
  // The quote is shown once: as the claim itself when the claim is the quote (the
  // extractive engine), else beneath it.
  const verbatim = !claim.quote || normalize(claim.quote) === normalize(claim.text)
  return (
    <li data-testid="claim" className="list-none">
      <div className={verbatim && claim.quote ? 'border-l-2 border-stone-300 pl-2 dark:border-stone-600' : ''}>
        <Markdown text={claim.text.trim()} inline />
        {claim.citations.map((n) => renderCitation(n))}
      </div>
      {!verbatim && claim.quote && (
        <blockquote className="mt-1 border-l-2 border-stone-300 pl-2 font-serif text-sm text-stone-700 dark:border-stone-600 dark:text-stone-300" data-testid="claim-quote">
          “{normalize(claim.quote)}”
        </blockquote>
      )}
    </li>
  )
}

function SourcesList({ sources, cited }: { sources: AnswerSource[]; cited: Set<number> }) {
  const [all, setAll] = useState(false)
  const ordered = [...sources].sort((a, b) => Number(cited.has(b.n)) - Number(cited.has(a.n)) || a.n - b.n)
  const shown = all || cited.size === 0 ? ordered : ordered.filter((s) => cited.has(s.n))
  return (
    <details open className="text-sm" data-testid="answer-sources">
      <summary className="cursor-pointer text-stone-700 dark:text-stone-300">
        {cited.size ? `${cited.size} cited of ${sources.length} passages searched` : `${sources.length} passages found`}
      </summary>
      <ol className="mt-1 grid gap-1">
        {shown.map((s) => (
          <li key={s.n} data-testid="answer-source" data-n={s.n} className="flex gap-2 text-xs">
            <span className="font-semibold tabular-nums text-accent-700 dark:text-accent-300">[{s.n}]</span>
            <span className="min-w-0">
              <span className="font-medium">{s.document}</span>
              {s.page ? <span className="text-stone-600 dark:text-stone-400"> · p. {s.page}</span> : null}
              {s.section_title ? <span className="text-stone-600 dark:text-stone-400"> · {s.section_title}</span> : null}
              <span className="line-clamp-1 text-stone-600 dark:text-stone-400">{s.excerpt}</span>
            </span>
          </li>
        ))}
      </ol>
      {cited.size > 0 && sources.length > cited.size && (
        <button type="button" className="mt-1 text-xs text-accent-700 underline dark:text-accent-300" onClick={() => setAll((a) => !a)}>
          {all ? 'Show cited only' : `Show all ${sources.length}`}
        </button>
      )}
    </details>
  )
}

function CopyButton({ turn }: { turn: Turn }) {
  const [copied, setCopied] = useState<string | null>(null)
  const copy = async () => {
    if (!turn.summary) return
    const text = answerMarkdown(turn.question, turn.summary, turn.sources)
    try {
      await navigator.clipboard.writeText(text)
      setCopied('Copied as Markdown')
    } catch {
      setCopied('The browser refused the clipboard')
    }
    setTimeout(() => setCopied(null), 2500)
  }
  return (
    <div className="flex items-center gap-2">
      <Button size="sm" variant="ghost" onClick={copy} data-testid="copy-answer">
        Copy as Markdown
      </Button>
      <span role="status" className="text-xs text-stone-600 dark:text-stone-400">
        {copied}
      </span>
    </div>
  )
}

/** Puts the answer on the workspace's canvas (or takes it off): answers are never added
 * automatically, only those the user keeps. */
function PinButton({ messageId, initial, workspaceId }: { messageId: string; initial: boolean; workspaceId: string }) {
  const qc = useQueryClient()
  const [pinned, setPinned] = useState(initial)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const toggle = async () => {
    setBusy(true)
    setError(null)
    try {
      const params = { params: { path: { message_id: messageId } } }
      const saved = unwrap(pinned ? await api.DELETE('/api/messages/{message_id}/pin', params) : await api.POST('/api/messages/{message_id}/pin', params))
      setPinned(Boolean(saved.pinned_at))
      void qc.invalidateQueries({ queryKey: ['graph', workspaceId] })
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e))
    } finally {
      setBusy(false)
    }
  }
  return (
    <>
      <Button size="sm" variant="ghost" onClick={toggle} disabled={busy} aria-pressed={pinned} data-testid="answer-pin" data-pinned={pinned}>
        {pinned ? 'Unpin from canvas' : 'Pin to canvas'}
      </Button>
      {error && (
        <span role="alert" className="text-xs text-red-700 dark:text-red-400">
          {error}
        </span>
      )}
    </>
  )
}
