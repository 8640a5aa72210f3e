// Folding a job's events into what its panel shows. Pure functions, so they are tested
// on recorded event shapes (see jobProgress.test.ts).
import type { JobEvent } from '../api/jobs'

export interface ExternalSourceState {
  name: string
  status: 'searching' | 'ok' | 'partial' | 'failed' | 'skipped'
  found: number | null
  reason: string | null
  message: string | null
}

export interface ResearchProgress {
  intent: string | null
  queries: string[]
  sources: ExternalSourceState[]
  dedup: { found: number; unique: number; duplicates: number; known: number; selected: number; overLimit: number } | null
  // Why each selected paper was picked (its relevance to the workspace; issue 36).
  why: Array<{ title: string; why: string }>
  fetched: number
  fetchFailed: number
  ingested: number
  ingestFailed: number
  linked: number
  landed: Array<{ sourceId: string; title: string }>
}

const num = (v: unknown): number => (typeof v === 'number' ? v : 0)
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null)

/** A short, human reason for an unreachable source (never a raw connection error). */
export function reasonText(reason: string | null): string {
  switch (reason) {
    case 'not_configured':
      return 'not configured'
    case 'unreachable':
    case 'connect_error':
    case 'network':
      return 'unreachable'
    case 'timeout':
      return 'timed out'
    case 'rate_limited':
      return 'rate limited'
    case null:
      return ''
    default:
      return reason.replace(/_/g, ' ')
  }
}

export function researchProgress(events: JobEvent[]): ResearchProgress {
  const p: ResearchProgress = {
    intent: null, queries: [], sources: [], dedup: null, why: [],
    fetched: 0, fetchFailed: 0, ingested: 0, ingestFailed: 0, linked: 0, landed: [],
  }
  const byName = new Map<string, ExternalSourceState>()
  for (const e of events) {
    const d = e.data ?? {}
    if (e.stage === 'decompose') {
      p.intent = str(d.intent)
      p.queries = Array.isArray(d.queries) ? d.queries.map(String) : []
    } else if (e.stage === 'search') {
      if (Array.isArray(d.sources)) {
        for (const name of d.sources.map(String))
          if (!byName.has(name)) byName.set(name, { name, status: 'searching', found: null, reason: null, message: null })
      } else if (d.sources && typeof d.sources === 'object') {
        for (const [name, r] of Object.entries(d.sources as Record<string, Record<string, unknown>>)) {
          byName.set(name, {
            name,
            status: (str(r.status) ?? 'ok') as ExternalSourceState['status'],
            found: typeof r.found === 'number' ? r.found : null,
            reason: str(r.reason),
            message: str(r.message),
          })
        }
      } else if (typeof d.source === 'string') {
        byName.set(d.source, {
          name: d.source,
          status: (str(d.status) ?? 'failed') as ExternalSourceState['status'],
          found: typeof d.found === 'number' ? d.found : null,
          reason: str(d.reason),
          message: str(d.message),
        })
      }
    } else if (e.stage === 'dedup') {
      p.dedup = {
        found: num(d.found), unique: num(d.unique), duplicates: num(d.duplicates_total),
        known: num(d.known_total), selected: num(d.selected), overLimit: num(d.over_limit),
      }
      if (Array.isArray(d.why))
        p.why = d.why
          .filter((w): w is { title: string; why: string } => !!w && typeof w === 'object' && typeof (w as { title?: unknown }).title === 'string' && typeof (w as { why?: unknown }).why === 'string')
    } else if (e.stage === 'fetch') {
      if (d.status === 'ok') p.fetched += 1
      else if (d.status === 'failed') p.fetchFailed += 1
    } else if (e.stage === 'ingest') {
      if (d.status === 'failed') p.ingestFailed += 1
      else if (typeof d.source_id === 'string') {
        p.ingested += 1
        const title = (e.message ?? '').replace(/^ingested \([^)]*\): /, '')
        if (!p.landed.some((l) => l.sourceId === d.source_id)) p.landed.push({ sourceId: d.source_id, title })
      }
    } else if (e.stage === 'link' && typeof d.source_id === 'string') {
      p.linked += 1
    } else if (e.stage === 'done' || e.stage === 'resume') {
      // The pipeline's own totals (they include work done before a resume).
      if ('fetched' in d) p.fetched = num(d.fetched)
      if ('ingested' in d) p.ingested = num(d.ingested) + num(d.ingest_duplicates)
      if ('linked' in d) p.linked = num(d.linked)
    }
  }
  p.sources = [...byName.values()]
  return p
}

export interface FileProgress {
  name: string
  stage: string | null
  message: string | null
  /** The file's own fraction when the events carry one (phase 2), else null. */
  fraction: number | null
  outcome: 'created' | 'duplicate' | 'failed' | null
  detail: string | null
  sourceId: string | null
}

/** Per-file progress of an ingest job, from events that name the file and the job result. */
export function ingestProgress(names: string[], events: JobEvent[], result: Record<string, unknown> | null | undefined): FileProgress[] {
  const files = new Map<string, FileProgress>(
    names.map((name) => [name, { name, stage: null, message: null, fraction: null, outcome: null, detail: null, sourceId: null }]),
  )
  const named = (e: JobEvent): FileProgress | undefined => {
    const d = e.data ?? {}
    const explicit = str(d.filename) ?? str(d.file)
    if (explicit) return files.get(explicit)
    // Today's events name the file only in their message ("embedding 40 passages of a.pdf").
    const message = e.message ?? ''
    let best: FileProgress | undefined
    for (const f of files.values()) if (message.includes(f.name) && (!best || f.name.length > best.name.length)) best = f
    return best
  }
  for (const e of events) {
    const f = named(e)
    if (!f) continue
    f.stage = e.stage
    f.message = e.message
    const fileFraction = (e.data ?? {}).file_progress
    if (typeof fileFraction === 'number') f.fraction = fileFraction
    if (e.stage === 'failed') {
      f.outcome = 'failed'
      f.detail = (e.message ?? '').replace(`${f.name}: `, '')
    }
  }
  const outcomes = result && Array.isArray(result.files) ? (result.files as Array<Record<string, unknown>>) : []
  for (const r of outcomes) {
    const f = files.get(String(r.filename))
    if (!f) continue
    const status = str(r.status)
    f.outcome = status === 'created' || status === 'duplicate' || status === 'failed' ? status : f.outcome
    f.detail = str(r.error) ?? str(r.detail) ?? f.detail
    f.sourceId = str(r.source_id)
    f.fraction = 1
  }
  return [...files.values()]
}

// What a job is, in the words of the people who started it (the kinds are the backend's).
const JOB_LABELS: Record<string, string> = {
  ingest: 'Upload',
  research: 'Research',
  'research.import': 'Import',
  'bibtex.import': 'BibTeX import',
  'knowledge.refresh': 'Concepts and links refresh',
  'knowledge.rebuild': 'Knowledge rebuild',
  'knowledge.learning_path': 'Learning path',
  'tables.fill': 'Table fill',
}

export function jobLabel(kind: string): string {
  return JOB_LABELS[kind] ?? kind
}
