// Layout of the whole canvas: ELK (layered, top to bottom) per connected component, in a
// Web Worker through elk-api, layers too wide to read wrapped into rows (wrap.ts);
// components packed in a grid. A time limit terminates the
// worker and lays out what is left as a grid. Cached per component by graph hash.
// A redundancy cluster's sources are laid out as one block (a small grid inside the
// cluster's box, header band included) that ELK or the grid places like a single node, so
// the box drawn around the members contains nothing else.
import type { ELK, ElkNode } from 'elkjs/lib/elk-api'
import { connectedComponents, graphHash, NODE_SIZE, type GEdge, type GNode, type Graph } from '../model'
import type { ComponentLayout, LayoutCache } from './cache'
import { CLUSTER_HEADER, CLUSTER_PAD, COMPONENT_GAP, gridLayout, LAYER_GAP, NODE_GAP, packComponents, type Placed } from './pack'
import { wrapWideLayers } from './wrap'

/** Bump when layout options change, so cached layouts are recomputed. */
export const LAYOUT_VERSION = 'elk-layered-down-3-wrapped-layers'

/** Members per row inside a cluster's block. */
const BLOCK_COLUMNS = 3

/** A redundancy cluster's members as one block: their offsets inside it, its size. */
export interface ClusterBlock {
  id: string
  members: string[]
  offsets: Record<string, Placed>
  width: number
  height: number
}

const BLOCK_PREFIX = 'cluster-block:'

/** One block per redundancy cluster with two or more sources in the component. */
export function clusterBlocks(component: Graph): Map<string, ClusterBlock> {
  const byCluster = new Map<string, GNode[]>()
  for (const n of component.nodes)
    if (n.type === 'source' && n.clusterId) byCluster.set(n.clusterId, [...(byCluster.get(n.clusterId) ?? []), n])
  const blocks = new Map<string, ClusterBlock>()
  const { width: w, height: h } = NODE_SIZE.source
  for (const [cluster, nodes] of byCluster) {
    if (nodes.length < 2) continue
    const members = nodes.map((n) => n.id).sort()
    const columns = Math.min(BLOCK_COLUMNS, members.length)
    const rows = Math.ceil(members.length / columns)
    const offsets: Record<string, Placed> = {}
    members.forEach((id, i) => {
      offsets[id] = { x: CLUSTER_PAD + (i % columns) * (w + NODE_GAP), y: CLUSTER_PAD + CLUSTER_HEADER + Math.floor(i / columns) * (h + NODE_GAP) }
    })
    blocks.set(BLOCK_PREFIX + cluster, {
      id: BLOCK_PREFIX + cluster,
      members,
      offsets,
      width: 2 * CLUSTER_PAD + columns * w + (columns - 1) * NODE_GAP,
      height: 2 * CLUSTER_PAD + CLUSTER_HEADER + rows * h + (rows - 1) * NODE_GAP,
    })
  }
  return blocks
}

/** The block each clustered node stands in (absent: the node stands for itself). */
function blockOf(blocks: Map<string, ClusterBlock>): Map<string, string> {
  const out = new Map<string, string>()
  for (const b of blocks.values()) for (const m of b.members) out.set(m, b.id)
  return out
}

/** Positions of the members from their blocks' positions (and the others as they are). */
function expandBlocks(placed: Record<string, Placed>, blocks: Map<string, ClusterBlock>): Record<string, Placed> {
  const out: Record<string, Placed> = {}
  for (const [id, p] of Object.entries(placed)) {
    const b = blocks.get(id)
    if (!b) out[id] = p
    else for (const m of b.members) out[m] = { x: p.x + b.offsets[m]!.x, y: p.y + b.offsets[m]!.y }
  }
  return out
}

export interface ComponentEngine {
  layout(component: Graph): Promise<ComponentLayout>
  dispose(): void
}

export interface PlacedComponent {
  hash: string
  x: number
  y: number
  width: number
  height: number
  engine: ComponentLayout['engine']
  nodeIds: string[]
}

