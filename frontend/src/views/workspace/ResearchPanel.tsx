import { useState, type FormEvent } from 'react'
import { useStartResearch } from '../../api/queries'
import type { WorkspaceDetail } from '../../api/client'
import { useJobEvents } from '../../api/jobs'
import { reasonText, researchProgress } from '../../lib/jobProgress'
import { Button } from '../../ui/Button'
import { ErrorText, Textarea } from '../../ui/Field'
import { Progress } from '../../ui/Progress'
import { useUi } from '../../store'
import { cx } from '../../lib/cx'

export function ResearchPanel({ workspace }: { workspace: WorkspaceDetail }) {
  const [topic, setTopic] = useState(workspace.description)
  const [maxSources, setMaxSources] = useState(30)
  const [fullText, setFullText] = useState(true)
  // The workspace's description changes only when asked (issue 36).
  const [saveDescription, setSaveDescription] = useState(false)
  const [jobId, setJobId] = useState<string | null>(null)
  const start = useStartResearch(workspace.id)
  const watchJob = useUi((s) => s.watchJob)
  const submit = (e: FormEvent) => {
    e.preventDefault()
    start.mutate(
      { description: topic.trim(), max_sources: maxSources, fetch: fullText, save_description: saveDescription },
      {
        onSuccess: (job) => {
          watchJob(job.id)
          setJobId(job.id)
        },
      },
    )
  }
  return (
    <section aria-labelledby="research-heading" className="rounded-lg border border-stone-200 bg-white p-3 dark:border-stone-800 dark:bg-stone-900">
      <h2 id="research-heading" className="font-semibold">
        Research
      </h2>
      <form onSubmit={submit} className="mt-2 grid gap-2">
        <label htmlFor="research-topic" className="text-sm text-stone-700 dark:text-stone-300">
          Describe the topic; papers are searched, fetched, read and linked.
        </label>
        <Textarea id="research-topic" data-testid="research-topic" rows={3} value={topic} onChange={(e) => setTopic(e.target.value)} maxLength={4000} placeholder="efficient attention for long documents" />
        <div className="flex flex-wrap items-center justify-end gap-x-3 gap-y-1 text-sm">
          <label className="flex items-center gap-1">
            at most
            <input
              type="number"
              min={1}
              max={200}
              value={maxSources}
              onChange={(e) => setMaxSources(Math.max(1, Math.min(200, Math.round(Number(e.target.value)) || 1)))}
              className="h-8 w-16 rounded-md border border-stone-300 bg-white px-2 dark:border-stone-600 dark:bg-stone-900"
              data-testid="research-max"
            />
            sources
          </label>
          <label className="flex items-center gap-1">
            <input type="checkbox" checked={fullText} onChange={(e) => setFullText(e.target.checked)} data-testid="research-fulltext" />
            fetch full text
          </label>
          <label className="flex items-center gap-1">
            <input type="checkbox" checked={saveDescription} onChange={(e) => setSaveDescription(e.target.checked)} data-testid="research-save-description" />
            make it the workspace description
          </label>
          <span className="flex-1" />
          <Button type="submit" variant="primary" size="sm" disabled={!topic.trim() || start.isPending}>
            Start research
          </Button>
        </div>
        <ErrorText error={start.error} />
      </form>
      {jobId && <ResearchProgressView jobId={jobId} workspaceId={workspace.id} />}
    </section>
  )
}

export function ResearchProgressView({ jobId, workspaceId }: { jobId: string; workspaceId: string }) {
  const live = useJobEvents(jobId, { workspaceId })
  const p = researchProgress(live.events)
  return (
    <div className="mt-3 grid gap-2 text-sm" data-testid="research-progress">
      <Progress value={live.finished ? 1 : live.progress} label="Research progress" />
      <p className="text-xs text-stone-600 [overflow-wrap:anywhere] dark:text-stone-400" aria-live="polite">
        {live.last?.message ?? 'starting…'}
      </p>
      {p.queries.length > 0 && (
        <p className="text-xs">
          <span className="font-medium">Queries:</span> {p.queries.join(' · ')}
        </p>
      )}
      {p.sources.length > 0 && (
        <ul className="grid gap-0.5 text-xs" aria-label="External sources">
          {p.sources.map((s) => (
            <li key={s.name} className="flex justify-between gap-2" data-testid="research-source" data-status={s.status}>
              <span className="font-medium">{s.name}</span>
              <span className={cx(s.status === 'failed' && 'text-red-800 dark:text-red-300', s.status === 'skipped' && 'text-stone-500')}>
                {s.status === 'searching'
                  ? 'searching…'
                  : s.status === 'ok'
                    ? `${s.found ?? 0} results`
                    : s.status === 'skipped'
                      ? `skipped: ${reasonText(s.reason)}`
                      : s.status === 'partial'
                        ? `${s.found ?? 0} results (some queries ${reasonText(s.reason)})`
                        : `${reasonText(s.reason) || 'failed'}`}
              </span>
            </li>
          ))}
        </ul>
      )}
      {p.dedup && (
        <p className="text-xs">
          {p.dedup.found} found → {p.dedup.unique} unique ({p.dedup.duplicates} duplicates, {p.dedup.known} already here) → {p.dedup.selected} selected
          {p.dedup.overLimit ? ` (${p.dedup.overLimit} over the limit)` : ''}
        </p>
      )}
      {p.why.length > 0 && (
        <details className="text-xs" data-testid="research-why">
          <summary className="cursor-pointer">Why these papers</summary>
          <ul className="mt-1 space-y-1">
            {p.why.map((w) => (
              <li key={w.title}>
                <span className="font-medium">{w.title}</span>
                <span className="text-stone-600 dark:text-stone-400"> — {w.why}</span>
              </li>
            ))}
          </ul>
        </details>
      )}
      {(p.fetched > 0 || p.ingested > 0 || p.fetchFailed > 0) && (
        <dl className="grid grid-cols-4 gap-1 text-center text-xs">
          {([['fetched', p.fetched], ['fetch failed', p.fetchFailed], ['ingested', p.ingested], ['linked', p.linked]] as const).map(([label, n]) => (
            <div key={label} className="rounded bg-stone-100 p-1 dark:bg-stone-800">
              <dt className="text-stone-600 dark:text-stone-400">{label}</dt>
              <dd className="font-semibold tabular-nums">{n}</dd>
            </div>
          ))}
        </dl>
      )}
      {p.landed.length > 0 && (
        <ul className="grid gap-0.5 text-xs" aria-label="Sources added">
          {p.landed.map((l) => (
            <li key={l.sourceId} className="truncate">+ {l.title}</li>
          ))}
        </ul>
      )}
      <ErrorText error={live.error} />
    </div>
  )
}
