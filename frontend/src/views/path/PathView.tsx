// The learning path: the workspace's sources in a reading order the concept graph allows
// (prerequisites first), each with difficulty, prerequisites, takeaways, concepts and time.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { Link, useOutletContext } from 'react-router'
import { api, ApiError, unwrap, type Schemas, type WorkspaceDetail } from '../../api/client'
import { Button } from '../../ui/Button'
import { ErrorText } from '../../ui/Field'
import { ago } from '../../lib/format'

type LearningPath = Schemas['LearningPathView']

const pathKey = (workspaceId: string) => ['path', workspaceId] as const
const linkCls = 'text-accent-700 underline dark:text-accent-300'

function usePath(workspaceId: string) {
  return useQuery({
    queryKey: pathKey(workspaceId),
    queryFn: async (): Promise<LearningPath | null> => {
      try {
        return unwrap(await api.GET('/api/workspaces/{workspace_id}/path', { params: { path: { workspace_id: workspaceId } } }))
      } catch (e) {
        if (e instanceof ApiError && e.status === 404) return null // none generated yet
        throw e
      }
    },
  })
}

function useGeneratePath(workspaceId: string) {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/workspaces/{workspace_id}/path', { params: { path: { workspace_id: workspaceId } } })),
    onSuccess: (path) => qc.setQueryData(pathKey(workspaceId), path),
  })
}

function useMarkRead(workspaceId: string) {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: async ({ stepId, read }: { stepId: string; read: boolean }) => {
      const params = { params: { path: { workspace_id: workspaceId, step_id: stepId } } }
      return unwrap(
        read
          ? await api.PUT('/api/workspaces/{workspace_id}/path/steps/{step_id}/read', params)
          : await api.DELETE('/api/workspaces/{workspace_id}/path/steps/{step_id}/read', params),
      )
    },
    // Optimistic: the box ticks at once; the server's answer (or the old state on error) follows.
    onMutate: ({ stepId, read }) => {
      const before = qc.getQueryData<LearningPath | null>(pathKey(workspaceId))
      if (before)
        qc.setQueryData(pathKey(workspaceId), {
          ...before,
          steps: before.steps.map((s) => (s.id === stepId ? { ...s, read } : s)),
          steps_read: before.steps_read + (read ? 1 : -1),
        })
      return { before }
    },
    onError: (_e, _v, context) => context?.before && qc.setQueryData(pathKey(workspaceId), context.before),
    onSuccess: (path) => qc.setQueryData(pathKey(workspaceId), path),
  })
}

const difficultyStyle: Record<string, string> = {
  beginner: 'bg-emerald-100 text-emerald-900 dark:bg-emerald-900/50 dark:text-emerald-100',
  intermediate: 'bg-sky-100 text-sky-900 dark:bg-sky-900/50 dark:text-sky-100',
  advanced: 'bg-amber-100 text-amber-900 dark:bg-amber-900/50 dark:text-amber-100',
}

