// The canvas's graph model: the API's GraphView joined with the sources list, typed node
// data per node type, connected components and a stable hash per component.
import type { Schemas, Source } from '../../api/client'

export type ApiGraph = Schemas['GraphView']
export type ApiNode = Schemas['GraphNode']
export type ApiEdge = Schemas['GraphEdge']
export type EdgeType = ApiEdge['type'] | 'supports' | 'contradicts'
/** 'cluster': a topic cluster drawn as one labelled group node (papers-first view). */
export type NodeType = ApiNode['type'] | 'cluster'
export type ApiTopic = Schemas['TopicView']
/** A synthesis node's saved answer: claims with `[n]` citations and the passages cited. */
export type SynthesisAnswer = Schemas['SynthesisAnswer']

export interface SourceNodeData extends Record<string, unknown> {
  kind: 'source'
  sourceId: string
  title: string
  firstAuthor: string | null
  year: number | null
  citations: number | null
  /** How many sources of this workspace cite it (the `cites` edges). */
  citedByHere: number
  quality: number | null
  tldr: string | null
  clusterId: string | null
  clusterSize: number
  /** The topic cluster (the graph's `topics`). */
  topicId: string | null
  /** Papers-first view: width by citations/quality, colour by year. */
  width?: number
  yearColor?: string
  /** Coloured by a table column (issue 37): the source's value there, and its colour. */
  attribute?: { value: string | null; color: string }
  highlighted: boolean
  dimmed: boolean
  simple: boolean
}

export interface ConceptNodeData extends Record<string, unknown> {
  kind: 'concept'
  slug: string
  name: string
  level: number
  sources: number
  highlighted: boolean
  dimmed: boolean
  simple: boolean
}

export interface SynthesisNodeData extends Record<string, unknown> {
  kind: 'synthesis'
  messageId: string
  question: string
  claims: number | null
  conversationId: string | null
  answer: SynthesisAnswer | null
  highlighted: boolean
  dimmed: boolean
  simple: boolean
}

/** A topic cluster: collapsed, one group node standing for its sources; expanded, the frame
 * drawn behind them with its label. */
export interface ClusterNodeData extends Record<string, unknown> {
  kind: 'cluster'
  topicId: string
  label: string
  sources: number
  years: string
  expanded: boolean
  width: number
  height: number
  highlighted: boolean
  dimmed: boolean
  simple: boolean
}

export type CanvasNodeData = SourceNodeData | ConceptNodeData | SynthesisNodeData | ClusterNodeData

/** Layout sizes; the node components render at exactly these, so the layout's gaps are real. */
export const NODE_SIZE: Record<NodeType, { width: number; height: number }> = {
  source: { width: 240, height: 92 },
  concept: { width: 200, height: 56 },
  synthesis: { width: 240, height: 72 },
  cluster: { width: 280, height: 132 },
}

export interface GNode {
  id: string
  type: NodeType
  data: CanvasNodeData
  /** concepts: 0 foundational … 2 specialised */
  level: number | null
  year: number | null
  clusterId: string | null
  topicId?: string | null
}

export interface GEdge {
  id: string
  source: string
  target: string
  type: EdgeType
  label: string | null
}

export interface Graph {
  nodes: GNode[]
  edges: GEdge[]
  topics?: ApiTopic[]
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v ? v : null
}

