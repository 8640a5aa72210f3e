// What a cell shows and where a click on it goes (pure: tested without a browser).
import { chunkReaderHref } from '../reader/geometry'
import { normalize } from '../../lib/quotes'
import type { Cell, CellQuote } from './api'

/** The reader at a cell's quote: its chunk and page, the quote marked by the backend. */
export function quoteHref(workspaceId: string, sourceId: string, quote: CellQuote): string {
  return chunkReaderHref(workspaceId, sourceId, { chunk_index: quote.chunk_index, page_start: quote.page ?? null }, quote.text)
}

/** Where a click on the cell goes: its first quote, or nowhere (pending, not reported). */
export function cellHref(workspaceId: string, sourceId: string, cell: Cell): string | null {
  const first = cell.state === 'filled' && !cell.not_reported ? cell.quotes?.[0] : undefined
  return first ? quoteHref(workspaceId, sourceId, first) : null
}

/** A confidence (the offline engine's rank, 0-1) as words a reader can weigh. */
export function confidenceLabel(confidence: number | null | undefined): string | null {
  if (confidence === null || confidence === undefined) return null
  const level = confidence >= 0.75 ? 'high' : confidence >= 0.5 ? 'medium' : 'low'
  return `${level} confidence (${confidence.toFixed(2)})`
}

/** A quote shortened for the grid (the whole quote is in its title and in the reader). */
export function clip(text: string, max = 220): string {
  const flat = text.split(/\s+/).join(' ').trim()
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`
}

/** Where a quote stands, for its label: "p. 5" or "pp. 5–6". */
export function pageLabel(quote: CellQuote): string {
  if (!quote.page) return ''
  return quote.page_end && quote.page_end !== quote.page ? `pp. ${quote.page}–${quote.page_end}` : `p. ${quote.page}`
}

/** The parsed questions of a column editor: one per non-empty line. */
export function questionsFrom(texts: string[]): string[] {
  return texts.map((t) => t.split(/\s+/).join(' ').trim()).filter((t) => t.length > 0)
}

/** Is the cell's answer its (first) quote — a sentence answer, not a cut-out value? */
export function sameAsQuote(cell: Cell): boolean {
  const first = cell.quotes?.[0]
  const answer = normalize(cell.answer.replace(/ …$/, ''))
  return Boolean(first) && answer !== '' && normalize(first!.text).startsWith(answer)
}