export interface GraphLayout {
  positions: Map<string, Placed>
  components: PlacedComponent[]
  stats: { components: number; cached: number; laidOut: number; fallback: number; ms: number }
}

/** Edges as the layering sees them: concepts above the sources that discuss them. */
function layeringEnds(e: GEdge): [string, string] {
  return e.type === 'discusses' ? [e.target, e.source] : [e.source, e.target]
}

export function elkGraph(component: Graph, blocks: Map<string, ClusterBlock> = clusterBlocks(component)): ElkNode {
  const big = component.nodes.length > 300
  const inBlock = blockOf(blocks)
  const end = (id: string) => inBlock.get(id) ?? id
  return {
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'DOWN',
      'elk.spacing.nodeNode': String(NODE_GAP),
      'elk.layered.spacing.nodeNodeBetweenLayers': String(LAYER_GAP),
      'elk.spacing.componentComponent': String(NODE_GAP),
      'elk.padding': '[top=0,left=0,bottom=0,right=0]',
      'elk.layered.thoroughness': big ? '2' : '7',
      'elk.layered.nodePlacement.strategy': big ? 'LINEAR_SEGMENTS' : 'BRANDES_KOEPF',
    },
    children: [
      ...component.nodes.filter((n) => !inBlock.has(n.id)).map((n) => ({ id: n.id, ...NODE_SIZE[n.type] })),
      ...[...blocks.values()].map((b) => ({ id: b.id, width: b.width, height: b.height })),
    ],
    edges: component.edges.flatMap((e) => {
      const [s, t] = layeringEnds(e).map(end) as [string, string]
      return s === t ? [] : [{ id: e.id, sources: [s], targets: [t] }]
    }),
  }
}

export function gridFallback(component: Graph): ComponentLayout {
  // Foundational concepts first, then specialised ones, then sources and syntheses.
  const rank = (n: Graph['nodes'][number]) => (n.type === 'concept' ? (n.level ?? 1) : n.type === 'source' ? 3 : 4)
  const blocks = clusterBlocks(component)
  const inBlock = blockOf(blocks)
  const items = [...component.nodes]
    .filter((n) => !inBlock.has(n.id))
    .sort((a, b) => rank(a) - rank(b))
    .map((n) => ({ id: n.id, ...NODE_SIZE[n.type] }))
  if (!blocks.size) return { ...gridLayout(items), engine: 'grid' }
  // The grid, then the clusters' blocks below it, packed in rows NODE_GAP apart.
  const grid = gridLayout(items)
  const boxes = [{ width: grid.width, height: grid.height }, ...[...blocks.values()]]
  const at = packComponents(boxes, NODE_GAP)
  const placed: Record<string, Placed> = {}
  for (const [id, p] of Object.entries(grid.positions)) placed[id] = { x: at[0]!.x + p.x, y: at[0]!.y + p.y }
  ;[...blocks.values()].forEach((b, i) => (placed[b.id] = at[i + 1]!))
  const positions = expandBlocks(placed, blocks)
  const width = Math.max(...boxes.map((b, i) => at[i]!.x + b.width))
  const height = Math.max(...boxes.map((b, i) => at[i]!.y + b.height))
  return { positions, width, height, engine: 'grid' }
}

export function fromElk(result: ElkNode, blocks: Map<string, ClusterBlock>): ComponentLayout {
  const kids = result.children ?? []
  const minX = Math.min(...kids.map((k) => k.x ?? 0))
  const minY = Math.min(...kids.map((k) => k.y ?? 0))
  const items = kids.map((k) => ({ id: k.id, x: (k.x ?? 0) - minX, y: (k.y ?? 0) - minY, width: k.width ?? 0, height: k.height ?? 0 }))
  const { positions, width, height } = wrapWideLayers(items)
  return { positions: expandBlocks(positions, blocks), width, height, engine: 'elk' }
}

