// While a research or upload job of this workspace runs, its events refresh the graph: new
// sources and concepts appear; components that did not change keep their cached layout.
import { useEffect, useRef } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import { useJobs } from '../../api/queries'
import { useJobEvents } from '../../api/jobs'
import type { Job } from '../../api/client'
import { jobLabel } from '../../lib/jobProgress'
import { canvasKeys } from './api'

const isActive = (j: Job) => j.status === 'queued' || j.status === 'running'

export function LiveUpdates({ workspaceId }: { workspaceId: string }) {
  const jobs = useJobs()
  const active = (jobs.data ?? []).filter((j) => j.workspace_id === workspaceId && isActive(j))
  if (!active.length) return null
  return (
    <div className="px-3 text-sm text-stone-700 dark:text-stone-300" role="status" data-testid="canvas-live">
      {active.map((j) => (
        <Follow key={j.id} job={j} workspaceId={workspaceId} />
      ))}
    </div>
  )
}

function Follow({ job, workspaceId }: { job: Job; workspaceId: string }) {
  const qc = useQueryClient()
  const live = useJobEvents(job.id, { workspaceId })
  const landed = live.events.filter((e) => e.data?.source_id || e.stage === 'done' || e.stage === 'linking').length
  const seen = useRef(0)
  useEffect(() => {
    if (landed === seen.current && !live.finished) return
    seen.current = landed
    void qc.invalidateQueries({ queryKey: canvasKeys.graph(workspaceId) })
  }, [landed, live.finished, qc, workspaceId])
  return (
    <p>
      Updating live: {jobLabel(job.kind)} {live.finished ? 'finished' : (live.last?.stage ?? job.stage ?? job.status)}
      {live.last?.message ? ` — ${live.last.message}` : ''}
    </p>
  )
}
