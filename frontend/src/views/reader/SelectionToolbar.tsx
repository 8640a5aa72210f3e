// The floating toolbar over a text selection: highlight in a colour, add a note, or ask
// about the selection in the per-paper Q&A.
import { useState } from 'react'
import { Button } from '../../ui/Button'
import { markColor } from './PdfView'
import { COLORS, type HighlightColor, type Selection } from './notes'

export function SelectionToolbar(props: {
  selection: Selection
  busy: boolean
  error: string | null
  onHighlight: (color: HighlightColor, note?: string) => void
  onAsk: () => void
  onClose: () => void
}) {
  const { selection, busy, error, onHighlight, onAsk, onClose } = props
  const [noting, setNoting] = useState(false)
  const [note, setNote] = useState('')
  const left = Math.min(Math.max(selection.x - 150, 8), window.innerWidth - 308)
  const top = Math.max(selection.y - (noting ? 150 : 52), 8)
  return (
    <div
      role="toolbar"
      aria-label="Selection"
      data-testid="selection-toolbar"
      className="fixed z-50 w-[300px] rounded-lg border border-stone-200 bg-white p-2 text-sm shadow-xl dark:border-stone-700 dark:bg-stone-900"
      style={{ left, top }}
      onMouseUp={(e) => e.stopPropagation()}
    >
      <div className="flex items-center gap-1">
        {COLORS.map((c) => (
          <button
            key={c}
            type="button"
            disabled={busy}
            aria-label={`Highlight ${c}`}
            data-testid={`highlight-${c}`}
            onClick={() => onHighlight(c)}
            className="h-6 w-6 rounded-full border border-stone-400"
            style={{ background: markColor(c) }}
          />
        ))}
        <Button size="sm" variant="ghost" disabled={busy} onClick={() => setNoting(true)} data-testid="add-note">
          Note
        </Button>
        <Button size="sm" variant="ghost" onClick={onAsk} data-testid="ask-selection">
          Ask
        </Button>
        <Button size="sm" variant="ghost" onClick={onClose} aria-label="Close">
          ×
        </Button>
      </div>
      {noting && (
        <div className="mt-2 grid gap-1">
          <textarea
            autoFocus
            aria-label="Note on the selection"
            rows={3}
            value={note}
            onChange={(e) => setNote(e.target.value)}
            className="w-full rounded border border-stone-300 bg-white p-1.5 dark:border-stone-600 dark:bg-stone-950"
            data-testid="new-note"
          />
          <Button size="sm" variant="primary" disabled={busy || !note.trim()} onClick={() => onHighlight('yellow', note)} data-testid="save-note">
            Save note
          </Button>
        </div>
      )}
      {error && (
        <p role="alert" className="mt-1 text-red-700 dark:text-red-300">
          {error}
        </p>
      )}
    </div>
  )
}
