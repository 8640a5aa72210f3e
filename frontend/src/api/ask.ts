// The ask stream (POST …/ask, NDJSON): meta → token… → done | error.
// These types are written by hand from backend/marginalia/answer/streaming.py until the
// events are OpenAPI components (phase 2); unknown fields are tolerated.
import { errorFromResponse } from './client'
import { readNdjson } from './ndjson'

export interface AnswerSource {
  n: number
  kind?: 'chunk' | 'wiki' | string
  document: string
  excerpt: string
  score?: number
  page?: number | null
  page_end?: number | null
  source_id?: string | null
  chunk_id?: number | null
  section_title?: string | null
  wiki_slug?: string | null
  /** The whole passage (stored answers carry it; the live meta event only an excerpt). */
  text?: string
}

/** Where a claim's quote stands in passage `n`: stored page-text offsets and, for a PDF,
 * rectangles (0–1, origin top-left, unrotated page coordinates). */
export interface CitationLocation {
  n: number
  source_id: string
  page: number
  page_end: number
  char_start: number
  char_end: number
  rects: { page: number; x0: number; y0: number; x1: number; y1: number }[]
}

export interface AnswerClaim {
  text: string
  citations: number[]
  quote?: string | null
  locations?: CitationLocation[]
}

export interface AnswerSummary {
  text: string
  claims: AnswerClaim[]
  refused: boolean
  refusal?: string | null
  route?: string
  engine?: string
  evidence_score?: number
  threshold?: number | null
  cited?: number[]
}

export type AskEvent =
  | { type: 'meta'; conversation_id: string; title?: string; route?: string; sources: AnswerSource[] }
  | { type: 'token'; text: string }
  | { type: 'done'; message_id: string; conversation_id: string; answer: AnswerSummary }
  | { type: 'error'; error: string; detail: string; conversation_id?: string | null }

export type AskScope = { workspaceId: string } | { sourceId: string }

export function askUrl(scope: AskScope): string {
  return 'sourceId' in scope
    ? `/api/sources/${encodeURIComponent(scope.sourceId)}/ask`
    : `/api/workspaces/${encodeURIComponent(scope.workspaceId)}/ask`
}

/** Ask a question; yields the stream's events. Request errors throw ApiError. */
export async function* ask(
  scope: AskScope,
  question: string,
  conversationId: string | undefined,
  signal?: AbortSignal,
): AsyncGenerator<AskEvent> {
  const response = await fetch(askUrl(scope), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/x-ndjson' },
    body: JSON.stringify({ question, ...(conversationId ? { conversation_id: conversationId } : {}) }),
    signal,
  })
  if (!response.ok) throw await errorFromResponse(response)
  if (!response.body) throw new Error('the answer stream has no body')
  yield* readNdjson<AskEvent>(response.body)
}
