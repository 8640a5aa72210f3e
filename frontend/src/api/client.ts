// The small API layer: one openapi-fetch client over the generated schema, and errors
// turned into ApiError (every backend error is JSON {"error", "detail"}).
import createClient from 'openapi-fetch'
import type { components, paths } from './schema'

export type Schemas = components['schemas']
export type Workspace = Schemas['WorkspaceOut']
export type WorkspaceListItem = Schemas['WorkspaceListItem']
export type WorkspaceDetail = Schemas['WorkspaceDetail']
export type Source = Schemas['SourceOut']
export type Job = Schemas['JobOut']
export type Chunk = Schemas['ChunkOut']
export type Conversation = Schemas['ConversationOut']
export type ConversationDetail = Schemas['ConversationDetail']
export type Message = Schemas['MessageOut']
export type UploadLimits = Schemas['UploadLimits']

export const api = createClient<paths>({ baseUrl: '' })

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
  ) {
    super(detail || code || `HTTP ${status}`)
    this.name = 'ApiError'
  }
}

/** An ApiError from an error body (or from a response whose body is not JSON). */
export function toApiError(status: number, body: unknown): ApiError {
  if (body && typeof body === 'object') {
    const b = body as { error?: unknown; detail?: unknown }
    const detail = typeof b.detail === 'string' ? b.detail : b.detail ? JSON.stringify(b.detail) : ''
    return new ApiError(status, typeof b.error === 'string' ? b.error : 'error', detail)
  }
  return new ApiError(status, 'error', typeof body === 'string' && body ? body : `HTTP ${status}`)
}

/** The data of an openapi-fetch result, or throw its error as an ApiError. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.error !== undefined || !result.response.ok) {
    throw toApiError(result.response.status, result.error)
  }
  return result.data as T
}

export async function errorFromResponse(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '')
  try {
    return toApiError(response.status, JSON.parse(text))
  } catch {
    return toApiError(response.status, text)
  }
}
