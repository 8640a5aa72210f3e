// The papers-first view (issue 33): sources and pinned answers only, grouped by the topic
// clusters the backend computes; concepts only on demand (a selected paper's). A topic is
// either expanded (its sources in a grid inside a labelled frame) or collapsed (one group
// node). Laid out here, synchronously: a grid per topic, topics packed in rows.
import type { GraphLayout } from './layout/engine'
import { packComponents, type Placed } from './layout/pack'
import { NODE_SIZE, type ApiTopic, type GEdge, type GNode, type Graph } from './model'

/** The smallest text any node or group node draws (CSS px): the first view keeps it at
 * ≥ 11 px on screen, so its zoom is at least LEGIBLE_PX / SMALLEST_FONT_PX. */
export const SMALLEST_FONT_PX = 11
export const LEGIBLE_PX = 11
export const LEGIBLE_ZOOM = LEGIBLE_PX / SMALLEST_FONT_PX
const CELL_GAP = 24
const TOPIC_GAP = 72
const FRAME_PAD = 16
const FRAME_HEADER = 40
/** Concepts shown beside a selected paper. */
const MAX_ON_DEMAND = 10
export const PINNED_TOPIC = 'pinned'
export const OTHER_TOPIC = 'other'

/** Source widths by citations/quality: the workspace's lower, middle and upper thirds. */
const WIDTHS = [212, 240, 276] as const
const CELL_WIDTH = WIDTHS[2]

/** Year colours (viridis, old → new) and the year ranges they stand for. */
export const YEAR_COLORS = ['#440154', '#3b528b', '#21918c', '#5ec962', '#d4b106'] as const

export interface YearScale {
  color(year: number | null): string
  /** [from, to, colour] per bucket, for the legend. */
  buckets: [number, number, string][]
}

export function yearScale(years: (number | null)[]): YearScale {
  const known = years.filter((y): y is number => y !== null).sort((a, b) => a - b)
  const none = '#a8a29e'
  if (!known.length) return { color: () => none, buckets: [] }
  const lo = known[0]!
  const hi = known[known.length - 1]!
  const n = Math.min(YEAR_COLORS.length, hi - lo + 1)
  const step = (hi - lo + 1) / n
  const bucket = (y: number) => Math.min(n - 1, Math.floor((y - lo) / step))
  const buckets: [number, number, string][] = Array.from({ length: n }, (_, i) => [
    Math.ceil(lo + i * step),
    Math.ceil(lo + (i + 1) * step) - 1,
    YEAR_COLORS[Math.round((i * (YEAR_COLORS.length - 1)) / Math.max(1, n - 1))]!,
  ])
  return { color: (y) => (y === null ? none : buckets[bucket(y)]![2]), buckets }
}

/** A source's weight for its size: citations (metadata and in the workspace), else quality. */
function weight(n: GNode): number {
  if (n.data.kind !== 'source') return 0
  return (n.data.citations ?? 0) + 10 * n.data.citedByHere + (n.data.quality ?? 0) / 1000
}

export interface TopicGroup {
  id: string
  label: string
  members: GNode[]
}

/** The topic a source or pinned answer is drawn in (null for a concept). */
export function topicOf(graph: Graph, n: GNode): string | null {
  if (n.type === 'concept' || n.type === 'cluster') return null
  if (n.type === 'synthesis') return PINNED_TOPIC
  return n.topicId && (graph.topics ?? []).some((x) => x.id === n.topicId) ? n.topicId : OTHER_TOPIC
}

