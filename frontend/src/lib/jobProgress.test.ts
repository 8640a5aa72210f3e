import { describe, expect, it } from 'vitest'
import type { JobEvent } from '../api/jobs'
import { ingestProgress, jobLabel, reasonText, researchProgress } from './jobProgress'

let id = 0
const ev = (stage: string, message: string, data: Record<string, unknown> = {}, progress: number | null = null, type = 'stage'): JobEvent => ({
  id: ++id, job_id: 'j', type, stage, message, progress, data, created_at: null,
})

describe('researchProgress (event shapes of discovery/pipeline.py)', () => {
  it('follows each external source, dedup counts, fetch/ingest/link counts and landed sources', () => {
    const events = [
      ev('decompose', 'intent …', { intent: 'survey', queries: ['long attention', 'sparse attention'] }, 0.05),
      ev('search', 'searching …', { sources: ['arxiv', 'openalex', 'brave'], queries: [] }, 0.06),
      ev('search', 'brave: skipped', { source: 'brave', status: 'skipped', found: 0, reason: 'not_configured', message: 'no key' }),
      ev('search', 'found 12', { found: 12, sources: { arxiv: { status: 'ok', found: 12, reason: null, message: null }, openalex: { status: 'failed', found: 0, reason: 'unreachable', message: 'ConnectError' }, brave: { status: 'skipped', found: 0, reason: 'not_configured', message: 'no key' } } }, 0.1),
      ev('dedup', '12 found → 9 unique', { found: 12, unique: 9, duplicates_total: 3, known_total: 1, selected: 8, over_limit: 0 }, 0.15),
      ev('fetch', 'fetched', { key: 'c0', status: 'ok' }, 0.3),
      ev('fetch', 'fetch failed', { key: 'c1', status: 'failed', reason: 'http_status' }, 0.35),
      ev('ingest', 'ingested (full text): Longformer', { key: 'c0', status: 'created', source_id: 's0' }, 0.5),
      ev('link', 'linked', { key: 'c0', source_id: 's0', claims: 3 }, 0.6),
    ]
    const p = researchProgress(events)
    expect(p.queries).toEqual(['long attention', 'sparse attention'])
    expect(p.sources.map((s) => [s.name, s.status, s.found])).toEqual([
      ['arxiv', 'ok', 12], ['openalex', 'failed', 0], ['brave', 'skipped', 0],
    ])
    expect(reasonText(p.sources[1]!.reason)).toBe('unreachable')
    expect(reasonText(p.sources[2]!.reason)).toBe('not configured')
    expect(p.dedup).toMatchObject({ found: 12, unique: 9, duplicates: 3, known: 1, selected: 8 })
    expect([p.fetched, p.fetchFailed, p.ingested, p.linked]).toEqual([1, 1, 1, 1])
    expect(p.landed).toEqual([{ sourceId: 's0', title: 'Longformer' }])
  })
})

describe('ingestProgress (event shapes of ingest/jobs.py)', () => {
  it('attributes stage events to files by name, and takes outcomes from the job result', () => {
    const events = [
      ev('parsing', 'parsing a.pdf', {}, 0),
      ev('parsing', 'parsing a-long-name.pdf', {}, 0.5),
      ev('embedding', 'embedding 40 passages of a-long-name.pdf', {}, 0.5),
      ev('failed', 'a.pdf: the PDF is encrypted', {}, null, 'log'),
    ]
    const running = ingestProgress(['a.pdf', 'a-long-name.pdf'], events, null)
    expect(running.map((f) => [f.name, f.stage, f.outcome])).toEqual([
      ['a.pdf', 'failed', 'failed'],
      ['a-long-name.pdf', 'embedding', null],
    ])
    expect(running[0]!.detail).toBe('the PDF is encrypted')
    expect(running[1]!.fraction).toBeNull() // no per-file fraction yet: the bar is indeterminate
    const done = ingestProgress(['a.pdf', 'a-long-name.pdf'], events, {
      files: [{ filename: 'a.pdf', status: 'failed', error: 'the PDF is encrypted' }, { filename: 'a-long-name.pdf', status: 'created', source_id: 's1' }],
    })
    expect(done.map((f) => f.outcome)).toEqual(['failed', 'created'])
    expect(done[1]!.sourceId).toBe('s1')
  })

  it('prefers the file a (phase 2) event names in its data, with its own fraction', () => {
    const events = [ev('embedding', 'embedding 12/40', { filename: 'b.pdf', file_progress: 0.3 }, 0.15)]
    expect(ingestProgress(['a.pdf', 'b.pdf'], events, null)[1]).toMatchObject({ stage: 'embedding', fraction: 0.3 })
  })
})

describe('researchProgress: why each paper was selected (issue 36)', () => {
  it('keeps the dedup event’s why list and drops malformed entries', () => {
    const p = researchProgress([
      ev('dedup', '30 found → 20 unique → 2 selected', {
        found: 30, unique: 20, selected: 2,
        why: [
          { title: 'SPECTER', why: 'similar to the description (0.71); shares “citation”' },
          { title: 7, why: 'not a title' },
          null,
          { title: 'S2ORC', why: 'similar to the description (0.55)' },
        ],
      }, 0.15),
    ])
    expect(p.why.map((w) => w.title)).toEqual(['SPECTER', 'S2ORC'])
    expect(p.why[0]?.why).toContain('similar to the description')
  })

  it('has no why before the dedup stage', () => {
    expect(researchProgress([]).why).toEqual([])
  })
})

describe('jobLabel', () => {
  it('names known kinds in words and leaves an unknown kind as it is', () => {
    expect(jobLabel('knowledge.refresh')).toBe('Concepts and links refresh')
    expect(jobLabel('research.import')).toBe('Import')
    expect(jobLabel('something.new')).toBe('something.new')
  })
})