/** The API graph as the canvas draws it (source metadata from the sources list when given). */
export function toGraph(api: ApiGraph, sources: Source[] = []): Graph {
  const byId = new Map(sources.map((s) => [s.id, s]))
  const clusterSize = new Map<string, number>()
  for (const n of api.nodes) if (n.type === 'source' && n.cluster_id) clusterSize.set(n.cluster_id, (clusterSize.get(n.cluster_id) ?? 0) + 1)
  const ids = new Set(api.nodes.map((n) => n.id))
  const nodes: GNode[] = api.nodes.map((n) => {
    const d = n.data ?? {}
    const base = { highlighted: false, dimmed: false, simple: false }
    if (n.type === 'source') {
      const sourceId = n.id.slice('source:'.length)
      const s = byId.get(sourceId)
      const year = num(d.year) ?? s?.year ?? null
      const clusterId = n.cluster_id ?? null
      return {
        id: n.id,
        type: 'source',
        level: null,
        year,
        clusterId,
        topicId: n.topic_id ?? null,
        data: {
          kind: 'source',
          sourceId,
          title: n.label || s?.title || s?.file_name || 'Untitled',
          firstAuthor: s?.authors[0] ?? null,
          year,
          citations: num(d.citation_count) ?? num(d.citations) ?? s?.citation_count ?? null,
          citedByHere: num(d.cited_by_here) ?? 0,
          quality: num(d.quality) ?? s?.quality_score ?? null,
          tldr: str(d.tldr) ?? s?.tldr ?? null,
          clusterId,
          clusterSize: clusterId ? (clusterSize.get(clusterId) ?? 1) : 0,
          topicId: n.topic_id ?? null,
          ...base,
        },
      }
    }
    if (n.type === 'concept') {
      const level = n.level ?? 1
      return {
        id: n.id,
        type: 'concept',
        level,
        year: null,
        clusterId: null,
        data: { kind: 'concept', slug: n.id.slice('concept:'.length), name: n.label, level, sources: num(d.sources) ?? 0, ...base },
      }
    }
    return {
      id: n.id,
      type: 'synthesis',
      level: null,
      year: null,
      clusterId: null,
      data: {
        kind: 'synthesis',
        messageId: n.id.slice('synthesis:'.length),
        question: str(d.question) ?? n.label,
        claims: num(d.claims),
        conversationId: n.answer?.conversation_id ?? str(d.conversation_id),
        answer: n.answer ?? null,
        ...base,
      },
    }
  })
  const edges: GEdge[] = api.edges
    .filter((e) => ids.has(e.source) && ids.has(e.target))
    .map((e) => {
      const relation = typeof e.data?.relation === 'string' ? e.data.relation : null
      const type: EdgeType = relation === 'supports' || relation === 'contradicts' ? relation : e.type
      return { id: e.id, source: e.source, target: e.target, type, label: e.label ?? null }
    })
  return { nodes, edges, topics: api.topics ?? [] }
}

/** Connected components (union-find), each sorted by node id; components largest first.
 * The sources of one redundancy cluster count as connected: the layout keeps them together. */
export function connectedComponents(graph: Graph): Graph[] {
  const parent = new Map<string, string>()
  const find = (x: string): string => {
    let r = x
    while (parent.get(r) !== r) r = parent.get(r) as string
    let c = x
    while (c !== r) {
      const next = parent.get(c) as string
      parent.set(c, r)
      c = next
    }
    return r
  }
  for (const n of graph.nodes) parent.set(n.id, n.id)
  const union = (x: string, y: string) => {
    const a = find(x)
    const b = find(y)
    if (a !== b) parent.set(a < b ? b : a, a < b ? a : b)
  }
  for (const e of graph.edges) if (parent.has(e.source) && parent.has(e.target)) union(e.source, e.target)
  const clusterHead = new Map<string, string>()
  for (const n of graph.nodes)
    if (n.type === 'source' && n.clusterId) {
      const head = clusterHead.get(n.clusterId)
      if (head === undefined) clusterHead.set(n.clusterId, n.id)
      else union(head, n.id)
    }
  const groups = new Map<string, Graph>()
  for (const n of graph.nodes) {
    const r = find(n.id)
    if (!groups.has(r)) groups.set(r, { nodes: [], edges: [] })
    groups.get(r)!.nodes.push(n)
  }
  for (const e of graph.edges) if (parent.has(e.source) && parent.has(e.target)) groups.get(find(e.source))!.edges.push(e)
  const out = [...groups.values()]
  for (const g of out) {
    g.nodes.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    g.edges.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  }
  return out.sort((a, b) => b.nodes.length - a.nodes.length || (a.nodes[0]!.id < b.nodes[0]!.id ? -1 : 1))
}

/** FNV-1a, two seeds: a 64-bit hex digest, stable across reloads and browsers. */
export function hashText(text: string): string {
  let h1 = 0x811c9dc5
  let h2 = 0x01000193 ^ 0x5bd1e995
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    h1 = Math.imul(h1 ^ c, 0x01000193)
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) ^ (h2 >>> 15)
  }
  return (h1 >>> 0).toString(16).padStart(8, '0') + (h2 >>> 0).toString(16).padStart(8, '0')
}

/** What a layout depends on: node ids, types and redundancy clusters (who is with whom, not
 * the cluster's id, which a knowledge refresh may issue anew), edge ends and types (not
 * labels or metadata). */
export function graphHash(graph: Graph, version: string): string {
  const first = new Map<string, string>()
  for (const n of graph.nodes)
    if (n.clusterId) {
      const f = first.get(n.clusterId)
      if (f === undefined || n.id < f) first.set(n.clusterId, n.id)
    }
  const nodes = graph.nodes.map((n) => `${n.id}|${n.type}|${n.clusterId ? first.get(n.clusterId) : ''}`).sort()
  const edges = graph.edges.map((e) => `${e.source}>${e.target}|${e.type}`).sort()
  return hashText(`${version}\n${nodes.join('\n')}\n--\n${edges.join('\n')}`)
}
