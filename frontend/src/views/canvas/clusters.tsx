// Redundancy clusters drawn as group boxes: a dashed rectangle around the cluster's drawn
// members (the layout keeps a cluster's members together in a block of their own, so the
// box holds nothing else), behind them, with a header that collapses the cluster to one representative
// source (the filters' `collapsed`) or expands it again.
import { ViewportPortal } from '@xyflow/react'
import { NODE_SIZE, type Graph } from './model'
import { CLUSTER_HEADER, CLUSTER_PAD } from './layout/pack'

export { CLUSTER_HEADER, CLUSTER_PAD }

export interface ClusterBox {
  id: string
  /** Members in the graph (drawn or not). */
  size: number
  collapsed: boolean
  x: number
  y: number
  width: number
  height: number
}

/** One box per cluster of two or more sources with a drawn member: the hull of its drawn
 * members' rectangles, padded, with room for the header above. Clusters in the order of
 * their smallest member id (stable labels "cluster 1, 2, …"). */
export function clusterBoxes(
  graph: Graph,
  positions: ReadonlyMap<string, { x: number; y: number }>,
  visible: ReadonlySet<string>,
  collapsed: ReadonlySet<string>,
): ClusterBox[] {
  const members = new Map<string, string[]>()
  for (const n of graph.nodes) if (n.type === 'source' && n.clusterId) members.set(n.clusterId, [...(members.get(n.clusterId) ?? []), n.id])
  const out: ClusterBox[] = []
  for (const [id, ids] of members) {
    if (ids.length < 2) continue
    const drawn = ids.flatMap((m) => {
      const p = positions.get(m)
      return p && visible.has(m) ? [p] : []
    })
    if (!drawn.length) continue
    const { width: w, height: h } = NODE_SIZE.source
    const x0 = Math.min(...drawn.map((p) => p.x)) - CLUSTER_PAD
    const y0 = Math.min(...drawn.map((p) => p.y)) - CLUSTER_PAD - CLUSTER_HEADER
    const x1 = Math.max(...drawn.map((p) => p.x + w)) + CLUSTER_PAD
    const y1 = Math.max(...drawn.map((p) => p.y + h)) + CLUSTER_PAD
    out.push({ id, size: ids.length, collapsed: collapsed.has(id), x: x0, y: y0, width: x1 - x0, height: y1 - y0 })
  }
  const first = (b: ClusterBox) => [...(members.get(b.id) ?? [])].sort()[0] ?? ''
  return out.sort((a, b) => (first(a) < first(b) ? -1 : first(a) > first(b) ? 1 : 0))
}

export function ClusterBoxes({ boxes, onToggle }: { boxes: ClusterBox[]; onToggle: (id: string) => void }) {
  if (!boxes.length) return null
  return (
    <ViewportPortal>
      {boxes.map((b, i) => (
        <div key={b.id}>
          {/* The box behind the members (and the edges); its header above them, to be clickable. */}
          <div
            data-testid="cluster-box"
            data-cluster={b.id}
            data-collapsed={b.collapsed}
            className="pointer-events-none absolute rounded-xl border-2 border-dashed border-violet-400 bg-violet-50/60 dark:border-violet-400/70 dark:bg-violet-950/40"
            style={{ transform: `translate(${b.x}px, ${b.y}px)`, width: b.width, height: b.height, zIndex: -1 }}
          />
          <button
            type="button"
            data-testid="cluster-toggle"
            data-cluster={b.id}
            aria-expanded={!b.collapsed}
            onClick={() => onToggle(b.id)}
            style={{ transform: `translate(${b.x + 4}px, ${b.y + 4}px)`, maxWidth: b.width - 8 }}
            className="nodrag nopan pointer-events-auto absolute truncate rounded px-1.5 py-0.5 text-left text-[11px] font-medium text-violet-800 hover:bg-violet-100 dark:text-violet-100 dark:hover:bg-violet-900"
            title={b.collapsed ? 'Show every source of this cluster' : 'Show one source for the whole cluster'}
          >
            {b.collapsed ? '▸' : '▾'} Redundancy cluster {i + 1} · {b.size} near-duplicate sources{b.collapsed ? ' (collapsed)' : ''}
          </button>
        </div>
      ))}
    </ViewportPortal>
  )
}
