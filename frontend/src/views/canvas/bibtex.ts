// One source as a BibTeX entry (what the workspace export writes, for a single source).
import type { Source } from '../../api/client'

function escape(value: string): string {
  return value.replace(/[{}\\]/g, '').replace(/\s+/g, ' ').trim()
}

export function bibtexKey(s: Source): string {
  const surname = (s.authors[0] ?? 'anon').split(/[\s,]+/).filter(Boolean).pop() ?? 'anon'
  const word = (s.title ?? s.file_name ?? 'untitled').split(/\W+/).find((w) => w.length > 3) ?? 'source'
  return `${surname}${s.year ?? ''}${word}`.toLowerCase().replace(/[^a-z0-9]/g, '')
}

export function toBibtex(s: Source): string {
  const fields: [string, string | null | undefined][] = [
    ['title', s.title ?? s.file_name],
    ['author', s.authors.length ? s.authors.join(' and ') : null],
    ['year', s.year ? String(s.year) : null],
    [s.venue ? 'booktitle' : 'howpublished', s.venue ?? (s.url ? `\\url{${s.url}}` : null)],
    ['doi', s.doi],
    ['eprint', s.arxiv_id],
    ['url', s.url],
  ]
  const body = fields
    .filter((f): f is [string, string] => Boolean(f[1]))
    .map(([k, v]) => `  ${k} = {${k === 'howpublished' ? v : escape(v)}}`)
    .join(',\n')
  return `@${s.venue ? 'inproceedings' : 'misc'}{${bibtexKey(s)},\n${body}\n}\n`
}
