import * as Popover from '@radix-ui/react-popover'
import { useEffect, useRef } from 'react'
import { Link, useNavigate } from 'react-router'
import type { AnswerSource, CitationLocation } from '../../api/ask'
import { readerHref } from '../reader/geometry'
import { findQuote } from '../../lib/quotes'
import { useUi } from '../../store'
import { usePassageText } from './passages'
import { reference } from './copy'

/** `[n]`: a click opens the reader at the quote's page with the quote marked and scrolled
 * into view; hovering (or focusing) it previews the cited passage, its quote highlighted. A
 * passage without a stored source (nothing to open) shows the preview on click instead. */
export function CitationButton(props: {
  id: string
  n: number
  source: AnswerSource | undefined
  quote: string | null
  location?: CitationLocation
  workspaceId: string
  /** Where a click goes, when the caller knows better (a saved answer's chunk and quote). */
  href?: string | null
}) {
  const { id, n, source, quote, location, workspaceId } = props
  const open = useUi((s) => s.citation?.id === id)
  const setCitation = useUi((s) => s.openCitation)
  const navigate = useNavigate()
  const timer = useRef<number | undefined>(undefined)
  const href = props.href ?? (source?.source_id ? citationHref(workspaceId, source.source_id, n, source, location) : null)
  const later = (show: boolean, ms: number) => {
    window.clearTimeout(timer.current)
    timer.current = window.setTimeout(() => setCitation(show ? { id, n, quote } : null), ms)
  }
  useEffect(() => () => window.clearTimeout(timer.current), [])
  const hover = { onPointerEnter: () => later(true, 250), onPointerLeave: () => later(false, 200) }
  return (
    <Popover.Root open={open} onOpenChange={(o) => setCitation(o ? { id, n, quote } : null)}>
      <Popover.Anchor asChild>
        <button
          type="button"
          data-testid="citation"
          data-n={n}
          disabled={!source}
          aria-label={source ? `Source ${n}: ${source.document}${href ? ', open it in the reader' : ''}` : `Source ${n}`}
          aria-haspopup="dialog"
          aria-expanded={open}
          onClick={() => {
            window.clearTimeout(timer.current)
            if (href) {
              setCitation(null)
              navigate(href)
            } else setCitation(open ? null : { id, n, quote })
          }}
          {...hover}
          className="mx-0.5 inline-flex h-5 min-w-5 items-center justify-center rounded bg-accent-100 px-1 align-baseline text-[0.75rem] font-semibold text-accent-700 hover:bg-accent-300/60 disabled:opacity-50 dark:bg-accent-700/40 dark:text-accent-100 dark:hover:bg-accent-700/70"
        >
          {n}
        </button>
      </Popover.Anchor>
      <Popover.Portal>
        <Popover.Content
          sideOffset={6}
          collisionPadding={12}
          onOpenAutoFocus={(e) => e.preventDefault()}
          {...hover}
          className="z-50 max-h-[min(28rem,70vh)] w-[min(30rem,calc(100vw-1.5rem))] overflow-y-auto rounded-lg border border-stone-200 bg-white p-3 text-sm shadow-xl dark:border-stone-700 dark:bg-stone-900"
          data-testid="passage"
          aria-label={`Passage ${n}`}
        >
          {source && open && <PassageBody n={n} source={source} quote={quote} location={location} workspaceId={workspaceId} href={href} />}
          <Popover.Arrow className="fill-white dark:fill-stone-900" />
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  )
}

/** The reader at the quote: its rectangles on a PDF, its characters in a text source. */
export function citationHref(workspaceId: string, sourceId: string, n: number, source: AnswerSource, location?: CitationLocation): string {
  if (!location) return readerHref(workspaceId, sourceId, { page: source.page, n })
  const href = readerHref(workspaceId, sourceId, { page: location.page, rects: location.rects, n })
  if (location.rects?.length) return href
  const chars = `${location.page}:${location.char_start},${location.page_end}:${location.char_end}`
  return `${href}${href.includes('?') ? '&' : '?'}chars=${encodeURIComponent(chars)}`
}

function PassageBody(props: { n: number; source: AnswerSource; quote: string | null; location?: CitationLocation; workspaceId: string; href: string | null }) {
  const { n, source, quote, location, workspaceId, href } = props
  const passage = usePassageText(workspaceId, source, true)
  const span = passage.text ? findQuote(passage.text, quote) : null
  return (
    <div>
      <p className="font-medium">
        [{n}] {reference(source)}
      </p>
      <div className="mt-2 whitespace-normal font-serif leading-relaxed text-stone-800 dark:text-stone-200" data-testid="passage-text">
        {passage.pending && 'Loading the passage…'}
        {passage.text &&
          (span ? (
            <>
              {passage.text.slice(0, span[0])}
              <mark data-testid="passage-quote" className="rounded-sm bg-yellow-200 px-0.5 text-stone-900 dark:bg-yellow-500/40 dark:text-yellow-50">
                {passage.text.slice(span[0], span[1])}
              </mark>
              {passage.text.slice(span[1])}
            </>
          ) : (
            passage.text
          ))}
      </div>
      {quote && passage.text && !span && <p className="mt-2 text-xs text-stone-600 dark:text-stone-400">The quote is not in this passage; it is in another one this claim cites.</p>}
      {source.source_id && (
        <Link
          className="mt-2 inline-block text-sm font-medium text-accent-700 underline dark:text-accent-300"
          data-testid="open-reader"
          to={href ?? citationHref(workspaceId, source.source_id, n, source, location)}
        >
          Open in the reader{(location?.page ?? source.page) ? ` at page ${location?.page ?? source.page}` : ''}
          {location || href?.includes('quote=') ? ', quote marked' : ''}
        </Link>
      )}
    </div>
  )
}
