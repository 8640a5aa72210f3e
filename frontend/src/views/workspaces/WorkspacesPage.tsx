import { useMemo, useState, type FormEvent } from 'react'
import { Link, useNavigate } from 'react-router'
import { useCreateWorkspace, useDeleteWorkspace, useJobs, useUpdateWorkspace, useWorkspaceDetails, useWorkspaces } from '../../api/queries'
import type { Job, Workspace } from '../../api/client'
import { Button } from '../../ui/Button'
import { ConfirmDialog, Dialog } from '../../ui/Dialog'
import { ErrorText, Input, Label, Textarea } from '../../ui/Field'
import { ago, dateTime, plural } from '../../lib/format'

/** The latest thing that happened in each workspace: its own edits or any of its jobs. */
function lastActivity(workspaces: Workspace[], jobs: Job[] | undefined): Map<string, string> {
  const latest = new Map<string, string>()
  for (const w of workspaces) latest.set(w.id, w.updated_at)
  for (const j of jobs ?? []) {
    if (!j.workspace_id) continue
    const at = j.finished_at ?? j.started_at ?? j.created_at
    const current = latest.get(j.workspace_id)
    if (current && at > current) latest.set(j.workspace_id, at)
  }
  return latest
}

export function WorkspacesPage() {
  const workspaces = useWorkspaces()
  const jobs = useJobs()
  const list = useMemo(() => workspaces.data ?? [], [workspaces.data])
  const details = useWorkspaceDetails(list.map((w) => w.id))
  const activity = useMemo(() => lastActivity(list, jobs.data), [list, jobs.data])
  const [creating, setCreating] = useState(false)
  const [editing, setEditing] = useState<Workspace | null>(null)
  const [deleting, setDeleting] = useState<Workspace | null>(null)
  const remove = useDeleteWorkspace()
  const sorted = [...list].sort((a, b) => (activity.get(b.id) ?? '').localeCompare(activity.get(a.id) ?? ''))

  return (
    <main className="mx-auto w-full max-w-5xl px-3 py-6 sm:px-5">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="font-serif text-2xl font-semibold">Workspaces</h1>
          <p className="text-sm text-stone-600 dark:text-stone-400">
            Each workspace holds the sources of one research question, and what was learned from them.
          </p>
        </div>
        <Button variant="primary" onClick={() => setCreating(true)} data-testid="new-workspace">
          New workspace
        </Button>
      </div>

      {workspaces.isPending && <p className="mt-6 text-stone-600 dark:text-stone-400">Loading workspaces…</p>}
      <ErrorText error={workspaces.error} />
      {workspaces.isSuccess && list.length === 0 && (
        <div className="mt-8 rounded-lg border border-dashed border-stone-300 p-8 text-center dark:border-stone-700">
          <p className="text-stone-700 dark:text-stone-300">No workspaces yet. Create one and describe what you are researching.</p>
        </div>
      )}

      <ul className="mt-6 grid gap-3" aria-label="Workspaces">
        {sorted.map((w) => {
          const detail = details[list.indexOf(w)]?.data
          return (
            <li
              key={w.id}
              data-testid="workspace-item"
              className="rounded-lg border border-stone-200 bg-white p-4 dark:border-stone-800 dark:bg-stone-900"
            >
              <div className="flex flex-wrap items-start justify-between gap-2">
                <div className="min-w-0 flex-1">
                  <h2 className="text-lg font-semibold">
                    <Link to={`/w/${w.id}`} className="hover:underline">
                      {w.name}
                    </Link>
                  </h2>
                  <p className="mt-0.5 line-clamp-2 text-sm text-stone-700 dark:text-stone-300">
                    {w.description || <span className="italic text-stone-500 dark:text-stone-400">No description</span>}
                  </p>
                  <p className="mt-2 text-xs text-stone-600 dark:text-stone-400">
                    {detail ? plural(detail.counts.sources ?? 0, 'source') : '… sources'} · last activity{' '}
                    <time dateTime={activity.get(w.id)} title={dateTime(activity.get(w.id))}>
                      {ago(activity.get(w.id))}
                    </time>
                  </p>
                </div>
                <div className="flex gap-1">
                  <Button size="sm" variant="ghost" onClick={() => setEditing(w)} aria-label={`Edit ${w.name}`}>
                    Edit
                  </Button>
                  <Button size="sm" variant="ghost" onClick={() => setDeleting(w)} aria-label={`Delete ${w.name}`}>
                    Delete
                  </Button>
                </div>
              </div>
            </li>
          )
        })}
      </ul>

      <WorkspaceForm open={creating} onOpenChange={setCreating} />
      {editing && <WorkspaceForm open onOpenChange={(o) => !o && setEditing(null)} workspace={editing} />}
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(o) => !o && setDeleting(null)}
        title={`Delete “${deleting?.name ?? ''}”?`}
        description="Its sources, files, conversations and everything learned from them are deleted. This cannot be undone."
        confirmLabel="Delete workspace"
        busy={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting.id, { onSuccess: () => setDeleting(null) })}
      />
    </main>
  )
}

function WorkspaceForm({ open, onOpenChange, workspace }: { open: boolean; onOpenChange: (o: boolean) => void; workspace?: Workspace }) {
  const create = useCreateWorkspace()
  const update = useUpdateWorkspace()
  const navigate = useNavigate()
  const [name, setName] = useState(workspace?.name ?? '')
  const [description, setDescription] = useState(workspace?.description ?? '')
  const mutation = workspace ? update : create
  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (workspace) {
      update.mutate({ id: workspace.id, name: name.trim(), description }, { onSuccess: () => onOpenChange(false) })
    } else {
      create.mutate(
        { name: name.trim(), description },
        {
          onSuccess: (w) => {
            onOpenChange(false)
            setName('')
            setDescription('')
            navigate(`/w/${w.id}`)
          },
        },
      )
    }
  }
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title={workspace ? 'Edit workspace' : 'New workspace'}>
      <form onSubmit={submit} className="grid gap-3">
        <div>
          <Label htmlFor="ws-name">Name</Label>
          <Input id="ws-name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} autoFocus />
        </div>
        <div>
          <Label htmlFor="ws-description">Description — what you are researching</Label>
          <Textarea
            id="ws-description"
            rows={4}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            maxLength={10000}
            placeholder="e.g. efficient attention for long documents"
          />
          <p className="mt-1 text-xs text-stone-600 dark:text-stone-400">Sources are scored for relevance against it.</p>
        </div>
        <ErrorText error={mutation.error} />
        <div className="flex justify-end gap-2">
          <Button onClick={() => onOpenChange(false)}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={!name.trim() || mutation.isPending}>
            {workspace ? 'Save' : 'Create'}
          </Button>
        </div>
      </form>
    </Dialog>
  )
}