/** ELK in a Web Worker; after `timeLimitMs` the worker is terminated and the rest falls back to a grid. */
export async function createElkEngine(timeLimitMs: number): Promise<ComponentEngine> {
  const [{ default: ELKConstructor }, { default: workerUrl }] = await Promise.all([
    import('elkjs/lib/elk-api.js'),
    import('elkjs/lib/elk-worker.min.js?url'),
  ])
  let elk: ELK | null = new ELKConstructor({ workerFactory: () => new Worker(workerUrl) })
  const deadline = performance.now() + timeLimitMs
  let timer: ReturnType<typeof setTimeout> | null = null
  const expired = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => {
      elk?.terminateWorker()
      elk = null
      resolve('timeout')
    }, timeLimitMs)
  })
  return {
    async layout(component) {
      if (!elk || performance.now() > deadline) return gridFallback(component)
      try {
        const blocks = clusterBlocks(component)
        const result = await Promise.race([elk.layout(elkGraph(component, blocks)), expired])
        return result === 'timeout' ? gridFallback(component) : fromElk(result, blocks)
      } catch {
        return gridFallback(component)
      }
    },
    dispose() {
      if (timer) clearTimeout(timer)
      elk?.terminateWorker()
      elk = null
    },
  }
}

function single(component: Graph): ComponentLayout {
  const n = component.nodes[0]!
  return { positions: { [n.id]: { x: 0, y: 0 } }, ...NODE_SIZE[n.type], engine: 'elk' }
}

/** Main-thread work between two yields to the event loop (keeps every task short). */
const SLICE_MS = 12

/** A macrotask boundary: input, paint and other tasks run before the next slice. */
export function yieldToMain(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0))
}

/**
 * Positions for every node. Components whose hash is cached are not laid out again; the
 * engine is only created when something is missing. The main thread's share (components,
 * hashes, cache reads) runs in slices with yields in between.
 */
export async function layoutGraph(
  graph: Graph,
  cache: LayoutCache,
  makeEngine: () => Promise<ComponentEngine>,
): Promise<GraphLayout> {
  const started = performance.now()
  await yieldToMain()
  const components = connectedComponents(graph)
  const hashes: string[] = []
  let slice = performance.now()
  for (const c of components) {
    hashes.push(graphHash(c, LAYOUT_VERSION))
    if (performance.now() - slice > SLICE_MS) {
      await yieldToMain()
      slice = performance.now()
    }
  }
  // Single nodes need no layout and are not worth a cache entry.
  const layouts: (ComponentLayout | null)[] = components.map((c, i) => (c.nodes.length === 1 ? single(c) : cache.get(hashes[i]!)))
  const cached = layouts.filter((l, i) => l && components[i]!.nodes.length > 1).length
  let fallback = 0
  let laidOut = 0
  const missing = layouts.map((l, i) => (l ? -1 : i)).filter((i) => i >= 0)
  if (missing.length) {
    const engine = await makeEngine()
    try {
      await Promise.all(
        missing.map(async (i) => {
          const c = components[i]!
          const l = await engine.layout(c)
          if (l.engine === 'grid') fallback++
          else laidOut++
          layouts[i] = l
          cache.set(hashes[i]!, l)
        }),
      )
    } finally {
      engine.dispose()
    }
  }
  const done = layouts as ComponentLayout[]
  const offsets = packComponents(done, COMPONENT_GAP)
  const positions = new Map<string, Placed>()
  const placed: PlacedComponent[] = done.map((l, i): PlacedComponent => {
    const o = offsets[i]!
    for (const [id, p] of Object.entries(l.positions)) positions.set(id, { x: o.x + p.x, y: o.y + p.y })
    return { hash: hashes[i]!, x: o.x, y: o.y, width: l.width, height: l.height, engine: l.engine, nodeIds: components[i]!.nodes.map((n) => n.id) }
  })
  return {
    positions,
    components: placed,
    stats: { components: components.length, cached, laidOut, fallback, ms: performance.now() - started },
  }
}
