// A source's references and the works citing it (issue 36): each known work, marked in
// the workspace or not; tick the ones to add and "Add selected" imports them (dedup,
// fetch, ingest) as one job.
import { useState } from 'react'
import { useAddWorks, useCitationList } from '../../api/queries'
import type { Schemas } from '../../api/client'
import { Button } from '../../ui/Button'
import { ErrorText } from '../../ui/Field'
import { cx } from '../../lib/cx'

type Work = Schemas['CitedWork']
type Direction = 'references' | 'cited-by'

const ORIGIN: Record<string, string> = {
  'pdf-references': 'reference list',
  catalog: 'catalog',
  openalex: 'OpenAlex',
  workspace: 'workspace',
}

export function workKey(w: Work): string {
  return w.catalog_id ?? w.doi ?? w.arxiv_id ?? w.openalex_id ?? w.title
}

export function SourceCitations({ workspaceId, sourceId }: { workspaceId: string; sourceId: string }) {
  const [direction, setDirection] = useState<Direction>('references')
  const add = useAddWorks(workspaceId)
  const list = useCitationList(sourceId, direction, add.isSuccess)
  const [picked, setPicked] = useState<Set<string>>(new Set())
  const works = list.data?.works ?? []
  const toggle = (key: string) =>
    setPicked((old) => {
      const next = new Set(old)
      if (next.has(key)) next.delete(key)
      else next.add(key)
      return next
    })
  const chosen = works.filter((w) => !w.in_workspace && picked.has(workKey(w)))
  return (
    <section data-testid="source-citations" aria-label="Citations" className="space-y-3">
      <div role="tablist" className="flex gap-1">
        {(['references', 'cited-by'] as const).map((d) => (
          <button
            key={d}
            role="tab"
            type="button"
            aria-selected={direction === d}
            className={cx('rounded px-2 py-1 text-sm', direction === d ? 'bg-accent-600 text-white' : 'hover:bg-stone-200 dark:hover:bg-stone-800')}
            onClick={() => { setDirection(d); setPicked(new Set()) }}
          >
            {d === 'references' ? 'References' : 'Cited by'}
          </button>
        ))}
      </div>
      <ErrorText error={list.error} />
      {list.isPending && <p className="text-sm">Loading…</p>}
      {list.isSuccess && works.length === 0 && <p className="text-sm text-stone-600 dark:text-stone-400">No known works.</p>}
      {works.length > 0 && (
        <ul className="max-h-80 space-y-1 overflow-y-auto text-sm">
          {works.map((w) => {
            const key = workKey(w)
            return (
              <li key={key} data-testid="citation-work" data-in-workspace={w.in_workspace} className="flex items-start gap-2">
                <input
                  type="checkbox"
                  aria-label={`Add ${w.title}`}
                  disabled={w.in_workspace}
                  checked={w.in_workspace || picked.has(key)}
                  onChange={() => toggle(key)}
                  className="mt-1"
                />
                <span>
                  <span className="font-medium">{w.title}</span>
                  <span className="text-stone-600 dark:text-stone-400">
                    {w.year ? ` · ${w.year}` : ''} · {(w.origins ?? [w.origin]).map((o) => ORIGIN[o] ?? o).join(', ')}
                    {w.in_workspace ? ' · in the workspace' : ''}
                  </span>
                </span>
              </li>
            )
          })}
        </ul>
      )}
      {list.data && (list.data.unresolved ?? 0) > 0 && (
        <p className="text-xs text-stone-600 dark:text-stone-400">{list.data.unresolved === 1 ? '1 entry of the reference list matches' : `${list.data.unresolved} entries of the reference list match`} no known work.</p>
      )}
      {(list.data?.notes ?? []).map((n) => <p key={n} className="text-xs text-stone-600 dark:text-stone-400">{n}</p>)}
      <div className="flex items-center justify-end gap-2">
        {add.isSuccess && <span className="text-sm" role="status">Adding {chosen.length || 'the chosen'} works: follow the job.</span>}
        <Button
          variant="primary"
          size="sm"
          disabled={!chosen.length || add.isPending}
          data-testid="add-selected-works"
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
      <ErrorText error={add.error} />
    </section>
  )
}
