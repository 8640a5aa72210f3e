// The workspace's bibliography out (issue 36): BibTeX, RIS or CSL-JSON, of the selected
// sources or all of them. A plain download link: the server names the file after the
// workspace and fills DOI/pages/venue from the catalog where a source lacks them.
import { useState } from 'react'
import { Button } from '../../ui/Button'
import { Dialog } from '../../ui/Dialog'

const FORMATS = [
  { id: 'bibtex', label: 'BibTeX (.bib)' },
  { id: 'ris', label: 'RIS (.ris)' },
  { id: 'csl-json', label: 'CSL-JSON (.json)' },
] as const

export function exportHref(workspaceId: string, format: string, sourceIds: string[]): string {
  const params = new URLSearchParams({ format })
  for (const id of sourceIds) params.append('source_id', id)
  return `/api/workspaces/${workspaceId}/export?${params.toString()}`
}

export function BibliographyExport({ workspaceId, selected }: { workspaceId: string; selected: string[] }) {
  const [open, setOpen] = useState(false)
  const [format, setFormat] = useState<string>('bibtex')
  const [scope, setScope] = useState<'all' | 'selected'>('all')
  const chosen = scope === 'selected' && selected.length ? selected : []
  return (
    <>
      <Button size="sm" onClick={() => { setScope(selected.length ? 'selected' : 'all'); setOpen(true) }} data-testid="export-bibliography">
        Export
      </Button>
      <Dialog open={open} onOpenChange={setOpen} title="Export the bibliography" description="Notes and highlights travel with each entry; import the file into another workspace or your reference manager.">
        <fieldset className="space-y-1">
          <legend className="text-sm font-medium">Format</legend>
          {FORMATS.map((f) => (
            <label key={f.id} className="flex items-center gap-2 text-sm">
              <input type="radio" name="export-format" value={f.id} checked={format === f.id} onChange={() => setFormat(f.id)} data-testid={`export-format-${f.id}`} />
              {f.label}
            </label>
          ))}
        </fieldset>
        <fieldset className="mt-3 space-y-1">
          <legend className="text-sm font-medium">Sources</legend>
          <label className="flex items-center gap-2 text-sm">
            <input type="radio" name="export-scope" checked={scope === 'all'} onChange={() => setScope('all')} />
            All sources
          </label>
          <label className="flex items-center gap-2 text-sm">
            <input type="radio" name="export-scope" checked={scope === 'selected'} disabled={!selected.length} onChange={() => setScope('selected')} />
            The selected ({selected.length})
          </label>
        </fieldset>
        <div className="mt-4 flex justify-end">
          <Button variant="primary" asChild>
            <a href={exportHref(workspaceId, format, chosen)} download data-testid="export-download" onClick={() => setOpen(false)}>
              Download
            </a>
          </Button>
        </div>
      </Dialog>
    </>
  )
}
