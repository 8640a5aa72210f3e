// The best evidence an answer shows first (issue 32): each sentence highlighted inside
// its passage, with paper and page; a click opens the reader at the sentence, as a
// citation does. And the answer's outcome, said plainly.
import { Link } from 'react-router'
import type { AnswerSummary, EvidenceSentence } from '../../api/ask'
import { readerHref } from '../reader/geometry'
import { citationHref } from './Citation'

/** Characters of the passage shown on each side of the highlighted sentence. */
const CONTEXT_CHARS = 180

export function OutcomeLine({ summary }: { summary: AnswerSummary }) {
  // A refusal stored before the three outcomes existed says nothing more than its text.
  if (!summary.outcome && summary.refused) return null
  const outcome = summary.outcome ?? 'answered'
  const label =
    outcome === 'answered'
      ? 'Answered from your sources'
      : outcome === 'closest'
        ? 'Closest evidence — not confirmed as an answer'
        : 'Nothing relevant in your sources'
  const tone =
    outcome === 'answered'
      ? 'text-emerald-800 dark:text-emerald-300'
      : outcome === 'closest'
        ? 'text-amber-800 dark:text-amber-300'
        : 'text-stone-700 dark:text-stone-300'
  return (
    <p className={`text-sm font-semibold ${tone}`} data-testid="answer-outcome" data-outcome={outcome}>
      {label}
      {outcome === 'closest' && summary.reason && (
        <span className="block font-normal text-stone-700 dark:text-stone-300" data-testid="answer-reason">
          {summary.reason.replace(/^not confirmed as an answer: /, '')}
        </span>
      )}
    </p>
  )
}

export function EvidenceBlock({ evidence, workspaceId }: { evidence: EvidenceSentence[]; workspaceId: string }) {
  if (!evidence.length) return null
  return (
    <section className="grid gap-2" data-testid="answer-evidence" aria-label="Best evidence">
      <h3 className="text-xs font-semibold uppercase tracking-wide text-stone-600 dark:text-stone-400">Best evidence</h3>
      <ol className="grid gap-2">
        {evidence.map((e, i) => (
          <li key={`${e.n}-${e.start}`} className="list-none rounded-md border border-stone-200 p-2 text-sm dark:border-stone-700" data-testid="evidence-item" data-n={e.n}>
            <p className="font-serif leading-relaxed text-stone-700 dark:text-stone-300">
              <Excerpt evidence={e} />
            </p>
            <p className="mt-1 text-xs text-stone-600 dark:text-stone-400">
              <span className="tabular-nums">{i + 1}.</span> <span className="font-medium">{e.document}</span>
              {e.page ? ` · p. ${e.page}` : ''}
              {e.source_id && (
                <>
                  {' · '}
                  <Link className="text-accent-700 underline dark:text-accent-300" data-testid="evidence-open" to={evidenceHref(workspaceId, e)}>
                    Open in the reader{e.page ? ` at page ${e.page}` : ''}
                  </Link>
                </>
              )}
            </p>
          </li>
        ))}
      </ol>
    </section>
  )
}

function Excerpt({ evidence: e }: { evidence: EvidenceSentence }) {
  const text = e.passage
  const start = Math.max(0, e.start - CONTEXT_CHARS)
  const end = Math.min(text.length, e.end + CONTEXT_CHARS)
  // Cut the context at word boundaries.
  const before = text.slice(start, e.start).replace(start > 0 ? /^\S*\s/ : /^/, '')
  const after = text.slice(e.end, end).replace(end < text.length ? /\s\S*$/ : /$/, '')
  return (
    <>
      {start > 0 && '… '}
      {before}
      <mark data-testid="evidence-sentence" className="rounded-sm bg-yellow-200 px-0.5 text-stone-900 dark:bg-yellow-500/40 dark:text-yellow-50">
        {text.slice(e.start, e.end)}
      </mark>
      {after}
      {end < text.length && ' …'}
    </>
  )
}

/** The reader at the sentence: its rectangles on a PDF, its page otherwise. */
export function evidenceHref(workspaceId: string, e: EvidenceSentence): string {
  if (!e.source_id) return ''
  if (e.location) return citationHref(workspaceId, e.source_id, e.n, { n: e.n, document: e.document, excerpt: '', page: e.page }, e.location)
  return readerHref(workspaceId, e.source_id, { page: e.page, n: e.n })
}
