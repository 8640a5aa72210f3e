import { lazy, Suspense, useMemo, useState } from 'react'
import { Link } from 'react-router'
import { useDeleteSource, useSectionCounts, useSources } from '../../api/queries'
import type { Source } from '../../api/client'
import { useUi, type SourceSortKey } from '../../store'
import { Button } from '../../ui/Button'
import { ConfirmDialog, Dialog } from '../../ui/Dialog'
import { ErrorText, Input } from '../../ui/Field'
import { cx } from '../../lib/cx'
import { BibliographyExport } from './BibliographyExport'
import { SourceCitations } from './SourceCitations'

// Per-paper Q&A is the chat component scoped to one source; its code loads when opened.
const ChatPanel = lazy(async () => ({ default: (await import('../chat/ChatPanel')).ChatPanel }))

// How a source arrived: its `origin` is the upload, the BibTeX import, or the research
// source that found it.
const ORIGIN: Record<string, string> = {
  upload: 'Upload',
  bibtex: 'BibTeX',
  arxiv: 'Research · arXiv',
  openalex: 'Research · OpenAlex',
  brave: 'Research · web',
  catalog: 'Research · catalog',
}

export function originLabel(origin: string): string {
  return ORIGIN[origin] ?? origin
}

/** "Cited": the workspace's own `cites` edges into the source, and the metadata's cited-by
 * count where one is known (the larger of the two sorts the column). */
export function citedCount(s: Pick<Source, 'citation_count' | 'cited_by_here'>): number {
  return Math.max(s.cited_by_here ?? 0, s.citation_count ?? 0)
}

export function citedLabel(s: Pick<Source, 'citation_count' | 'cited_by_here'>): string {
  const here = s.cited_by_here ?? 0
  if (s.citation_count == null) return `${here} here`
  return here ? `${s.citation_count.toLocaleString('en')} · ${here} here` : s.citation_count.toLocaleString('en')
}

function citedTitle(s: Pick<Source, 'citation_count' | 'cited_by_here'>): string {
  const here = `cited by ${s.cited_by_here ?? 0} source(s) of this workspace`
  return s.citation_count == null ? `${here}; no cited-by count in its metadata` : `${here}; ${s.citation_count} citations in its metadata`
}

function sortValue(s: Source, key: SourceSortKey, sections: number | undefined): string | number {
  switch (key) {
    case 'title':
      return (s.title ?? s.file_name ?? '').toLowerCase()
    case 'year':
      return s.year ?? -1
    case 'citations':
      return citedCount(s)
    case 'quality':
      return s.quality_score ?? -1
    case 'sections':
      return sections ?? -1
    case 'added':
      return s.created_at
  }
}

export function filterSources(sources: Source[], text: string): Source[] {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean)
  if (!words.length) return sources
  return sources.filter((s) => {
    const hay = [s.title, s.file_name, s.venue, s.year, s.origin, ...s.authors].join(' ').toLowerCase()
    return words.every((w) => hay.includes(w))
  })
}

