import { useMemo, useState } from 'react'
import { useJobAction, useJobs } from '../../api/queries'
import { TERMINAL_STAGES, useJobEvents } from '../../api/jobs'
import type { Job } from '../../api/client'
import { Button } from '../../ui/Button'
import { ErrorText } from '../../ui/Field'
import { Progress } from '../../ui/Progress'
import { ago } from '../../lib/format'
import { jobLabel } from '../../lib/jobProgress'
import { useUi } from '../../store'

const isActive = (j: Job) => j.status === 'queued' || j.status === 'running'

/** Every job of the workspace with its live state (SSE while it runs). */
export function JobPanel({ workspaceId }: { workspaceId: string }) {
  const jobs = useJobs()
  const mine = useMemo(() => (jobs.data ?? []).filter((j) => j.workspace_id === workspaceId), [jobs.data, workspaceId])
  return (
    <section aria-labelledby="jobs-heading" className="rounded-lg border border-stone-200 bg-white p-3 dark:border-stone-800 dark:bg-stone-900">
      <h2 id="jobs-heading" className="font-semibold">
        Jobs
      </h2>
      <ErrorText error={jobs.error} />
      {jobs.isSuccess && mine.length === 0 && <p className="mt-1 text-sm text-stone-600 dark:text-stone-400">No jobs yet.</p>}
      <ul className="mt-2 grid gap-2">
        {mine.map((j) => (
          <JobRow key={j.id} job={j} workspaceId={workspaceId} />
        ))}
      </ul>
    </section>
  )
}

export function JobRow({ job, workspaceId }: { job: Job; workspaceId: string }) {
  const watched = useUi((s) => s.watchedJobs.includes(job.id))
  const [generation, setGeneration] = useState(0)
  const [open, setOpen] = useState(watched)
  const live = useJobEvents(job.id, { enabled: isActive(job) || generation > 0 || open, generation, workspaceId })
  const action = useJobAction()
  const last = live.last
  const finalStage = last && last.type === 'status' && TERMINAL_STAGES.has(last.stage ?? '') ? last.stage : null
  const status = finalStage ?? (live.events.length && !live.finished ? 'running' : job.status)
  const interrupted = finalStage === 'interrupted' || (job.interrupted && !live.events.length)
  const running = status === 'running' || status === 'queued'
  // While running, 0 means "no fraction yet" (today's ingest reports 0 until the end):
  // the bar is indeterminate rather than a fake number.
  const fraction = live.progress ?? (job.progress > 0 ? job.progress : null)
  const progress = status === 'succeeded' ? 1 : running ? (fraction && fraction > 0 ? fraction : null) : (fraction ?? 0)
  const message = last?.message ?? job.error ?? job.stage
  const act = (kind: 'resume' | 'retry' | 'cancel') =>
    action.mutate({ id: job.id, action: kind }, { onSuccess: () => kind !== 'cancel' && setGeneration((g) => g + 1) })

  return (
    <li className="rounded-md border border-stone-200 p-2 text-sm dark:border-stone-700" data-testid="job-item" data-job-id={job.id} data-status={status}>
      <div className="flex items-center justify-between gap-2">
        <span className="font-medium">{jobLabel(job.kind)}</span>
        <span className={statusClass(status)}>{interrupted ? 'interrupted' : status}</span>
      </div>
      <div className="mt-1.5">
        <Progress value={progress} label={`${jobLabel(job.kind)} progress`} tone={status === 'failed' ? 'red' : status === 'succeeded' ? 'green' : 'accent'} />
      </div>
      <p className="mt-1 line-clamp-2 text-xs text-stone-700 [overflow-wrap:anywhere] dark:text-stone-300" aria-live={running ? 'polite' : undefined}>
        {message}
      </p>
      <div className="mt-1 flex flex-wrap items-center gap-1 text-xs text-stone-600 dark:text-stone-400">
        <span>{ago(job.created_at)}</span>
        {live.reconnects > 0 && <span>· reconnected {live.reconnects}×</span>}
        <span className="flex-1" />
        {(status === 'failed' || interrupted) && (
          <Button size="sm" variant="secondary" onClick={() => act('resume')} disabled={action.isPending}>
            Resume
          </Button>
        )}
        {(status === 'failed' || status === 'cancelled' || interrupted) && (
          <Button size="sm" variant="ghost" onClick={() => act('retry')} disabled={action.isPending}>
            Retry
          </Button>
        )}
        {running && (
          <Button size="sm" variant="ghost" onClick={() => act('cancel')} disabled={action.isPending}>
            Cancel
          </Button>
        )}
        <Button size="sm" variant="ghost" onClick={() => setOpen((o) => !o)} aria-expanded={open}>
          {open ? 'Hide log' : 'Log'}
        </Button>
      </div>
      <ErrorText error={action.error ?? live.error} />
      {open && (
        <ol tabIndex={0} className="mt-1 max-h-48 overflow-y-auto rounded bg-stone-50 p-1.5 font-mono text-[11px] leading-snug dark:bg-stone-950" aria-label="Job events">
          {live.events.map((e) => (
            <li key={e.id} className="[overflow-wrap:anywhere]">
              <span className="text-stone-500">{e.stage ?? e.type}</span> {e.message}
            </li>
          ))}
          {live.events.length === 0 && <li>…</li>}
        </ol>
      )}
    </li>
  )
}

function statusClass(status: string): string {
  const base = 'rounded px-1.5 text-xs '
  if (status === 'succeeded') return base + 'bg-emerald-100 text-emerald-900 dark:bg-emerald-900/40 dark:text-emerald-200'
  if (status === 'failed' || status === 'interrupted') return base + 'bg-red-100 text-red-900 dark:bg-red-900/40 dark:text-red-200'
  if (status === 'cancelled') return base + 'bg-stone-200 text-stone-800 dark:bg-stone-700 dark:text-stone-200'
  return base + 'bg-accent-100 text-accent-700 dark:bg-accent-700/40 dark:text-accent-100'
}
