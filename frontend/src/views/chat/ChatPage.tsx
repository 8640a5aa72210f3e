import { useState, type FormEvent } from 'react'
import { Link, useNavigate, useOutletContext, useParams } from 'react-router'
import type { Conversation, WorkspaceDetail } from '../../api/client'
import { useConversations, useDeleteConversation, useRenameConversation } from '../../api/queries'
import { Button } from '../../ui/Button'
import { ConfirmDialog, Dialog } from '../../ui/Dialog'
import { ErrorText, Input, Label } from '../../ui/Field'
import { ago } from '../../lib/format'
import { cx } from '../../lib/cx'
import { ChatPanel } from './ChatPanel'

export function ChatPage() {
  const workspace = useOutletContext<WorkspaceDetail>()
  const { conversationId } = useParams()
  const navigate = useNavigate()
  const conversations = useConversations(workspace.id)
  const remove = useDeleteConversation(workspace.id)
  const [deleting, setDeleting] = useState<string | null>(null)
  const [renaming, setRenaming] = useState<Conversation | null>(null)
  const base = `/w/${workspace.id}/chat`
  // Per-paper conversations belong to the paper's Q&A, not to the workspace chat list.
  const list = (conversations.data ?? []).filter((c) => !c.source_id)

  return (
    <main className="mx-auto grid w-full max-w-7xl flex-1 grid-cols-1 gap-4 px-3 py-4 sm:px-5 md:grid-cols-[15rem_minmax(0,1fr)]">
      <nav aria-label="Conversations" className="md:border-r md:border-stone-200 md:pr-3 md:dark:border-stone-800">
        <div className="flex items-center justify-between">
          <h2 className="font-semibold">Conversations</h2>
          <Button size="sm" variant="secondary" onClick={() => navigate(base)} data-testid="new-conversation">
            New
          </Button>
        </div>
        <ul className="mt-2 flex gap-1 overflow-x-auto md:grid md:overflow-visible">
          {list.map((c) => (
            <li key={c.id} className="group flex min-w-40 items-center gap-1 md:min-w-0" data-testid="conversation-item">
              <Link
                to={`${base}/${c.id}`}
                aria-current={c.id === conversationId ? 'page' : undefined}
                className={cx(
                  'min-w-0 flex-1 rounded px-2 py-1.5 text-sm',
                  c.id === conversationId ? 'bg-accent-100 font-medium dark:bg-accent-700/40' : 'hover:bg-stone-100 dark:hover:bg-stone-800',
                )}
              >
                <span className="line-clamp-2">{c.title || 'Untitled'}</span>
                <span className="block text-xs text-stone-600 dark:text-stone-400">{ago(c.updated_at)}</span>
              </Link>
              <button
                type="button"
                onClick={() => setRenaming(c)}
                className="rounded px-1.5 py-1 text-stone-500 hover:bg-stone-200 hover:text-stone-900 dark:hover:bg-stone-700 dark:hover:text-stone-100"
                aria-label={`Rename conversation ${c.title}`}
                data-testid="rename-conversation"
              >
                ✎
              </button>
              <button
                type="button"
                onClick={() => setDeleting(c.id)}
                className="rounded px-1.5 py-1 text-stone-500 hover:bg-stone-200 hover:text-stone-900 dark:hover:bg-stone-700 dark:hover:text-stone-100"
                aria-label={`Delete conversation ${c.title}`}
              >
                ✕
              </button>
            </li>
          ))}
          {conversations.isSuccess && list.length === 0 && <li className="text-sm text-stone-600 dark:text-stone-400">None yet.</li>}
        </ul>
      </nav>
      <section aria-label="Chat" className="flex min-w-0 flex-col">
        <ChatPanel
          scope={{ workspaceId: workspace.id }}
          workspaceId={workspace.id}
          conversationId={conversationId}
          onConversation={(id) => navigate(`${base}/${id}`, { replace: true })}
        />
      </section>
      {renaming && (
        <RenameDialog workspaceId={workspace.id} conversation={renaming} onClose={() => setRenaming(null)} />
      )}
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(o) => !o && setDeleting(null)}
        title="Delete this conversation?"
        description="Its questions and answers are deleted. Sources are not affected."
        confirmLabel="Delete conversation"
        busy={remove.isPending}
        onConfirm={() =>
          deleting &&
          remove.mutate(deleting, {
            onSuccess: () => {
              if (deleting === conversationId) navigate(base)
              setDeleting(null)
            },
          })
        }
      />
    </main>
  )
}

function RenameDialog(props: { workspaceId: string; conversation: Conversation; onClose: () => void }) {
  const rename = useRenameConversation(props.workspaceId)
  const [title, setTitle] = useState(props.conversation.title)
  const submit = (e: FormEvent) => {
    e.preventDefault()
    rename.mutate({ id: props.conversation.id, title: title.trim() }, { onSuccess: props.onClose })
  }
  return (
    <Dialog open onOpenChange={(o) => !o && props.onClose()} title="Rename conversation">
      <form onSubmit={submit} className="grid gap-3">
        <div>
          <Label htmlFor="conversation-title">Title</Label>
          <Input
            id="conversation-title"
            value={title}
            onChange={(e) => setTitle(e.target.value)}
            required
            maxLength={200}
            autoFocus
          />
        </div>
        <ErrorText error={rename.error} />
        <div className="flex justify-end gap-2">
          <Button onClick={props.onClose}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={!title.trim() || rename.isPending}>
            Save
          </Button>
        </div>
      </form>
    </Dialog>
  )
}
