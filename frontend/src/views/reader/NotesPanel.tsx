// The sidebar's list of highlights and notes: each with its quote, page and note, which
// can be edited, recoloured and deleted; a search box; Markdown export.
import { useState } from 'react'
import { Button } from '../../ui/Button'
import { cx } from '../../lib/cx'
import { markColor } from './PdfView'
import { COLORS, useDeleteHighlight, useUpdateHighlight, type Highlight } from './notes'

export function NotesPanel(props: {
  sourceId: string
  workspaceId: string
  highlights: Highlight[]
  cite: { id: string; label: string; page?: number } | null
  selected: string | null
  onSelect: (id: string) => void
}) {
  const { sourceId, workspaceId, highlights, cite, selected, onSelect } = props
  const [query, setQuery] = useState('')
  const q = query.trim().toLowerCase()
  const shown = q ? highlights.filter((h) => h.text.toLowerCase().includes(q) || (h.note ?? '').toLowerCase().includes(q)) : highlights
  return (
    <div className="grid gap-3">
      {cite && (
        <button
          type="button"
          data-testid="mark-item"
          aria-pressed={selected === cite.id}
          onClick={() => onSelect(cite.id)}
          className={cx('w-full rounded border px-2 py-1.5 text-left text-sm', selected === cite.id ? 'border-accent-600 bg-accent-100 dark:bg-accent-700/40' : 'border-stone-200 dark:border-stone-700')}
        >
          <span className="mr-1 inline-block h-2.5 w-2.5 rounded-full bg-yellow-500" aria-hidden />
          {cite.label}
          {cite.page ? <span className="ml-1 text-stone-600 dark:text-stone-400">· page {cite.page}</span> : null}
        </button>
      )}
      <div className="flex items-center gap-2">
        <input
          type="search"
          aria-label="Search highlights and notes"
          placeholder="Search notes…"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          className="h-8 min-w-0 flex-1 rounded border border-stone-300 bg-white px-2 text-sm dark:border-stone-600 dark:bg-stone-950"
          data-testid="note-search"
        />
        <a className="text-sm text-accent-700 underline dark:text-accent-300" href={`/api/sources/${sourceId}/highlights.md`} download="highlights.md" data-testid="export-notes">
          Export
        </a>
        <a className="text-sm text-accent-700 underline dark:text-accent-300" href={`/api/workspaces/${workspaceId}/highlights.md`} download="workspace-highlights.md">
          All
        </a>
        <a className="text-sm text-accent-700 underline dark:text-accent-300" href={`/api/sources/${sourceId}/bibtex`} download="source.bib" data-testid="export-bibtex" title="The BibTeX entry with these notes in annote">
          BibTeX
        </a>
      </div>
      {highlights.length === 0 && <p className="text-sm text-stone-600 dark:text-stone-400">Select text on the page to highlight it or add a note.</p>}
      {highlights.length > 0 && shown.length === 0 && <p className="text-sm text-stone-600 dark:text-stone-400">No note matches “{query}”.</p>}
      <ul className="grid gap-2" aria-label="Highlights and notes">
        {shown.map((h) => (
          <NoteItem key={h.id} sourceId={sourceId} highlight={h} selected={selected === h.id} onSelect={() => onSelect(h.id)} />
        ))}
      </ul>
    </div>
  )
}

function NoteItem({ sourceId, highlight, selected, onSelect }: { sourceId: string; highlight: Highlight; selected: boolean; onSelect: () => void }) {
  const update = useUpdateHighlight(sourceId)
  const remove = useDeleteHighlight(sourceId)
  const [editing, setEditing] = useState(false)
  const [draft, setDraft] = useState(highlight.note ?? '')
  return (
    <li
      data-testid="note-item"
      data-highlight={highlight.id}
      aria-current={selected ? 'true' : undefined}
      className={cx('rounded border p-2 text-sm', selected ? 'border-accent-600 bg-accent-100/60 dark:bg-accent-700/30' : 'border-stone-200 dark:border-stone-700')}
    >
      <button type="button" onClick={onSelect} className="block w-full text-left" aria-label={`Show the highlight on ${pagesLabel(highlight)}`}>
        <span className="line-clamp-3 rounded-sm px-0.5 font-serif" style={{ background: markColor(highlight.color) }}>
          {highlight.text.replace(/\s+/g, ' ')}
        </span>
        <span className="mt-1 block text-xs text-stone-600 dark:text-stone-400">{pagesLabel(highlight)}</span>
      </button>
      {!editing && highlight.note && (
        <p className="mt-1 whitespace-pre-wrap" data-testid="note-text">
          {highlight.note}
        </p>
      )}
      {editing && (
        <textarea
          aria-label="Note"
          className="mt-1 w-full rounded border border-stone-300 bg-white p-1.5 dark:border-stone-600 dark:bg-stone-950"
          rows={3}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          data-testid="note-edit"
        />
      )}
      <div className="mt-1 flex flex-wrap items-center gap-1">
        {COLORS.map((c) => (
          <button
            key={c}
            type="button"
            aria-label={`Colour ${c}`}
            aria-pressed={highlight.color === c}
            onClick={() => update.mutate({ id: highlight.id, color: c })}
            className={cx('h-4 w-4 rounded-full border border-stone-400', highlight.color === c && 'ring-2 ring-accent-600')}
            style={{ background: markColor(c) }}
          />
        ))}
        <span className="flex-1" />
        {editing ? (
          <Button
            size="sm"
            variant="primary"
            onClick={() => update.mutate({ id: highlight.id, note: draft }, { onSuccess: () => setEditing(false) })}
            data-testid="note-save"
          >
            Save
          </Button>
        ) : (
          <Button size="sm" variant="ghost" onClick={() => (setDraft(highlight.note ?? ''), setEditing(true))}>
            {highlight.note ? 'Edit note' : 'Add note'}
          </Button>
        )}
        <Button size="sm" variant="ghost" onClick={() => remove.mutate(highlight.id)} aria-label="Delete this highlight" data-testid="note-delete">
          Delete
        </Button>
      </div>
    </li>
  )
}

function pagesLabel(h: { page: number; page_end: number }): string {
  return h.page_end > h.page ? `pages ${h.page}–${h.page_end}` : `page ${h.page}`
}
