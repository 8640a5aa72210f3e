// Highlights and notes of one source (server state), and what a text selection is.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api, unwrap, type Schemas } from '../../api/client'

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

/** A selection inside one page: its text, some text around it, where to show the toolbar. */
export interface Selection {
  page: number
  quote: string
  prefix: string
  suffix: string
  x: number
  y: number
}

/** The selection `range` inside `container` (a page's text layer or a text section). */
export function describeSelection(page: number, range: Range, container: Element): Selection | null {
  const quote = range.toString().replace(/\s+/g, ' ').trim()
  if (!quote) return null
  const before = document.createRange()
  before.selectNodeContents(container)
  before.setEnd(range.startContainer, range.startOffset)
  const after = document.createRange()
  after.selectNodeContents(container)
  after.setStart(range.endContainer, range.endOffset)
  const box = range.getBoundingClientRect()
  return {
    page,
    quote,
    prefix: before.toString().slice(-48),
    suffix: after.toString().slice(0, 48),
    x: box.left + box.width / 2,
    y: box.top,
  }
}
