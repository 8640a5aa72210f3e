// The reader: /w/{workspaceId}/read/{sourceId}?page=N[&rects=…&n=…][&chars=…][&highlight=id]
// [&chunk=I[&quote=…]] (a wiki or evidence citation: the backend locates the quote, or the
// whole passage, in chunk I).
// A PDF opens at page N with the cited quote marked (rectangles from the backend); other
// sources open as formatted text with the same marks. The sidebar lists what is marked
// (selecting a margin marker selects its row) and holds the per-paper Q&A.
import { useQuery } from '@tanstack/react-query'
import { useCallback, useEffect, useMemo, useState } from 'react'
import { Link, useOutletContext, useParams, useSearchParams } from 'react-router'
import { api, unwrap, type WorkspaceDetail } from '../../api/client'
import { cx } from '../../lib/cx'
import { ChatPanel } from '../chat/ChatPanel'
import { decodeRects, rememberPage, rememberedPage } from './geometry'
import { NotesPanel } from './NotesPanel'
import { describeSelection, useCreateHighlight, useHighlights, type HighlightColor, type Selection } from './notes'
import { PdfView, type Mark } from './PdfView'
import { SelectionToolbar } from './SelectionToolbar'
import { TextView, type CharMark } from './TextView'

/** `chars=3:120,4:80`: a quote from offset 120 of page 3's text to offset 80 of page 4's. */
function decodeChars(text: string | null): Omit<CharMark, 'id' | 'kind' | 'color' | 'label'> | null {
  const m = text ? /^(\d+):(\d+),(\d+):(\d+)$/.exec(text) : null
  if (!m) return null
  const [page, start, pageEnd, end] = m.slice(1).map(Number) as [number, number, number, number]
  return { page, start, pageEnd, end }
}

