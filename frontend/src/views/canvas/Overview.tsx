// The zoomed-out map of a large graph: every node a filled rectangle and every edge a line
// on one <canvas>, redrawn on each viewport change (a few milliseconds for thousands of
// nodes). React Flow mounts no node while it shows, so opening or panning a big map runs
// no long main-thread task; zooming in past OVERVIEW_ZOOM brings the real nodes back.
import { useEffect, useMemo, useRef } from 'react'
import { useStore, type ReactFlowState } from '@xyflow/react'
import { EDGE_STYLES } from './edges'
import { edgeVisible, type Filters } from './focus'
import { NODE_SIZE, type Graph } from './model'

/** Below this zoom a graph of more than a few hundred nodes is drawn as the overview. */
export const OVERVIEW_ZOOM = 0.3

const transformOf = (s: ReactFlowState) => s.transform
const sizeOf = (s: ReactFlowState) => `${s.width}x${s.height}`

const FILL = {
  light: { source: '#f5f5f4', concept: ['#d1fae5', '#e0f2fe', '#fef3c7'], synthesis: '#ffe4e6', stroke: '#78716c' },
  dark: { source: '#292524', concept: ['#064e3b', '#0c4a6e', '#78350f'], synthesis: '#4c0519', stroke: '#a8a29e' },
}

export function Overview(props: {
  graph: Graph
  positions: ReadonlyMap<string, { x: number; y: number }>
  visible: ReadonlySet<string>
  filters: Filters
  highlight: { nodes: ReadonlySet<string>; edges: ReadonlySet<string> } | null
  selected: string | null
  dark: boolean
  /** Coloured by a table column: a source's colour (else by node kind). */
  sourceFill?: ((sourceId: string) => string) | null
}) {
  const { graph, positions, visible, filters, highlight, selected, dark, sourceFill } = props
  const ref = useRef<HTMLCanvasElement>(null)
  const [tx, ty, zoom] = useStore(transformOf)
  const size = useStore(sizeOf)
  const types = useMemo(() => new Map(graph.nodes.map((n) => [n.id, n.type])), [graph])
  useEffect(() => {
    const canvas = ref.current
    const ctx = canvas?.getContext('2d')
    if (!canvas || !ctx) return
    const ratio = window.devicePixelRatio || 1
    const { width, height } = canvas.getBoundingClientRect()
    if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
      canvas.width = Math.round(width * ratio)
      canvas.height = Math.round(height * ratio)
    }
    ctx.setTransform(1, 0, 0, 1, 0, 0)
    ctx.clearRect(0, 0, canvas.width, canvas.height)
    ctx.setTransform(zoom * ratio, 0, 0, zoom * ratio, tx * ratio, ty * ratio)
    // Only what is on screen (in flow coordinates, with a node's size of margin).
    const x0 = -tx / zoom - 300
    const y0 = -ty / zoom - 300
    const x1 = (width - tx) / zoom + 300
    const y1 = (height - ty) / zoom + 300
    const colours = dark ? FILL.dark : FILL.light
    // Batched: one path per colour and alpha (a stroke or fill per path, not per element).
    const batches = new Map<string, { alpha: number; colour: string; width: number; path: Path2D }>()
    const batch = (colour: string, alpha: number, width: number) => {
      const key = `${colour}|${alpha}|${width}`
      let b = batches.get(key)
      if (!b) batches.set(key, (b = { alpha, colour, width, path: new Path2D() }))
      return b.path
    }
    for (const e of graph.edges) {
      if (!edgeVisible(e, visible as Set<string>, filters)) continue
      const a = positions.get(e.source)
      const b = positions.get(e.target)
      if (!a || !b) continue
      if ((a.x < x0 && b.x < x0) || (a.x > x1 && b.x > x1) || (a.y < y0 && b.y < y0) || (a.y > y1 && b.y > y1)) continue
      const lit = highlight?.edges.has(e.id) ?? false
      const sa = NODE_SIZE[types.get(e.source) ?? 'concept']
      const sb = NODE_SIZE[types.get(e.target) ?? 'concept']
      const path = batch(EDGE_STYLES[e.type].color, highlight && !lit ? 0.1 : 0.55, 1)
      path.moveTo(a.x + sa.width / 2, a.y + sa.height / 2)
      path.lineTo(b.x + sb.width / 2, b.y + sb.height / 2)
    }
    for (const b of batches.values()) {
      ctx.globalAlpha = b.alpha
      ctx.strokeStyle = b.colour
      ctx.lineWidth = b.width / zoom
      ctx.stroke(b.path)
    }
    const fills = new Map<string, { alpha: number; path: Path2D }>()
    batches.clear()
    for (const n of graph.nodes) {
      const p = positions.get(n.id)
      if (!p || !visible.has(n.id) || p.x > x1 || p.y > y1 || p.x < x0 - 300 || p.y < y0 - 300) continue
      const { width: w, height: h } = NODE_SIZE[n.type]
      const lit = highlight?.nodes.has(n.id) ?? false
      const alpha = highlight && !lit ? 0.3 : 1
      const fill = sourceFill && n.data.kind === 'source' ? sourceFill(n.data.sourceId) : n.type === 'concept' ? colours.concept[Math.max(0, Math.min(2, n.level ?? 1))]! : n.type === 'cluster' ? colours.source : colours[n.type]
      const key = `${fill}|${alpha}`
      let f = fills.get(key)
      if (!f) fills.set(key, (f = { alpha, path: new Path2D() }))
      f.path.rect(p.x, p.y, w, h)
      const ring = n.id === selected ? '#2856c9' : lit ? '#f59e0b' : colours.stroke
      batch(ring, alpha, n.id === selected ? 3 : lit ? 2 : 1).rect(p.x, p.y, w, h)
    }
    for (const [key, f] of fills) {
      ctx.globalAlpha = f.alpha
      ctx.fillStyle = key.split('|')[0]!
      ctx.fill(f.path)
    }
    for (const b of batches.values()) {
      ctx.globalAlpha = b.alpha
      ctx.strokeStyle = b.colour
      ctx.lineWidth = b.width / zoom
      ctx.stroke(b.path)
    }
    ctx.globalAlpha = 1
  }, [graph, types, positions, visible, filters, highlight, selected, dark, tx, ty, zoom, size])
  return (
    <canvas
      ref={ref}
      data-testid="canvas-overview"
      aria-hidden="true"
      className="pointer-events-none absolute inset-0 z-0 h-full w-full"
    />
  )
}
