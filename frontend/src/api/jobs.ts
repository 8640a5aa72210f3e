// A job's live state from GET /api/jobs/{id}/events (SSE, Last-Event-ID on reconnect).
import { useEffect, useRef, useState } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import { followSse, type SseMessage } from './sse'
import { keys } from './queries'
import type { Schemas } from './client'

/** One event as the stream sends it (the OpenAPI component JobEventOut). */
export type JobEvent = Schemas['JobEventOut']

export const TERMINAL_STAGES = new Set(['succeeded', 'failed', 'cancelled', 'interrupted'])

export function isFinalEvent(event: Pick<JobEvent, 'type' | 'stage'>): boolean {
  return event.type === 'status' && TERMINAL_STAGES.has(event.stage ?? '')
}

export function parseJobEvent(message: SseMessage): JobEvent | null {
  try {
    return JSON.parse(message.data) as JobEvent
  } catch {
    return null
  }
}

export interface JobStream {
  events: JobEvent[]
  /** The latest stage/progress/message seen. */
  last: JobEvent | undefined
  /** The latest event that carried a progress fraction. */
  progress: number | null
  finished: boolean
  reconnects: number
  error: string | null
}

/**
 * Follow a job's events while `enabled`. Every stored event is replayed first, so a
 * page opened mid-job shows all of it; `generation` restarts the stream (after resume).
 */
export function useJobEvents(jobId: string | null, options: { enabled?: boolean; generation?: number; workspaceId?: string } = {}): JobStream {
  const { enabled = true, generation = 0, workspaceId } = options
  const qc = useQueryClient()
  const [state, setState] = useState<JobStream>(empty)
  // The last event id per job: a re-subscription (resume, remount) continues after it.
  const cursor = useRef<{ job: string | null; id: string | undefined }>({ job: null, id: undefined })

  useEffect(() => {
    if (!jobId || !enabled) return
    if (cursor.current.job !== jobId) {
      cursor.current = { job: jobId, id: undefined }
      setState(empty)
    }
    const controller = new AbortController()
    followSse(`/api/jobs/${encodeURIComponent(jobId)}/events`, {
      lastEventId: cursor.current.id,
      signal: controller.signal,
      isFinal: (m) => {
        const e = parseJobEvent(m)
        return Boolean(e && isFinalEvent(e))
      },
      onReconnect: () => setState((s) => ({ ...s, reconnects: s.reconnects + 1 })),
      onMessage: (m) => {
        const e = parseJobEvent(m)
        if (!e) return
        cursor.current.id = m.id
        const final = isFinalEvent(e)
        setState((s) => ({
          ...s,
          events: [...s.events, e],
          last: e,
          progress: e.progress ?? s.progress,
          finished: s.finished || final,
        }))
        // What the job changed becomes visible as it lands (sources appear one by one).
        if (workspaceId && (e.data?.source_id || final || e.stage === 'done')) {
          void qc.invalidateQueries({ queryKey: keys.sources(workspaceId) })
          void qc.invalidateQueries({ queryKey: keys.workspace(workspaceId) })
        }
        if (final) void qc.invalidateQueries({ queryKey: keys.jobs })
      },
    }).catch((error: unknown) => {
      if (!controller.signal.aborted)
        setState((s) => ({ ...s, error: error instanceof Error ? error.message : String(error) }))
    })
    return () => controller.abort()
  }, [jobId, enabled, generation, qc, workspaceId])

  useEffect(() => {
    // A resumed job continues after its last event: keep the events, clear "finished".
    if (generation > 0) setState((s) => ({ ...s, finished: false, error: null }))
  }, [generation])

  return state
}

const empty: JobStream = { events: [], last: undefined, progress: null, finished: false, reconnects: 0, error: null }
