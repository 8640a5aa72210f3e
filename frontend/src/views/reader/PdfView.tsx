// The PDF, page by page with react-pdf (one pinned pdf.js). Only pages near the viewport
// are rendered: a 300-page PDF opens at page N with every other page an empty box of the
// right size. Highlights are drawn over each page in percentages of its box, so they
// stay on their words at every zoom and after a resize.
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react'
import { Document, Page, pdfjs } from 'react-pdf'
import 'react-pdf/dist/Page/TextLayer.css'
import 'react-pdf/dist/Page/AnnotationLayer.css'
import { markColor } from './markColors'
import { Button } from '../../ui/Button'
import { displayBox, type QuoteRect } from './geometry'
import { selectedLayers } from './notes'

pdfjs.GlobalWorkerOptions.workerSrc = new URL('pdfjs-dist/build/pdf.worker.min.mjs', import.meta.url).toString()

export interface Mark {
  id: string
  kind: 'quote' | 'highlight'
  color: string
  rects: QuoteRect[]
  label: string
}

export { markColor }

const ZOOMS = [0.5, 0.67, 0.8, 1, 1.25, 1.5, 2, 3]
const PAD = 24 // the gutter beside the page (margin markers sit in it)

export function PdfView(props: {
  url: string
  initialPage: number
  marks: Mark[]
  focus: string | null
  selected: string | null
  onSelect: (id: string) => void
  onPage: (page: number) => void
  /** A text selection inside a page: its page number and the range (for the toolbar). */
  onSelection?: (page: number, range: Range, containers: Element[]) => void
}) {
  const { url, initialPage, marks, focus, selected, onSelect, onPage, onSelection } = props
  const scroller = useRef<HTMLDivElement>(null)
  const [numPages, setNumPages] = useState(0)
  const [ratio, setRatio] = useState(1.294) // height / width of page 1 (A4/Letter until known)
  const [ratios, setRatios] = useState<Record<number, number>>({})
  const [rotations, setRotations] = useState<Record<number, number>>({})
  const [fitWidth, setFitWidth] = useState(800)
  const [zoom, setZoom] = useState(1)
  const [near, setNear] = useState<Set<number>>(() => new Set([initialPage]))
  const [textReady, setTextReady] = useState<Set<number>>(new Set())
  const current = useRef(initialPage)
  const opened = useRef(false)
  const focused = useRef<string | null>(null)
  const width = Math.round(fitWidth * zoom)

  // The fit-width size follows the scroller's width (window resize, sidebar open/closed).
  useLayoutEffect(() => {
    const el = scroller.current
    if (!el) return
    const measure = () => setFitWidth(Math.max(240, Math.min(el.clientWidth - 2 * PAD - 8, 1100)))
    measure()
    const observer = new ResizeObserver(measure)
    observer.observe(el)
    return () => observer.disconnect()
  }, [])

  const pageBox = (n: number) => scroller.current?.querySelector<HTMLElement>(`[data-page-box="${n}"]`) ?? null

  // Which pages are near the viewport: those are rendered, the rest stay empty boxes.
  useEffect(() => {
    const root = scroller.current
    if (!root || !numPages) return
    const observer = new IntersectionObserver(
      (entries) => {
        setNear((prev) => {
          const next = new Set(prev)
          for (const e of entries) {
            const n = Number((e.target as HTMLElement).dataset.pageBox)
            if (e.isIntersecting) next.add(n)
            else next.delete(n)
          }
          return next
        })
      },
      { root, rootMargin: '150% 0px' },
    )
    root.querySelectorAll('[data-page-box]').forEach((el) => observer.observe(el))
    return () => observer.disconnect()
  }, [numPages])

  // Open at the asked page; after a zoom, stay on the page being read.
  useLayoutEffect(() => {
    if (!numPages) return
    const box = pageBox(opened.current ? current.current : Math.min(initialPage, numPages))
    if (box && scroller.current) scroller.current.scrollTop = box.offsetTop - 8
    opened.current = true
  }, [numPages, width]) // eslint-disable-line react-hooks/exhaustive-deps

  // Scroll the focused mark into view once its page's text is drawn.
  useEffect(() => {
    const mark = marks.find((m) => m.id === focus)
    if (!mark || focused.current === focus) return
    const page = mark.rects[0]?.page
    if (!page) return
    if (!textReady.has(page)) {
      // Bring its page near first: it renders, its text layer is drawn, this runs again.
      if (opened.current && !near.has(page)) pageBox(page)?.scrollIntoView({ block: 'start' })
      return
    }
    // Its first rectangle (the mark's layer covers the whole page).
    const el = scroller.current?.querySelector<HTMLElement>(`[data-mark="${CSS.escape(mark.id)}"] > div`)
    if (el) {
      el.scrollIntoView({ block: 'center' })
      focused.current = focus
    }
  }, [focus, marks, textReady, near]) // eslint-disable-line react-hooks/exhaustive-deps

  const onScroll = useCallback(() => {
    const root = scroller.current
    if (!root) return
    const probe = root.scrollTop + root.clientHeight / 3
    const boxes = root.querySelectorAll<HTMLElement>('[data-page-box]')
    for (const box of boxes) {
      if (box.offsetTop + box.offsetHeight > probe) {
        const n = Number(box.dataset.pageBox)
        if (n !== current.current) {
          current.current = n
          onPage(n)
        }
        break
      }
    }
  }, [onPage])

  const byPage = useMemo(() => {
    const out = new Map<number, { mark: Mark; rects: QuoteRect[] }[]>()
    for (const mark of marks) {
      const pages = new Map<number, QuoteRect[]>()
      for (const r of mark.rects) pages.set(r.page, [...(pages.get(r.page) ?? []), r])
      for (const [page, rects] of pages) out.set(page, [...(out.get(page) ?? []), { mark, rects }])
    }
    return out
  }, [marks])

  const onMouseUp = () => {
    if (!onSelection) return
    const sel = window.getSelection()
    if (!sel || sel.isCollapsed || !sel.rangeCount) return
    const range = sel.getRangeAt(0)
    const layers = selectedLayers(range, '[data-page-box]', 'pageBox', '.react-pdf__Page__textContent')
    if (layers) onSelection(layers.page, range, layers.containers)
  }

  const zoomIndex = ZOOMS.findIndex((z) => z >= zoom - 1e-6)
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <div className="flex flex-wrap items-center gap-1 border-b border-stone-200 bg-white px-2 py-1 text-sm dark:border-stone-800 dark:bg-stone-900" role="toolbar" aria-label="Zoom">
        <Button size="sm" variant="ghost" aria-label="Zoom out" data-testid="zoom-out" disabled={zoomIndex <= 0} onClick={() => setZoom(ZOOMS[Math.max(zoomIndex - 1, 0)]!)}>
          −
        </Button>
        <span className="w-12 text-center tabular-nums" data-testid="zoom-level">
          {Math.round(zoom * 100)}%
        </span>
        <Button size="sm" variant="ghost" aria-label="Zoom in" data-testid="zoom-in" disabled={zoomIndex >= ZOOMS.length - 1} onClick={() => setZoom(ZOOMS[Math.min(zoomIndex + 1, ZOOMS.length - 1)]!)}>
          +
        </Button>
        <Button size="sm" variant="ghost" data-testid="fit-width" onClick={() => setZoom(1)}>
          Fit width
        </Button>
        {numPages > 0 && <span className="ml-auto text-stone-600 dark:text-stone-400">{numPages} pages</span>}
      </div>
      <div ref={scroller} onScroll={onScroll} onMouseUp={onMouseUp} className="min-h-0 flex-1 overflow-auto bg-stone-200/70 py-2 dark:bg-stone-950" data-testid="pdf-scroller">
        <Document
          file={url}
          onLoadSuccess={async (pdf) => {
            const first = await pdf.getPage(1)
            const vp = first.getViewport({ scale: 1 })
            setRatio(vp.height / vp.width)
            setNumPages(pdf.numPages)
          }}
          loading={<p className="p-4">Loading the PDF…</p>}
          error={<p className="p-4 text-red-700 dark:text-red-300">The PDF could not be opened.</p>}
        >
          {Array.from({ length: numPages }, (_, i) => i + 1).map((n) => {
            const height = Math.round(width * (ratios[n] ?? ratio))
            const rotation = rotations[n] ?? 0
            return (
              <div key={n} data-page-box={n} className="relative mx-auto mb-3" style={{ width: width + 2 * PAD, paddingLeft: PAD, paddingRight: PAD }}>
                <div className="relative bg-white shadow" style={{ width, height }}>
                  {near.has(n) && (
                    <Page
                      pageNumber={n}
                      width={width}
                      renderAnnotationLayer={false}
                      onLoadSuccess={(p) => {
                        const vp = p.getViewport({ scale: 1 })
                        setRatios((r) => (r[n] ? r : { ...r, [n]: vp.height / vp.width }))
                        setRotations((r) => (r[n] !== undefined ? r : { ...r, [n]: vp.rotation }))
                      }}
                      onRenderTextLayerSuccess={() => setTextReady((s) => (s.has(n) ? s : new Set(s).add(n)))}
                      loading={null}
                    />
                  )}
                  {(byPage.get(n) ?? []).map(({ mark, rects }) => (
                    <div key={mark.id} data-mark={mark.id} className="pointer-events-none absolute inset-0" style={{ mixBlendMode: 'multiply', zIndex: 3 }}>
                      {rects.map((r, i) => {
                        const b = displayBox(r, rotation)
                        return (
                          <div
                            key={i}
                            data-testid={mark.kind === 'quote' ? 'quote-highlight' : 'note-highlight'}
                            data-page={n}
                            className={selected === mark.id ? 'absolute rounded-[2px] outline outline-2 outline-accent-600' : 'absolute rounded-[2px]'}
                            style={{ left: `${b.left}%`, top: `${b.top}%`, width: `${b.width}%`, height: `${b.height}%`, background: markColor(mark.kind === 'quote' ? 'quote' : mark.color) }}
                          />
                        )
                      })}
                    </div>
                  ))}
                </div>
                {(byPage.get(n) ?? []).map(({ mark, rects }) => {
                  const top = Math.min(...rects.map((r) => displayBox(r, rotation).top))
                  const bottom = Math.max(...rects.map((r) => { const b = displayBox(r, rotation); return b.top + b.height }))
                  return (
                    <button
                      key={mark.id}
                      type="button"
                      data-testid="margin-marker"
                      aria-label={`${mark.label} (page ${n})`}
                      aria-pressed={selected === mark.id}
                      onClick={() => onSelect(mark.id)}
                      className={`absolute left-1.5 w-2.5 rounded-full ${mark.kind === 'quote' ? 'bg-yellow-500' : 'bg-accent-600'} ${selected === mark.id ? 'ring-2 ring-accent-600 ring-offset-1' : ''}`}
                      style={{ top: `${(top / 100) * height}px`, height: `${Math.max(((bottom - top) / 100) * height, 10)}px` }}
                    />
                  )
                })}
                <span className="sr-only">Page {n}</span>
              </div>
            )
          })}
        </Document>
      </div>
    </div>
  )
}
