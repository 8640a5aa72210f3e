// The file name of a source's BibTeX download (its entry comes from GET /api/sources/{id}/bibtex).
import type { Source } from '../../api/client'

export function bibtexKey(s: Source): string {
  const surname = (s.authors[0] ?? 'anon').split(/[\s,]+/).filter(Boolean).pop() ?? 'anon'
  const word = (s.title ?? s.file_name ?? 'untitled').split(/\W+/).find((w) => w.length > 3) ?? 'source'
  return `${surname}${s.year ?? ''}${word}`.toLowerCase().replace(/[^a-z0-9]/g, '')
}