export function SourcesTable({ workspaceId }: { workspaceId: string }) {
  const sources = useSources(workspaceId)
  const list = useMemo(() => sources.data ?? [], [sources.data])
  const sections = useSectionCounts(list)
  const { key, descending } = useUi((s) => s.sourceSort)
  const setSort = useUi((s) => s.setSourceSort)
  const filter = useUi((s) => s.sourceFilter)
  const setFilter = useUi((s) => s.setSourceFilter)
  const [deleting, setDeleting] = useState<Source | null>(null)
  const [asking, setAsking] = useState<Source | null>(null)
  const [citing, setCiting] = useState<Source | null>(null)
  const [selected, setSelected] = useState<Set<string>>(new Set())
  const toggle = (id: string) =>
    setSelected((old) => {
      const next = new Set(old)
      if (next.has(id)) next.delete(id)
      else next.add(id)
      return next
    })
  const remove = useDeleteSource(workspaceId)

  const rows = useMemo(() => {
    const shown = filterSources(list, filter)
    return [...shown].sort((a, b) => {
      const va = sortValue(a, key, sections.get(a.id))
      const vb = sortValue(b, key, sections.get(b.id))
      const order = va < vb ? -1 : va > vb ? 1 : 0
      return descending ? -order : order
    })
  }, [list, filter, key, descending, sections])

  const header = (k: SourceSortKey, label: string, className = '') => (
    <th scope="col" className={cx('px-2 py-2 font-medium', className)} aria-sort={key === k ? (descending ? 'descending' : 'ascending') : 'none'}>
      <button type="button" className="inline-flex items-center gap-1 hover:underline" onClick={() => setSort(k)}>
        {label}
        <span aria-hidden="true" className="text-xs text-stone-500">
          {key === k ? (descending ? '▼' : '▲') : ''}
        </span>
      </button>
    </th>
  )

  return (
    <section aria-labelledby="sources-heading" className="rounded-lg border border-stone-200 bg-white dark:border-stone-800 dark:bg-stone-900">
      <div className="flex flex-wrap items-center justify-between gap-2 border-b border-stone-200 p-3 dark:border-stone-800">
        <h2 id="sources-heading" className="font-semibold">
          Sources <span className="font-normal text-stone-600 dark:text-stone-400">({list.length})</span>
        </h2>
        <div className="flex w-full items-center gap-2 sm:w-auto">
          <label className="w-full sm:w-64">
            <span className="sr-only">Filter sources</span>
            <Input type="search" placeholder="Filter by title, author, venue, year…" value={filter} onChange={(e) => setFilter(e.target.value)} className="h-8" />
          </label>
          <BibliographyExport workspaceId={workspaceId} selected={list.filter((s) => selected.has(s.id)).map((s) => s.id)} />
        </div>
      </div>
      <ErrorText error={sources.error} />
      {sources.isPending && <p className="p-4 text-sm text-stone-600 dark:text-stone-400">Loading sources…</p>}
      {sources.isSuccess && list.length === 0 && (
        <p className="p-6 text-center text-sm text-stone-700 dark:text-stone-300">No sources yet: upload documents or start a research run.</p>
      )}
      {rows.length > 0 && (
        <div className="overflow-x-auto">
          <table className="w-full text-left text-sm">
            <thead className="text-stone-600 dark:text-stone-400">
              <tr>
                <th scope="col" className="w-8 px-2 py-2">
                  <span className="sr-only">Select</span>
                </th>
                {header('title', 'Title')}
                {header('year', 'Year', 'hidden sm:table-cell')}
                <th scope="col" className="hidden px-2 py-2 font-medium lg:table-cell">Venue</th>
                {header('citations', 'Cited', 'hidden md:table-cell text-right')}
                {header('quality', 'Quality', 'hidden md:table-cell text-right')}
                {header('sections', 'Sections', 'hidden 2xl:table-cell text-right')}
                <th scope="col" className="hidden px-2 py-2 font-medium sm:table-cell">Arrived</th>
                <th scope="col" className="px-2 py-2 font-medium">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((s) => (
                <tr key={s.id} data-testid="source-item" data-source-id={s.id} className="border-t border-stone-100 align-top dark:border-stone-800">
                  <td className="px-2 py-2">
                    <input type="checkbox" checked={selected.has(s.id)} onChange={() => toggle(s.id)} aria-label={`Select ${s.title ?? s.file_name ?? 'this source'}`} data-testid="source-select" />
                  </td>
                  <td className="max-w-md px-2 py-2">
                    <div className="font-medium">{s.title || s.file_name || 'Untitled'}</div>
                    <div className="text-xs text-stone-600 dark:text-stone-400">
                      {s.authors.length ? s.authors.slice(0, 3).join(', ') + (s.authors.length > 3 ? ' et al.' : '') : 'Authors unknown'}
                      <span className="sm:hidden">{s.year ? ` · ${s.year}` : ''}</span>
                      {s.abstract_only && <span className="ml-1 rounded bg-amber-100 px-1 text-amber-900 dark:bg-amber-900/40 dark:text-amber-200">abstract only</span>}
                      {s.status !== 'ready' && <span className="ml-1 rounded bg-stone-200 px-1 dark:bg-stone-700">{s.status}</span>}
                    </div>
                  </td>
                  <td className="hidden px-2 py-2 tabular-nums sm:table-cell">{s.year ?? '—'}</td>
                  <td className="hidden max-w-40 truncate px-2 py-2 lg:table-cell" title={s.venue ?? undefined}>{s.venue ?? '—'}</td>
                  <td className="hidden whitespace-nowrap px-2 py-2 text-right tabular-nums md:table-cell" data-testid="source-cited" title={citedTitle(s)}>{citedLabel(s)}</td>
                  <td className="hidden px-2 py-2 text-right tabular-nums md:table-cell">{s.quality_score != null ? Math.round(s.quality_score) : '—'}</td>
                  <td className="hidden px-2 py-2 text-right tabular-nums 2xl:table-cell">{sections.get(s.id) ?? '…'}</td>
                  <td className="hidden px-2 py-2 sm:table-cell">{originLabel(s.origin)}</td>
                  <td className="px-2 py-1.5">
                    {/* two by two: four in a row took the title's width at 1280 px */}
                    <div className="grid grid-cols-[auto_auto] justify-end gap-x-1 gap-y-0.5">
                      <Button size="sm" variant="ghost" onClick={() => setAsking(s)} aria-label={`Ask about ${s.title ?? s.file_name ?? 'this source'}`}>
                        Ask
                      </Button>
                      <Button size="sm" variant="ghost" asChild>
                        <Link to={`read/${s.id}`} aria-label={`Read ${s.title ?? s.file_name ?? 'this source'}`}>Read</Link>
                      </Button>
                      <Button size="sm" variant="ghost" onClick={() => setCiting(s)} aria-label={`Citations of ${s.title ?? s.file_name ?? 'this source'}`} disabled={s.status !== 'ready'}>
                        Citations
                      </Button>
                      <Button size="sm" variant="ghost" onClick={() => setDeleting(s)} aria-label={`Delete ${s.title ?? s.file_name ?? 'this source'}`}>
                        Delete
                      </Button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {sources.isSuccess && list.length > 0 && rows.length === 0 && (
        <p className="p-4 text-sm text-stone-700 dark:text-stone-300">No source matches “{filter}”.</p>
      )}
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(o) => !o && setDeleting(null)}
        title="Delete this source?"
        description={`“${deleting?.title ?? deleting?.file_name ?? ''}” is removed with its passages, and whatever only it supported (claims, concepts, wiki text). This cannot be undone.`}
        confirmLabel="Delete source"
        busy={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting.id, { onSuccess: () => setDeleting(null) })}
      />
      <ErrorText error={remove.error} />
      {citing && (
        <Dialog open onOpenChange={(o) => !o && setCiting(null)} title={`Citations: ${citing.title ?? citing.file_name ?? 'this source'}`} description="The known works it cites and that cite it; tick those to add." wide>
          <SourceCitations workspaceId={workspaceId} sourceId={citing.id} />
        </Dialog>
      )}
      {asking && (
        <Dialog open onOpenChange={(o) => !o && setAsking(null)} title={`Ask: ${asking.title ?? asking.file_name ?? 'this source'}`} description="Only this paper's passages are searched." wide>
          <Suspense fallback={<p className="text-sm">Loading…</p>}>
            <ChatPanel scope={{ sourceId: asking.id }} workspaceId={workspaceId} compact />
          </Suspense>
        </Dialog>
      )}
    </section>
  )
}
