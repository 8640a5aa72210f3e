// Server-sent events over fetch (not EventSource: we want to set Last-Event-ID ourselves,
// see HTTP errors as errors, and stop for good when the job is over).
import { LineSplitter } from './ndjson'
import { errorFromResponse } from './client'

export interface SseMessage {
  id: string | undefined
  event: string
  data: string
}

/** The event-stream format (HTML spec §9.2): fields per line, a blank line dispatches. */
export class SseParser {
  private readonly lines = new LineSplitter()
  private data: string[] = []
  private event = ''
  private id: string | undefined
  /** The id of the last dispatched event: what to send as Last-Event-ID. */
  lastEventId: string | undefined
  retryMs: number | undefined

  push(chunk: Uint8Array | string): SseMessage[] {
    return this.lines.push(chunk).flatMap((line) => this.line(line))
  }

  end(): SseMessage[] {
    // An event not closed by a blank line is incomplete and must not be dispatched.
    this.lines.end()
    this.data = []
    this.event = ''
    return []
  }

  private line(line: string): SseMessage[] {
    if (line === '') return this.dispatch()
    if (line.startsWith(':')) return []
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') this.data.push(value)
    else if (field === 'event') this.event = value
    else if (field === 'id' && !value.includes('\0')) this.id = value
    else if (field === 'retry' && /^\d+$/.test(value)) this.retryMs = Number(value)
    return []
  }

  private dispatch(): SseMessage[] {
    if (this.id !== undefined) this.lastEventId = this.id
    if (this.data.length === 0) {
      this.event = ''
      return []
    }
    const message = { id: this.lastEventId, event: this.event || 'message', data: this.data.join('\n') }
    this.data = []
    this.event = ''
    return [message]
  }
}

export interface FollowOptions {
  /** Resume after this event id (sent as Last-Event-ID). */
  lastEventId?: string
  /** True once the stream has said everything (e.g. the job's final status). */
  isFinal: (message: SseMessage) => boolean
  onMessage: (message: SseMessage) => void
  /** Called before each reconnect, with the id it resumes from. */
  onReconnect?: (lastEventId: string | undefined, attempt: number) => void
  signal?: AbortSignal
  fetch?: typeof fetch
  retryMs?: number
  maxRetryMs?: number
}

class FinalSeen extends Error {}

/**
 * Follow an event stream until a final message, reconnecting with Last-Event-ID when the
 * connection drops or the server closes early. HTTP errors (404: no such job) are thrown.
 */
export async function followSse(url: string, options: FollowOptions): Promise<void> {
  const doFetch = options.fetch ?? fetch
  let lastEventId = options.lastEventId
  let attempt = 0
  let delay = options.retryMs ?? 500
  for (;;) {
    if (options.signal?.aborted) return
    const parser = new SseParser()
    try {
      const headers: Record<string, string> = { Accept: 'text/event-stream' }
      if (lastEventId !== undefined) headers['Last-Event-ID'] = lastEventId
      const response = await doFetch(url, { headers, signal: options.signal, cache: 'no-store' })
      if (!response.ok) throw await errorFromResponse(response)
      if (!response.body) throw new Error('the event stream has no body')
      const reader = response.body.getReader()
      try {
        for (;;) {
          const { done, value } = await reader.read()
          if (done) break
          for (const message of parser.push(value)) {
            if (message.id !== undefined) lastEventId = message.id
            options.onMessage(message)
            if (options.isFinal(message)) throw new FinalSeen()
          }
          attempt = 0
          delay = options.retryMs ?? 500
        }
      } finally {
        reader.releaseLock()
      }
      parser.end()
    } catch (error) {
      if (error instanceof FinalSeen) return
      if (options.signal?.aborted) return
      if (error && typeof error === 'object' && 'status' in error) throw error // HTTP error: final
    }
    // Closed without a final message (network drop, server restart): resume where we were.
    attempt += 1
    options.onReconnect?.(lastEventId, attempt)
    await sleep(parser.retryMs ?? delay, options.signal)
    delay = Math.min(delay * 2, options.maxRetryMs ?? 10_000)
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener('abort', () => {
      clearTimeout(timer)
      resolve()
    })
  })
}