/** Sources by topic (the backend's order: largest first), then pinned answers. */
export function topicGroups(graph: Graph): TopicGroup[] {
  const topics: ApiTopic[] = graph.topics ?? []
  const byTopic = new Map<string, GNode[]>()
  for (const n of graph.nodes) {
    if (n.type === 'concept') continue
    const t = n.type === 'synthesis' ? PINNED_TOPIC : n.topicId && topics.some((x) => x.id === n.topicId) ? n.topicId : OTHER_TOPIC
    byTopic.set(t, [...(byTopic.get(t) ?? []), n])
  }
  const out: TopicGroup[] = []
  for (const t of topics) if (byTopic.has(t.id)) out.push({ id: t.id, label: t.label, members: byTopic.get(t.id)! })
  if (byTopic.has(OTHER_TOPIC)) out.push({ id: OTHER_TOPIC, label: 'Other sources', members: byTopic.get(OTHER_TOPIC)! })
  if (byTopic.has(PINNED_TOPIC)) out.push({ id: PINNED_TOPIC, label: 'Pinned answers', members: byTopic.get(PINNED_TOPIC)! })
  for (const g of out)
    g.members.sort((a, b) => (a.year ?? 9999) - (b.year ?? 9999) || (a.id < b.id ? -1 : 1))
  return out
}

export interface PapersView {
  graph: Graph
  layout: GraphLayout
  /** Flow-coordinate extent of each topic (frame or group node). */
  topicBoxes: Map<string, { x: number; y: number; width: number; height: number }>
}

function yearsOf(members: GNode[]): string {
  const ys = members.map((m) => m.year).filter((y): y is number => y !== null)
  if (!ys.length) return ''
  const lo = Math.min(...ys)
  const hi = Math.max(...ys)
  return lo === hi ? `${lo}` : `${lo}–${hi}`
}

/** The papers-first graph and its layout: ``expanded`` topics as frames with their sources,
 * the others as one group node each; ``selected``'s concepts beside it when it is a source. */
