// Works not in the workspace, ranked by how many of its sources cite them or are cited by
// them (co-citation, bibliographic coupling; issue 36), each with why; tick and add.
import { useState } from 'react'
import { useAddWorks, useSuggestions } from '../../api/queries'
import { Button } from '../../ui/Button'
import { ErrorText } from '../../ui/Field'
import { workKey } from './SourceCitations'

export function SuggestionsPanel({ workspaceId }: { workspaceId: string }) {
  const [open, setOpen] = useState(false)
  const list = useSuggestions(workspaceId, open)
  const add = useAddWorks(workspaceId)
  const [picked, setPicked] = useState<Set<string>>(new Set())
  const items = list.data ?? []
  const chosen = items.filter((s) => picked.has(workKey(s)))
  const toggle = (key: string) =>
    setPicked((old) => {
      const next = new Set(old)
      if (next.has(key)) next.delete(key)
      else next.add(key)
      return next
    })
  return (
    <section aria-labelledby="suggestions-heading" data-testid="workspace-suggestions" className="rounded-lg border border-stone-200 bg-white p-3 dark:border-stone-800 dark:bg-stone-900">
      <div className="flex items-center justify-between">
        <h2 id="suggestions-heading" className="font-semibold">Suggested papers</h2>
        {!open && (
          <Button size="sm" onClick={() => setOpen(true)}>
            Show
          </Button>
        )}
      </div>
      {open && (
        <div className="mt-2 space-y-2 text-sm">
          <p className="text-xs text-stone-600 dark:text-stone-400">Not in the workspace; cited by its sources or citing them.</p>
          <ErrorText error={list.error} />
          {list.isPending && <p>Reading the reference lists…</p>}
          {list.isSuccess && items.length === 0 && <p className="text-stone-600 dark:text-stone-400">No suggestions yet.</p>}
          <ul className="max-h-72 space-y-1 overflow-y-auto">
            {items.map((s) => (
              <li key={workKey(s)} className="flex items-start gap-2" data-testid="suggestion">
                <input type="checkbox" className="mt-1" aria-label={`Add ${s.title}`} checked={picked.has(workKey(s))} onChange={() => toggle(workKey(s))} />
                <span>
                  <span className="font-medium">{s.title}</span>
                  {s.year ? ` · ${s.year}` : ''}
                  <span className="block text-xs text-stone-600 dark:text-stone-400">{s.why}</span>
                </span>
              </li>
            ))}
          </ul>
          <div className="flex justify-end">
            <Button
              size="sm"
              variant="primary"
              disabled={!chosen.length || add.isPending}
              onClick={() =>
                add.mutate(
                  chosen.map((w) => ({ title: w.title, doi: w.doi, arxiv_id: w.arxiv_id, openalex_id: w.openalex_id, catalog_id: w.catalog_id, year: w.year })),
                  { onSuccess: () => setPicked(new Set()) },
                )
              }
            >
              Add selected ({chosen.length})
            </Button>
          </div>
          {add.isSuccess && <p role="status">Adding: follow the job below.</p>}
          <ErrorText error={add.error} />
        </div>
      )}
    </section>
  )
}
