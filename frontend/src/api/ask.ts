// The ask stream (POST …/ask, NDJSON): meta → token… → done | error. The event types are
// the OpenAPI components AskEvent/AskMeta/AskToken/AskDone/AskError (generated client).
import { errorFromResponse, type Schemas } from './client'
import { readNdjson } from './ndjson'

// Stored messages (GET /api/conversations/{id}) carry older, partial answers, so the views
// need only the fields they read; the live events have every field of the components.
/** A numbered passage; stored answers also carry the whole passage (`text`). */
export type AnswerSource = Pick<Schemas['AskSource'], 'n' | 'document' | 'excerpt'> &
  Partial<Schemas['AskSource']> & { page_end?: number | null; text?: string }
export type AnswerClaim = Schemas['AnswerClaim']
/** A best-evidence sentence: `passage.slice(start, end)`, with its paper, page and location. */
export type EvidenceSentence = Schemas['EvidenceSentence']
/** Where a claim's quote stands in passage `n` (page-text offsets, PDF rectangles). */
export type CitationLocation = Schemas['CitationLocation']
export type AnswerSummary = Pick<Schemas['AnswerSummary'], 'text' | 'claims' | 'refused' | 'refusal' | 'cited'> &
  Partial<Schemas['AnswerSummary']>
export type AskEvent = Schemas['AskMeta'] | Schemas['AskToken'] | Schemas['AskDone'] | Schemas['AskError']

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
