// What the canvas shows and highlights: filters (edge type, concept level, source year,
// cluster) and, for a selected node, the nodes that belong with it.
import type { EdgeType, GEdge, Graph } from './model'

export interface Filters {
  edgeTypes: Set<EdgeType>
  levels: Set<number>
  /** Inclusive; null: no bound. Sources without a year show only when neither bound is set. */
  yearFrom: number | null
  yearTo: number | null
  /** 'all', 'clustered' (only sources in a redundancy cluster) or a cluster id. */
  cluster: string
  /** Clusters drawn collapsed: one representative stands for the cluster. */
  collapsed: Set<string>
  /** Every concept on the map (the full ELK layout); off: the papers-first view. */
  allConcepts: boolean
}

export function defaultFilters(edgeTypes: EdgeType[], allConcepts = false): Filters {
  return { edgeTypes: new Set(edgeTypes), levels: new Set([0, 1, 2]), yearFrom: null, yearTo: null, cluster: 'all', collapsed: new Set(), allConcepts }
}

/** The ids of the nodes that pass the filters. */
export function visibleNodeIds(graph: Graph, f: Filters): Set<string> {
  const out = new Set<string>()
  const representative = new Map<string, string>()
  for (const n of graph.nodes) {
    if (n.type === 'source' && n.clusterId && f.collapsed.has(n.clusterId)) {
      const r = representative.get(n.clusterId)
      if (r === undefined || n.id < r) representative.set(n.clusterId, n.id)
    }
  }
  for (const n of graph.nodes) {
    if (n.type === 'concept' && !f.levels.has(Math.max(0, Math.min(2, n.level ?? 1)))) continue
    if (n.type === 'source') {
      const bounded = f.yearFrom !== null || f.yearTo !== null
      if (bounded && (n.year === null || (f.yearFrom !== null && n.year < f.yearFrom) || (f.yearTo !== null && n.year > f.yearTo))) continue
      if (f.cluster === 'clustered' && !n.clusterId) continue
      if (f.cluster !== 'all' && f.cluster !== 'clustered' && n.clusterId !== f.cluster) continue
      if (n.clusterId && f.collapsed.has(n.clusterId) && representative.get(n.clusterId) !== n.id) continue
    }
    out.add(n.id)
  }
  return out
}

export function edgeVisible(e: GEdge, visible: Set<string>, f: Filters): boolean {
  return f.edgeTypes.has(e.type) && visible.has(e.source) && visible.has(e.target)
}

const ORDERING: ReadonlySet<EdgeType> = new Set(['prerequisite', 'specialization'])

/** A concept's prerequisite chain: every concept reachable backwards over prerequisite/specialization edges. */
export function prerequisiteChain(graph: Graph, conceptId: string): Set<string> {
  const into = new Map<string, string[]>()
  for (const e of graph.edges) if (ORDERING.has(e.type)) into.set(e.target, [...(into.get(e.target) ?? []), e.source])
  const seen = new Set<string>()
  const stack = [conceptId]
  while (stack.length) {
    const id = stack.pop() as string
    for (const p of into.get(id) ?? []) if (!seen.has(p) && p !== conceptId) {
      seen.add(p)
      stack.push(p)
    }
  }
  return seen
}

export interface Highlight {
  nodes: Set<string>
  edges: Set<string>
}

/** What lights up with a selected node: a concept's sources and prerequisite chain; a source's concepts; an answer's sources. */
export function highlightFor(graph: Graph, selected: string | null): Highlight | null {
  if (!selected) return null
  const node = graph.nodes.find((n) => n.id === selected)
  if (!node) return null
  const nodes = new Set<string>([selected])
  const edges = new Set<string>()
  if (node.type === 'concept') {
    const chain = prerequisiteChain(graph, selected)
    chain.forEach((c) => nodes.add(c))
    const inChain = new Set([...chain, selected])
    for (const e of graph.edges) {
      if (e.type === 'discusses' && e.target === selected) {
        nodes.add(e.source)
        edges.add(e.id)
      }
      if (ORDERING.has(e.type) && inChain.has(e.source) && inChain.has(e.target)) edges.add(e.id)
    }
  } else {
    for (const e of graph.edges) {
      if (e.source === selected || e.target === selected) {
        nodes.add(e.source === selected ? e.target : e.source)
        edges.add(e.id)
      }
    }
  }
  return { nodes, edges }
}
