// The reader: /w/{workspaceId}/read/{sourceId}?page=N[&rects=…&n=…][&chars=…][&highlight=id].
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
import { PdfView, type Mark } from './PdfView'
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
  const quoteRects = useMemo(() => decodeRects(params.get('rects')), [params])
  const quoteChars = useMemo(() => decodeChars(params.get('chars')), [params])
  const askedPage = Number(params.get('page')) || quoteRects[0]?.page || null
  const [initialPage] = useState(() => askedPage ?? rememberedPage(sourceId) ?? 1)
  const quoteLabel = n ? `Cited passage [${n}]` : 'Cited passage'
  const marks: Mark[] = useMemo(() => (quoteRects.length ? [{ id: 'cite', kind: 'quote', color: 'quote', rects: quoteRects, label: quoteLabel }] : []), [quoteRects, quoteLabel])
  const charMarks: CharMark[] = useMemo(() => (quoteChars ? [{ id: 'cite', kind: 'quote', color: 'quote', label: quoteLabel, ...quoteChars }] : []), [quoteChars, quoteLabel])
  const [selected, setSelected] = useState<string | null>(marks.length || charMarks.length ? 'cite' : null)
  const [tab, setTab] = useState<'marks' | 'ask'>('marks')
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
  const items = [...marks.map((m) => ({ id: m.id, label: m.label, page: m.rects[0]?.page })), ...charMarks.map((m) => ({ id: m.id, label: m.label, page: m.page }))]
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
          <PdfView url={`/api/sources/${sourceId}/file`} initialPage={initialPage} marks={marks} focus={marks.length ? 'cite' : null} selected={selected} onSelect={setSelected} onPage={onPage} />
        )}
        {source.data && !isPdf && pages.data && <TextView pages={pages.data} marks={charMarks} focus={charMarks.length ? 'cite' : null} selected={selected} onSelect={setSelected} />}
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
            <ul className="grid gap-2" aria-label="Marked passages">
              {items.length === 0 && <li className="text-sm text-stone-600 dark:text-stone-400">Nothing marked yet: select text on the page to highlight it.</li>}
              {items.map((item) => (
                <li key={item.id}>
                  <button
                    type="button"
                    data-testid="mark-item"
                    aria-pressed={selected === item.id}
                    onClick={() => setSelected(item.id)}
                    className={cx('w-full rounded border px-2 py-1.5 text-left text-sm', selected === item.id ? 'border-accent-600 bg-accent-100 dark:bg-accent-700/40' : 'border-stone-200 dark:border-stone-700')}
                  >
                    {item.label}
                    {item.page ? <span className="ml-1 text-stone-600 dark:text-stone-400">· page {item.page}</span> : null}
                  </button>
                </li>
              ))}
            </ul>
          )}
          {tab === 'ask' && <ChatPanel scope={{ sourceId }} workspaceId={workspace.id} compact />}
        </div>
      </aside>
    </main>
  )
}
