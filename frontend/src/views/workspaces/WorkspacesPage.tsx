import { useMemo, useState, type FormEvent } from 'react'
import { Link, useNavigate } from 'react-router'
import { useCreateWorkspace, useDeleteWorkspace, useUpdateWorkspace, useWorkspaces } from '../../api/queries'
import type { Workspace } from '../../api/client'
import { Button } from '../../ui/Button'
import { ConfirmDialog, Dialog } from '../../ui/Dialog'
import { ErrorText, Input, Label, Textarea } from '../../ui/Field'
import { ago, dateTime, plural } from '../../lib/format'

export function WorkspacesPage() {
  const workspaces = useWorkspaces()
  const list = useMemo(() => workspaces.data ?? [], [workspaces.data])
  const [creating, setCreating] = useState(false)
  const [editing, setEditing] = useState<Workspace | null>(null)
  const [deleting, setDeleting] = useState<Workspace | null>(null)
  const remove = useDeleteWorkspace()
  const sorted = [...list].sort((a, b) => b.last_activity_at.localeCompare(a.last_activity_at))

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
                    {plural(w.source_count, 'source')} · last activity{' '}
                    <time dateTime={w.last_activity_at} title={dateTime(w.last_activity_at)}>
                      {ago(w.last_activity_at)}
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