export function papersView(graph: Graph, expanded: ReadonlySet<string>, selected: string | null): PapersView {
  const groups = topicGroups(graph)
  const years = yearScale(graph.nodes.filter((n) => n.type === 'source').map((n) => n.year))
  const ranked = graph.nodes.filter((n) => n.type === 'source').sort((a, b) => weight(a) - weight(b))
  const tier = new Map<string, number>()
  const spread = ranked.length > 2 && weight(ranked[0]!) !== weight(ranked[ranked.length - 1]!)
  ranked.forEach((n, i) => tier.set(n.id, spread ? Math.min(2, Math.floor((3 * i) / ranked.length)) : 1))

  const nodes: GNode[] = []
  const boxes: { id: string; width: number; height: number; offsets: Map<string, Placed> }[] = []
  for (const g of groups) {
    const offsets = new Map<string, Placed>()
    const frameId = `cluster:${g.id}`
    const open = expanded.has(g.id)
    let width: number
    let height: number
    if (open) {
      const columns = Math.max(1, Math.min(Math.ceil(Math.sqrt(g.members.length * 1.4)), 6))
      const rows = Math.ceil(g.members.length / columns)
      const cellH = Math.max(...g.members.map((m) => NODE_SIZE[m.type].height))
      g.members.forEach((m, i) => {
        const w = m.type === 'source' ? (WIDTHS[tier.get(m.id) ?? 1] ?? CELL_WIDTH) : NODE_SIZE[m.type].width
        offsets.set(m.id, {
          x: FRAME_PAD + (i % columns) * (CELL_WIDTH + CELL_GAP) + (CELL_WIDTH - w) / 2,
          y: FRAME_HEADER + Math.floor(i / columns) * (cellH + CELL_GAP),
        })
        nodes.push(
          m.type === 'source' && m.data.kind === 'source'
            ? { ...m, data: { ...m.data, width: w, yearColor: years.color(m.year) } }
            : m,
        )
      })
      width = 2 * FRAME_PAD + columns * CELL_WIDTH + (columns - 1) * CELL_GAP
      height = FRAME_HEADER + rows * cellH + (rows - 1) * CELL_GAP + FRAME_PAD
    } else {
      width = NODE_SIZE.cluster.width
      height = NODE_SIZE.cluster.height
    }
    offsets.set(frameId, { x: 0, y: 0 })
    nodes.push({
      id: frameId,
      type: 'cluster',
      level: null,
      year: null,
      clusterId: null,
      data: {
        kind: 'cluster',
        topicId: g.id,
        label: g.label,
        sources: g.members.length,
        years: yearsOf(g.members),
        expanded: open,
        width,
        height,
        highlighted: false,
        dimmed: false,
        simple: false,
      },
    })
    boxes.push({ id: g.id, width, height, offsets })
  }
  const placed = packComponents(boxes, TOPIC_GAP)
  const positions = new Map<string, Placed>()
  const topicBoxes = new Map<string, { x: number; y: number; width: number; height: number }>()
  boxes.forEach((b, i) => {
    const at = placed[i]!
    topicBoxes.set(b.id, { ...at, width: b.width, height: b.height })
    for (const [id, o] of b.offsets) positions.set(id, { x: at.x + o.x, y: at.y + o.y })
  })
  const ids = new Set(nodes.map((n) => n.id))
  const edges: GEdge[] = graph.edges.filter((e) => ids.has(e.source) && ids.has(e.target))

  // Concepts on demand: the selected paper's, in a column to its right, above the rest.
  const at = selected ? positions.get(selected) : undefined
  const paper = selected ? graph.nodes.find((n) => n.id === selected && n.type === 'source') : undefined
  if (at && paper) {
    const concepts = new Map(graph.nodes.filter((n) => n.type === 'concept').map((n) => [n.id, n]))
    const mine = graph.edges
      .filter((e) => e.type === 'discusses' && e.source === selected && concepts.has(e.target))
      .map((e) => concepts.get(e.target)!)
      .sort((a, b) => (a.level ?? 1) - (b.level ?? 1) || (a.id < b.id ? -1 : 1))
      .slice(0, MAX_ON_DEMAND)
    const w = paper.data.kind === 'source' ? (WIDTHS[tier.get(paper.id) ?? 1] ?? NODE_SIZE.source.width) : NODE_SIZE.source.width
    mine.forEach((c, i) => {
      positions.set(c.id, { x: at.x + w + 48 + Math.floor(i / 5) * (NODE_SIZE.concept.width + 16), y: at.y + (i % 5) * (NODE_SIZE.concept.height + 12) })
      nodes.push(c)
      ids.add(c.id)
    })
    for (const e of graph.edges) if (e.type === 'discusses' && e.source === selected && ids.has(e.target)) edges.push(e)
  }
  const components = [...topicBoxes.entries()].map(([id, b]) => ({ ...b, hash: id, engine: 'grid' as const, nodeIds: [`cluster:${id}`] }))
  return {
    graph: { nodes, edges, topics: graph.topics },
    layout: { positions, components, stats: { components: components.length, cached: 0, laidOut: components.length, fallback: 0, ms: 0 } },
    topicBoxes,
  }
}

/** The topics to show expanded at first: as many as fit the pane at a legible zoom, the
 * largest first (each one tried in turn, kept when the map still fits); the others are
 * group nodes that expand on click. */
export function initialExpanded(graph: Graph, pane: { width: number; height: number }): Set<string> {
  const fits = (open: Set<string>) => {
    const b = bounds(papersView(graph, open, null).layout)
    return Math.min(pane.width / (b.width * 1.1), pane.height / (b.height * 1.1)) >= LEGIBLE_ZOOM
  }
  const open = new Set<string>()
  for (const g of topicGroups(graph)) {
    open.add(g.id)
    if (!fits(open)) open.delete(g.id)
  }
  return open
}

export function bounds(layout: GraphLayout): { x: number; y: number; width: number; height: number } {
  if (!layout.components.length) return { x: 0, y: 0, width: 1, height: 1 }
  const x0 = Math.min(...layout.components.map((c) => c.x))
  const y0 = Math.min(...layout.components.map((c) => c.y))
  const x1 = Math.max(...layout.components.map((c) => c.x + c.width))
  const y1 = Math.max(...layout.components.map((c) => c.y + c.height))
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 }
}

