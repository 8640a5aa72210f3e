// HTML, Markdown and text sources: their stored page text as formatted paragraphs —
// Markdown headings, lists, quotes and emphasis shown, their markup hidden but kept in
// the DOM — with the same marks (character ranges of the stored text instead of
// rectangles).
import { Fragment, useEffect, useMemo, useRef } from 'react'
import './textview.css'
import { markdownStructure, type BlockKind, type SpanKind } from './markdownBlocks'
import { markColor } from './markColors'
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

// A line break inside a paragraph is a space, as Markdown reads it (the character stays).
const BLOCK_CLASS: Record<BlockKind, string> = {
  p: 'mb-3',
  h1: 'mb-3 mt-6 font-sans text-2xl font-semibold',
  h2: 'mb-3 mt-5 font-sans text-xl font-semibold',
  h3: 'mb-2 mt-4 font-sans text-lg font-semibold',
  h4: 'mb-2 mt-3 font-sans text-base font-semibold',
  li: 'md-li mb-1',
  oli: 'mb-1 pl-5',
  quote: 'my-3 border-l-4 border-stone-300 pl-3 italic text-stone-700 dark:border-stone-600 dark:text-stone-300',
}

const STYLE_CLASS: Record<Exclude<SpanKind, 'syntax'>, string> = {
  strong: 'font-semibold',
  em: 'italic',
  code: 'rounded bg-stone-100 px-1 font-mono text-[0.9em] dark:bg-stone-800',
  link: 'underline decoration-stone-400 underline-offset-2',
}

function PageText({ page, text, marks, selected, onSelect }: { page: number; text: string; marks: CharMark[]; selected: string | null; onSelect: (id: string) => void }) {
  // Marks on this page as [start, end) ranges of the stored text.
  const ranges = useMemo(
    () =>
      marks
        .filter((m) => m.page <= page && m.pageEnd >= page)
        .map((m) => ({ mark: m, start: m.page === page ? m.start : 0, end: m.pageEnd === page ? m.end : text.length })),
    [marks, page, text.length],
  )
  const { blocks, spans } = useMemo(() => markdownStructure(text), [text])
  const out: React.ReactNode[] = []
  let at = 0
  blocks.forEach((block, i) => {
    // The text between blocks (line breaks) stays in the DOM, so a selection's text is
    // the stored text's.
    if (block.start > at) out.push(text.slice(at, block.start))
    const inside = [...ranges, ...spans].flatMap((r) => [r.start, r.end]).filter((c) => c > block.start && c < block.end)
    const cuts = [...new Set([block.start, block.end, ...inside])].sort((a, b) => a - b)
    const nodes: React.ReactNode[] = []
    for (let k = 0; k + 1 < cuts.length; k++) {
      const [a, b] = [cuts[k]!, cuts[k + 1]!]
      const covering = spans.filter((s) => s.start <= a && s.end >= b)
      let node: React.ReactNode = text.slice(a, b)
      for (const s of covering) {
        if (s.kind !== 'syntax') node = <span className={STYLE_CLASS[s.kind]}>{node}</span>
      }
      if (covering.some((s) => s.kind === 'syntax')) node = <span className="md-syntax">{node}</span>
      const mark = ranges.find((r) => r.start <= a && r.end >= b && r.end > r.start)?.mark
      nodes.push(
        mark ? (
          <mark
            key={a}
            data-mark={mark.id}
            data-testid={mark.kind === 'quote' ? 'quote-highlight' : 'note-highlight'}
            onClick={() => onSelect(mark.id)}
            className={selected === mark.id ? 'rounded-sm text-inherit outline outline-2 outline-accent-600' : 'rounded-sm text-inherit'}
            style={{ background: markColor(mark.kind === 'quote' ? 'quote' : mark.color) }}
          >
            {node}
          </mark>
        ) : (
          <Fragment key={a}>{node}</Fragment>
        ),
      )
    }
    const Tag = block.kind === 'quote' ? 'blockquote' : block.kind === 'p' || block.kind === 'li' || block.kind === 'oli' ? 'p' : HEADING_TAG[block.kind]
    out.push(
      <Tag key={`b${i}`} className={BLOCK_CLASS[block.kind]} data-block={block.kind}>
        {nodes}
      </Tag>,
    )
    at = block.end
  })
  if (at < text.length) out.push(text.slice(at))
  return <>{out}</>
}

// Markdown headings under the reader's own title (an h2).
const HEADING_TAG = { h1: 'h3', h2: 'h4', h3: 'h5', h4: 'h6' } as const
