// HTML, Markdown and text sources: their stored page text as formatted paragraphs, with
// the same marks (character ranges of the stored text instead of rectangles).
import { useEffect, useMemo, useRef } from 'react'
import { markColor } from './PdfView'
import { selectedLayers } from './notes'

export interface CharMark {
  id: string
  kind: 'quote' | 'highlight'
  color: string
  label: string
  /** [page, start] to [page_end, end) in the stored page texts. */
  page: number
  start: number
  pageEnd: number
  end: number
}

export function TextView(props: {
  pages: { page_number: number; text: string }[]
  marks: CharMark[]
  focus: string | null
  selected: string | null
  onSelect: (id: string) => void
  onSelection?: (page: number, range: Range, containers: Element[]) => void
}) {
  const { pages, marks, focus, selected, onSelect, onSelection } = props
  const onMouseUp = () => {
    const sel = window.getSelection()
    if (!onSelection || !sel || sel.isCollapsed || !sel.rangeCount) return
    const range = sel.getRangeAt(0)
    const sections = selectedLayers(range, 'section[data-page-number]', 'pageNumber', null)
    if (sections) onSelection(sections.page, range, sections.containers)
  }
  const root = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (!focus) return
    root.current?.querySelector(`[data-mark="${CSS.escape(focus)}"]`)?.scrollIntoView({ block: 'center' })
  }, [focus, pages.length])
  return (
    <div ref={root} onMouseUp={onMouseUp} className="min-h-0 flex-1 overflow-auto bg-white px-4 py-6 dark:bg-stone-900" data-testid="text-reader">
      <article className="mx-auto max-w-prose font-serif leading-relaxed text-stone-800 dark:text-stone-200">
        {pages.map((p) => (
          <section key={p.page_number} data-page-number={p.page_number} aria-label={`Part ${p.page_number}`}>
            <PageText page={p.page_number} text={p.text} marks={marks} selected={selected} onSelect={onSelect} />
          </section>
        ))}
      </article>
    </div>
  )
}

function PageText({ page, text, marks, selected, onSelect }: { page: number; text: string; marks: CharMark[]; selected: string | null; onSelect: (id: string) => void }) {
  // Marks on this page as [start, end) ranges, cut into segments at every boundary.
  const ranges = useMemo(
    () =>
      marks
        .filter((m) => m.page <= page && m.pageEnd >= page)
        .map((m) => ({ mark: m, start: m.page === page ? m.start : 0, end: m.pageEnd === page ? m.end : text.length })),
    [marks, page, text.length],
  )
  const cuts = [...new Set([0, text.length, ...ranges.flatMap((r) => [r.start, r.end])])].filter((c) => c >= 0 && c <= text.length).sort((a, b) => a - b)
  const paragraphs: React.ReactNode[][] = [[]]
  for (let i = 0; i + 1 < cuts.length; i++) {
    const [a, b] = [cuts[i]!, cuts[i + 1]!]
    const over = ranges.filter((r) => r.start <= a && r.end >= b && r.end > r.start)
    const pieces = text.slice(a, b).split(/\n\s*\n/)
    pieces.forEach((piece, k) => {
      if (k > 0) paragraphs.push([])
      const mark = over[0]?.mark
      const node = mark ? (
        <mark
          key={`${a}-${k}`}
          data-mark={mark.id}
          data-testid={mark.kind === 'quote' ? 'quote-highlight' : 'note-highlight'}
          onClick={() => onSelect(mark.id)}
          className={selected === mark.id ? 'rounded-sm text-inherit outline outline-2 outline-accent-600' : 'rounded-sm text-inherit'}
          style={{ background: markColor(mark.kind === 'quote' ? 'quote' : mark.color) }}
        >
          {piece}
        </mark>
      ) : (
        piece
      )
      paragraphs[paragraphs.length - 1]!.push(node)
    })
  }
  return (
    <>
      {paragraphs.map((nodes, i) => (
        <p key={i} className="mb-3 whitespace-pre-line">
          {nodes}
        </p>
      ))}
    </>
  )
}