export function PathView() {
  const workspace = useOutletContext<WorkspaceDetail>()
  const path = usePath(workspace.id)
  const generate = useGeneratePath(workspace.id)
  const markRead = useMarkRead(workspace.id)
  // The box follows the click in the same render: the query cache's optimistic update
  // reaches the view a task later, and a controlled checkbox flicks back until then.
  const [ticking, setTicking] = useState<Record<string, boolean>>({})
  const isRead = (s: { id: string; read: boolean }) => ticking[s.id] ?? s.read
  const toggleRead = (stepId: string, read: boolean) => {
    setTicking((t) => ({ ...t, [stepId]: read }))
    markRead.mutate(
      { stepId, read },
      {
        onSettled: () =>
          setTicking((t) => {
            const { [stepId]: _settled, ...rest } = t
            return rest
          }),
      },
    )
  }
  const p = path.data
  const total = p?.steps.reduce((a, s) => a + s.reading_minutes, 0) ?? 0
  return (
    <main className="mx-auto w-full max-w-4xl flex-1 px-3 py-4 sm:px-5">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h2 className="font-serif text-xl font-semibold">{p?.title ?? 'Learning path'}</h2>
          {p && (
            <p className="text-sm text-stone-600 dark:text-stone-400">
              {p.steps.length} steps · {p.steps_read} read · about {total} min of reading · made {ago(p.created_at)}
              {p.engine ? ` · ${p.engine}` : ''}
            </p>
          )}
        </div>
        <Button onClick={() => generate.mutate()} disabled={generate.isPending} data-testid="path-regenerate">
          {generate.isPending ? 'Working…' : p ? 'Regenerate' : 'Make a learning path'}
        </Button>
      </div>
      <ErrorText error={path.error ?? generate.error ?? markRead.error} />
      {p?.stale && (
        <p className="mt-3 rounded border border-amber-300 bg-amber-50 p-2 text-sm text-amber-950 dark:border-amber-700 dark:bg-amber-950/50 dark:text-amber-100" data-testid="path-stale">
          This path is out of date{p.stale_reason ? `: ${p.stale_reason}` : ''}. Regenerate it to include what changed.
        </p>
      )}
      {path.isPending && <p role="status">Loading…</p>}
      {p === null && !generate.isPending && (
        <p className="mt-4 text-stone-700 dark:text-stone-300" data-testid="path-none">
          No learning path yet. Make one: the sources are ordered so that what a paper builds on comes before it.
        </p>
      )}
      {p?.notes && (
        // one note per line as stored: run together they read as a wall of text
        <ul className="mt-3 list-disc space-y-1 rounded bg-stone-100 py-2 pl-6 pr-2 text-sm dark:bg-stone-800" data-testid="path-notes">
          {p.notes
            .split('\n')
            .filter((line) => line.trim())
            .map((line) => (
              <li key={line}>{line}</li>
            ))}
        </ul>
      )}
      {p && p.broken_cycles.length > 0 && (
        <p className="mt-2 text-sm text-stone-600 dark:text-stone-400">Cycles broken to order the path: {p.broken_cycles.join('; ')}</p>
      )}
      <ol className="mt-4 grid gap-3" data-testid="path-steps">
        {p?.steps.map((s, i) => (
          <li
            key={s.source_id}
            data-topic={s.topic_id ?? undefined}
            data-testid="path-step"
            data-source-id={s.source_id}
            data-position={s.position}
            data-prerequisites={s.prerequisites.map((r) => r.source_id).join(' ')}
            data-read={isRead(s)}
            className="rounded-lg border border-stone-200 bg-white p-3 dark:border-stone-700 dark:bg-stone-900"
          >
            {s.topic && s.topic_id !== p.steps[i - 1]?.topic_id && (
              <p className="mb-1 text-xs font-semibold uppercase tracking-wide text-teal-800 dark:text-teal-200" data-testid="path-topic">
                Topic: {s.topic}
              </p>
            )}
            <div className="flex flex-wrap items-baseline gap-2">
              <span className="font-mono text-sm text-stone-500 dark:text-stone-400">{s.position}.</span>
              <h3 className="order-first min-w-0 flex-1 basis-full font-serif font-semibold sm:order-none sm:basis-0">
                <Link className="hover:underline" to={`/w/${workspace.id}/read/${s.source_id}`}>
                  {s.title}
                </Link>
              </h3>
              <span className={`rounded px-1.5 text-xs font-medium ${difficultyStyle[s.difficulty] ?? difficultyStyle.intermediate}`}>{s.difficulty}</span>
              <span className="text-xs text-stone-600 dark:text-stone-400">{s.reading_minutes} min</span>
              <label className="flex items-center gap-1 text-xs">
                <input
                  type="checkbox"
                  className="h-4 w-4 accent-accent-600"
                  data-testid="path-step-read"
                  checked={isRead(s)}
                  onChange={(e) => toggleRead(s.id, e.target.checked)}
                />
                read
              </label>
            </div>
            {s.why && (
              <p className="mt-1 text-sm text-stone-700 dark:text-stone-300" data-testid="path-why">
                {s.why}
              </p>
            )}
            {s.prerequisites.length > 0 && (
              <p className="mt-1 text-sm" data-testid="path-prereqs">
                <span className="text-stone-600 dark:text-stone-400">Read first: </span>
                {s.prerequisites.map((r, i) => (
                  <span key={r.source_id}>
                    {i > 0 && ', '}
                    <Link className={linkCls} to={`/w/${workspace.id}/canvas?focus=${encodeURIComponent(`source:${r.source_id}`)}`}>
                      {r.position ? `${r.position}. ` : ''}
                      {r.title}
                    </Link>
                    {r.concepts?.length ? <span className="text-stone-600 dark:text-stone-400"> (for {r.concepts.join(', ')})</span> : null}
                  </span>
                ))}
              </p>
            )}
            {s.key_takeaways.length > 0 && (
              <ul className="mt-2 list-disc pl-5 text-sm">
                {s.key_takeaways.map((t) => (
                  <li key={t}>{t}</li>
                ))}
              </ul>
            )}
            {s.concepts.length > 0 && (
              <p className="mt-2 flex flex-wrap gap-1 text-xs" aria-label="Concepts covered">
                {s.concepts.slice(0, 12).map((c) => (
                  <Link key={c.slug} to={`/w/${workspace.id}/wiki/${encodeURIComponent(c.slug)}`} className="rounded bg-stone-100 px-1.5 py-0.5 hover:bg-stone-200 dark:bg-stone-800 dark:hover:bg-stone-700">
                    {c.name}
                  </Link>
                ))}
                {s.concepts.length > 12 && <span className="px-1 text-stone-600 dark:text-stone-400">+{s.concepts.length - 12} more</span>}
              </p>
            )}
          </li>
        ))}
      </ol>
    </main>
  )
}

