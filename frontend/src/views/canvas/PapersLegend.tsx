// The papers-first view's legend (colour by year, size by citations) and what every node
// kind is called for assistive technology.
import { NODE_SIZE, type GNode, type Graph } from './model'
import { yearScale } from './papers'

/** A node's drawn size: a source's width by citations, a topic's by its content. */
export function nodeSize(n: GNode): { width: number; height: number } {
  if (n.data.kind === 'cluster') return { width: n.data.width, height: n.data.height }
  if (n.data.kind === 'source' && n.data.width) return { width: n.data.width, height: NODE_SIZE.source.height }
  return NODE_SIZE[n.type]
}

/** The accessible name of a node of any kind. */
export function nodeAria(n: GNode): string {
  const d = n.data
  if (d.kind === 'source') return `Source: ${d.title}${d.year ? `, ${d.year}` : ''}`
  if (d.kind === 'concept') return `Concept: ${d.name}`
  if (d.kind === 'synthesis') return `Pinned answer: ${d.question}`
  return `Topic: ${d.label}, ${d.sources} ${d.topicId === 'pinned' ? 'answers' : 'sources'}${d.expanded ? ' (expanded)' : ''}`
}

export function YearLegend({ graph, topics }: { graph: Graph | null; topics: number }) {
  const scale = yearScale((graph?.nodes ?? []).filter((n) => n.type === 'source').map((n) => n.year))
  return (
    <div
      data-testid="canvas-year-legend"
      className="flex flex-wrap items-center gap-x-2 gap-y-1 px-3 py-1 text-[12px] text-stone-700 dark:text-stone-200 sm:px-5"
    >
      <span className="font-medium">{topics} {topics === 1 ? 'topic' : 'topics'} · year:</span>
      {scale.buckets.map(([from, to, color]) => (
        <span key={from} className="flex items-center gap-1">
          <span aria-hidden className="inline-block h-3 w-3 rounded-sm" style={{ background: color }} />
          {from === to ? from : `${from}–${to}`}
        </span>
      ))}
      <span>· wider = more cited</span>
    </div>
  )
}