export function ReaderPage() {
  const workspace = useOutletContext<WorkspaceDetail>()
  const { sourceId = '' } = useParams()
  const [params] = useSearchParams()
  const source = useQuery({
    queryKey: ['source', sourceId],
    queryFn: async () => unwrap(await api.GET('/api/sources/{source_id}', { params: { path: { source_id: sourceId } } })),
    enabled: Boolean(sourceId),
  })
  const isPdf = source.data?.kind === 'pdf' && Boolean(source.data.file_name || source.data.content_hash)
  const pages = useQuery({
    queryKey: ['pages', sourceId],
    queryFn: async () => unwrap(await api.GET('/api/sources/{source_id}/pages', { params: { path: { source_id: sourceId } } })),
    enabled: Boolean(source.data) && !isPdf,
    staleTime: Infinity,
  })
  const n = params.get('n')
  const chunk = params.get('chunk')
  const chunkQuote = params.get('quote')
  const located = useQuery({
    queryKey: ['chunk-location', sourceId, chunk, chunkQuote],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/sources/{source_id}/chunks/{chunk_index}/location', {
          params: { path: { source_id: sourceId, chunk_index: Number(chunk) }, query: chunkQuote ? { quote: chunkQuote } : {} },
        }),
      ),
    enabled: Boolean(sourceId) && chunk !== null && !params.get('rects') && !params.get('chars'),
    staleTime: Infinity,
    retry: false,
  })
  const quoteRects = useMemo(() => (located.data?.rects?.length ? located.data.rects : decodeRects(params.get('rects'))), [params, located.data])
  const quoteChars = useMemo(() => {
    const l = located.data
    if (l && !l.rects?.length) return { page: l.page, start: l.char_start, pageEnd: l.page_end, end: l.char_end }
    return decodeChars(params.get('chars'))
  }, [params, located.data])
  const askedPage = Number(params.get('page')) || quoteRects[0]?.page || null
  const [initialPage] = useState(() => askedPage ?? rememberedPage(sourceId) ?? 1)
  const quoteLabel = n ? `Cited passage [${n}]` : 'Cited passage'
  // A new citation opened while the reader is open (per-paper Q&A) is a new mark to show.
  const citeId = `cite:${params.get('rects') ?? ''}:${params.get('chars') ?? ''}:${chunk ?? ''}:${chunkQuote ?? ''}`
  const highlights = useHighlights(sourceId)
  const create = useCreateHighlight(sourceId)
  const highlightId = params.get('highlight')
  const marks: Mark[] = useMemo(
    () => [
      ...(quoteRects.length ? [{ id: citeId, kind: 'quote' as const, color: 'quote', rects: quoteRects, label: quoteLabel }] : []),
      ...(highlights.data ?? []).map((h) => ({ id: h.id, kind: 'highlight' as const, color: h.color, rects: h.rects, label: h.note ? 'Note' : 'Highlight' })),
    ],
    [quoteRects, quoteLabel, citeId, highlights.data],
  )
  const charMarks: CharMark[] = useMemo(
    () => [
      ...(quoteChars ? [{ id: citeId, kind: 'quote' as const, color: 'quote', label: quoteLabel, ...quoteChars }] : []),
      ...(highlights.data ?? []).map((h) => ({ id: h.id, kind: 'highlight' as const, color: h.color, label: 'Highlight', page: h.page, start: h.char_start, pageEnd: h.page_end, end: h.char_end })),
    ],
    [quoteChars, quoteLabel, citeId, highlights.data],
  )
  const focus = highlightId ?? (quoteRects.length || quoteChars ? citeId : null)
  const [selected, setSelected] = useState<string | null>(focus)
  useEffect(() => {
    if (focus) setSelected(focus)
  }, [focus])
  const [tab, setTab] = useState<'marks' | 'ask'>('marks')
  const [selection, setSelection] = useState<Selection | null>(null)
  const [draft, setDraft] = useState<string | undefined>(undefined)
  const onSelection = useCallback((p: number, range: Range, containers: Element[]) => {
    create.reset()
    setSelection(describeSelection(p, range, containers))
  }, [create])
  const highlight = (color: HighlightColor, note?: string) => {
    if (!selection) return
    create.mutate(
      { page: selection.page, ...(selection.pageEnd > selection.page ? { page_end: selection.pageEnd } : {}), quote: selection.quote, prefix: selection.prefix, suffix: selection.suffix, color, note: note ?? null },
      {
        onSuccess: (h) => {
          setSelection(null)
          setSelected(h.id)
          window.getSelection()?.removeAllRanges()
        },
      },
    )
  }
  const [page, setPage] = useState(initialPage)
  useEffect(() => rememberPage(sourceId, initialPage), [sourceId, initialPage])
  const onPage = useCallback(
    (p: number) => {
      setPage(p)
      rememberPage(sourceId, p)
    },
    [sourceId],
  )

  if (source.isError) {
    return (
      <main className="mx-auto max-w-3xl p-6">
        <p role="alert">This source could not be loaded: {String(source.error.message)}</p>
        <Link className="text-accent-700 underline dark:text-accent-300" to={`/w/${workspace.id}`}>
          Back to the sources
        </Link>
      </main>
    )
  }
  const items = [
    ...marks.filter((m) => m.kind === 'quote').map((m) => ({ id: m.id, label: m.label, page: m.rects[0]?.page })),
    ...charMarks.filter((m) => m.kind === 'quote').map((m) => ({ id: m.id, label: m.label, page: m.page })),
  ]
  return (
    <main className="flex h-[calc(100vh-7.5rem)] min-h-[28rem] flex-col md:flex-row" data-testid="reader">
      <section className="flex min-h-0 min-w-0 flex-1 flex-col" aria-label="Document">
        <div className="flex items-baseline gap-2 border-b border-stone-200 bg-white px-3 py-1.5 dark:border-stone-800 dark:bg-stone-900">
          <h2 className="truncate font-serif font-semibold" title={source.data?.title ?? undefined}>
            {source.data?.title ?? source.data?.file_name ?? 'Loading…'}
          </h2>
          {isPdf && <span className="shrink-0 text-sm text-stone-600 dark:text-stone-400" data-testid="current-page">page {page}</span>}
        </div>
        {source.data && isPdf && (
          <PdfView url={`/api/sources/${sourceId}/file`} initialPage={initialPage} marks={marks} focus={selected ?? focus} selected={selected} onSelect={setSelected} onPage={onPage} onSelection={onSelection} />
        )}
        {source.data && !isPdf && pages.data && <TextView pages={pages.data} marks={charMarks} focus={selected ?? focus} selected={selected} onSelect={setSelected} onSelection={onSelection} />}
        {selection && (
          <SelectionToolbar
            selection={selection}
            busy={create.isPending}
            error={create.error ? create.error.message : null}
            onHighlight={highlight}
            onAsk={() => {
              setDraft(`What does the paper mean by “${selection.quote.slice(0, 300)}”?`)
              setTab('ask')
              setSelection(null)
            }}
            onClose={() => setSelection(null)}
          />
        )}
      </section>
      <aside className="flex max-h-[45vh] w-full flex-col border-t border-stone-200 bg-white md:max-h-none md:w-[22rem] md:border-l md:border-t-0 dark:border-stone-800 dark:bg-stone-900" aria-label="Sidebar">
        <div role="tablist" aria-label="Sidebar" className="flex border-b border-stone-200 text-sm dark:border-stone-800">
          {(['marks', 'ask'] as const).map((t) => (
            <button
              key={t}
              role="tab"
              type="button"
              aria-selected={tab === t}
              data-testid={`reader-tab-${t}`}
              onClick={() => setTab(t)}
              className={cx('flex-1 px-3 py-2', tab === t ? 'border-b-2 border-accent-600 font-semibold' : 'text-stone-600 dark:text-stone-400')}
            >
              {t === 'marks' ? 'Highlights & notes' : 'Ask this paper'}
            </button>
          ))}
        </div>
        <div className="min-h-0 flex-1 overflow-auto p-3">
          {tab === 'marks' && (
            <NotesPanel
              sourceId={sourceId}
              workspaceId={workspace.id}
              highlights={highlights.data ?? []}
              cite={items[0] ?? null}
              selected={selected}
              onSelect={setSelected}
            />
          )}
          {tab === 'ask' && <ChatPanel scope={{ sourceId }} workspaceId={workspace.id} compact draft={draft} />}
        </div>
      </aside>
    </main>
  )
}
