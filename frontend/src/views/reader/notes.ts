// Highlights and notes of one source (server state), and what a text selection is.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api, unwrap, type Schemas } from '../../api/client'
import { normalize } from '../../lib/quotes'
import { rangeText } from './quoteText'

export type Highlight = Schemas['HighlightOut']
export type HighlightColor = NonNullable<Schemas['HighlightCreate']['color']>
export const COLORS: HighlightColor[] = ['yellow', 'green', 'blue', 'pink']

const key = (sourceId: string) => ['highlights', sourceId] as const

export function useHighlights(sourceId: string) {
  return useQuery({
    queryKey: key(sourceId),
    queryFn: async () => unwrap(await api.GET('/api/sources/{source_id}/highlights', { params: { path: { source_id: sourceId } } })),
    enabled: Boolean(sourceId),
  })
}

export function useCreateHighlight(sourceId: string) {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: async (body: Schemas['HighlightCreate']) =>
      unwrap(await api.POST('/api/sources/{source_id}/highlights', { params: { path: { source_id: sourceId } }, body })),
    onSuccess: () => qc.invalidateQueries({ queryKey: key(sourceId) }),
  })
}

export function useUpdateHighlight(sourceId: string) {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: async ({ id, ...body }: { id: string } & Schemas['HighlightUpdate']) =>
      unwrap(await api.PATCH('/api/highlights/{highlight_id}', { params: { path: { highlight_id: id } }, body })),
    onSuccess: () => qc.invalidateQueries({ queryKey: key(sourceId) }),
  })
}

export function useDeleteHighlight(sourceId: string) {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: async (id: string) => {
      const { error, response } = await api.DELETE('/api/highlights/{highlight_id}', { params: { path: { highlight_id: id } } })
      if (!response.ok) throw new Error(String((error as { detail?: string } | undefined)?.detail ?? response.statusText))
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: key(sourceId) }),
  })
}

/** A selection on page `page` (through `pageEnd` across page breaks): its text, some text
 * around it, where to show the toolbar. */
export interface Selection {
  page: number
  pageEnd: number
  quote: string
  prefix: string
  suffix: string
  x: number
  y: number
}

/** The part of `range` inside `container`. */
function within(range: Range, container: Element): Range {
  const part = document.createRange()
  part.selectNodeContents(container)
  if (container.contains(range.startContainer)) part.setStart(range.startContainer, range.startOffset)
  if (container.contains(range.endContainer)) part.setEnd(range.endContainer, range.endOffset)
  return part
}

/** The selection `range` over `containers` (the text layers or text sections of pages
 * `page`, `page + 1`, … in order). Only the text inside them counts: whatever the DOM holds
 * between two pages (marks, labels) is not part of the quote. */
export function describeSelection(page: number, range: Range, containers: Element[]): Selection | null {
  const first = containers[0]
  const last = containers[containers.length - 1]
  if (!first || !last) return null
  // Line breaks inside a page are kept as whitespace (rangeText); pages are joined by one.
  const quote = normalize(containers.map((c) => rangeText(within(range, c))).join(' '))
  if (!quote) return null
  const before = document.createRange()
  before.selectNodeContents(first)
  before.setEnd(range.startContainer, range.startOffset)
  const after = document.createRange()
  after.selectNodeContents(last)
  after.setStart(range.endContainer, range.endOffset)
  const box = range.getBoundingClientRect()
  return {
    page,
    pageEnd: page + containers.length - 1,
    quote,
    prefix: rangeText(before).slice(-48),
    suffix: rangeText(after).slice(0, 48),
    x: box.left + box.width / 2,
    y: box.top,
  }
}

/** Most pages one selection may cover (the backend's `MAX_PAGES_SPANNED`). */
export const MAX_PAGES_SPANNED = 3

/**
 * The pages a selection covers: the element `pageSelector` around its start and its end
 * (numbered by `data-<pageKey>`), and inside each the text container `layerSelector` (or
 * the page element itself). Null when the selection starts or ends outside the pages'
 * text, runs backwards, or covers more than MAX_PAGES_SPANNED pages.
 */
export function selectedLayers(
  range: Range,
  pageSelector: string,
  pageKey: string,
  layerSelector: string | null,
): { page: number; containers: Element[] } | null {
  const pageOf = (node: Node) => (node instanceof Element ? node : node.parentElement)?.closest<HTMLElement>(pageSelector) ?? null
  const start = pageOf(range.startContainer)
  const end = pageOf(range.endContainer)
  if (!start || !end) return null
  const first = Number(start.dataset[pageKey])
  const last = Number(end.dataset[pageKey])
  if (!(last >= first) || last - first >= MAX_PAGES_SPANNED) return null
  const root = start.parentElement ?? document
  const containers: Element[] = []
  for (let n = first; n <= last; n++) {
    const box = n === first ? start : n === last ? end : root.querySelector(`[data-${kebab(pageKey)}="${n}"]`)
    const layer = box && (layerSelector ? box.querySelector(layerSelector) : box)
    if (!layer) return null // a page in between is not rendered: its text is unknown
    containers.push(layer)
  }
  const [head, tail] = [containers[0]!, containers[containers.length - 1]!]
  if (!head.contains(range.startContainer) || !tail.contains(range.endContainer)) return null
  return { page: first, containers }
}

function kebab(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
}