/** The first view of ``b`` in a pane: fitted, but never below ``minZoom`` (then the top left
 * of the map, where the largest topics are, is in view) and never above ``maxZoom``. */
export function legibleViewport(
  b: { x: number; y: number; width: number; height: number },
  pane: { width: number; height: number },
  minZoom: number,
  maxZoom: number,
  padding = 24,
): { x: number; y: number; zoom: number } {
  const fit = Math.min((pane.width - 2 * padding) / b.width, (pane.height - 2 * padding) / b.height)
  const zoom = Math.max(minZoom, Math.min(maxZoom, fit))
  const w = b.width * zoom
  const h = b.height * zoom
  const x = w <= pane.width - 2 * padding ? (pane.width - w) / 2 - b.x * zoom : padding - b.x * zoom
  const y = h <= pane.height - 2 * padding ? (pane.height - h) / 2 - b.y * zoom : padding - b.y * zoom
  return { x, y, zoom }
}

type Rect = { x: number; y: number; width: number; height: number }
type Viewport = { x: number; y: number; zoom: number }

/** A collapsed topic expands on zooming in when at least this share of its group node is in view. */
export const MOSTLY_IN_VIEW = 0.5

/** Semantic zoom (issue 33): what a settled zoom by the user changes. Zoomed out so far that
 * a paper's label would be under 11 px on screen (zoom < LEGIBLE_ZOOM): every expanded topic
 * collapses into its group node. Zoomed in (``zoom`` above ``startZoom``) at a legible zoom:
 * the collapsed topic whose group node is mostly in view and nearest ``at`` (the pointer, or
 * the pane's centre; screen coordinates relative to the pane) expands — one per gesture. */
export function semanticZoom(
  topicBoxes: ReadonlyMap<string, Rect>,
  expanded: ReadonlySet<string>,
  viewport: Viewport,
  startZoom: number,
  pane: { width: number; height: number },
  at: { x: number; y: number },
): { expand: string } | { collapse: string[] } | null {
  const { zoom } = viewport
  if (zoom < LEGIBLE_ZOOM) {
    const open = [...topicBoxes.keys()].filter((id) => expanded.has(id))
    return open.length ? { collapse: open } : null
  }
  if (!(zoom > startZoom)) return null
  const view = { x: -viewport.x / zoom, y: -viewport.y / zoom, width: pane.width / zoom, height: pane.height / zoom }
  const focus = { x: (at.x - viewport.x) / zoom, y: (at.y - viewport.y) / zoom }
  let best: { id: string; d: number } | null = null
  for (const [id, b] of topicBoxes) {
    if (expanded.has(id)) continue
    const w = Math.min(b.x + b.width, view.x + view.width) - Math.max(b.x, view.x)
    const h = Math.min(b.y + b.height, view.y + view.height) - Math.max(b.y, view.y)
    if (w <= 0 || h <= 0 || (w * h) / (b.width * b.height) < MOSTLY_IN_VIEW) continue
    const d = (b.x + b.width / 2 - focus.x) ** 2 + (b.y + b.height / 2 - focus.y) ** 2
    if (!best || d < best.d) best = { id, d }
  }
  return best ? { expand: best.id } : null
}

/** The viewport at ``zoom`` that puts box ``b``'s centre at screen point ``at`` — moved as
 * little as needed to bring the whole box into the pane when it fits, else its top left. */
export function anchoredViewport(b: Rect, at: { x: number; y: number }, zoom: number, pane: { width: number; height: number }, padding = 24): Viewport {
  const place = (centre: number, start: number, size: number, room: number) => {
    const s = size * zoom
    const lo = centre - s / 2
    const screen = s <= room - 2 * padding ? Math.min(Math.max(lo, padding), room - padding - s) : padding
    return screen - start * zoom
  }
  return { x: place(at.x, b.x, b.width, pane.width), y: place(at.y, b.y, b.height, pane.height), zoom }
}
