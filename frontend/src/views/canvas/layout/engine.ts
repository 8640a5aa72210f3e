// Layout of the whole canvas: ELK (layered, top to bottom) per connected component, in a
// Web Worker through elk-api; components packed in a grid. A time limit terminates the
// worker and lays out what is left as a grid. Cached per component by graph hash.
import type { ELK, ElkNode } from 'elkjs/lib/elk-api'
import { connectedComponents, graphHash, NODE_SIZE, type GEdge, type Graph } from '../model'
import type { ComponentLayout, LayoutCache } from './cache'
import { COMPONENT_GAP, gridLayout, LAYER_GAP, NODE_GAP, packComponents, type Placed } from './pack'

/** Bump when layout options change, so cached layouts are recomputed. */
export const LAYOUT_VERSION = 'elk-layered-down-1'

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

export function elkGraph(component: Graph): ElkNode {
  const big = component.nodes.length > 300
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
    children: component.nodes.map((n) => ({ id: n.id, ...NODE_SIZE[n.type] })),
    edges: component.edges.map((e) => {
      const [s, t] = layeringEnds(e)
      return { id: e.id, sources: [s], targets: [t] }
    }),
  }
}

export function gridFallback(component: Graph): ComponentLayout {
  // Foundational concepts first, then specialised ones, then sources and syntheses.
  const rank = (n: Graph['nodes'][number]) => (n.type === 'concept' ? (n.level ?? 1) : n.type === 'source' ? 3 : 4)
  const items = [...component.nodes].sort((a, b) => rank(a) - rank(b)).map((n) => ({ id: n.id, ...NODE_SIZE[n.type] }))
  return { ...gridLayout(items), engine: 'grid' }
}

function fromElk(result: ElkNode): ComponentLayout {
  const kids = result.children ?? []
  const minX = Math.min(...kids.map((k) => k.x ?? 0))
  const minY = Math.min(...kids.map((k) => k.y ?? 0))
  const positions: Record<string, Placed> = {}
  let width = 0
  let height = 0
  for (const k of kids) {
    const x = (k.x ?? 0) - minX
    const y = (k.y ?? 0) - minY
    positions[k.id] = { x, y }
    width = Math.max(width, x + (k.width ?? 0))
    height = Math.max(height, y + (k.height ?? 0))
  }
  return { positions, width, height, engine: 'elk' }
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
        const result = await Promise.race([elk.layout(elkGraph(component)), expired])
        return result === 'timeout' ? gridFallback(component) : fromElk(result)
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

/**
 * Positions for every node. Components whose hash is cached are not laid out again; the
 * engine is only created when something is missing.
 */
export async function layoutGraph(
  graph: Graph,
  cache: LayoutCache,
  makeEngine: () => Promise<ComponentEngine>,
): Promise<GraphLayout> {
  const started = performance.now()
  const components = connectedComponents(graph)
  const hashes = components.map((c) => graphHash(c, LAYOUT_VERSION))
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
