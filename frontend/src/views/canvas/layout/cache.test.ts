import { describe, expect, it } from 'vitest'
import { graphHash, type GEdge, type GNode, type Graph } from '../model'
import { LayoutCache, type KeyValueStore } from './cache'
import { gridFallback, layoutGraph, type ComponentEngine } from './engine'

class MemoryStore implements KeyValueStore {
  map = new Map<string, string>()
  getItem(k: string) {
    return this.map.get(k) ?? null
  }
  setItem(k: string, v: string) {
    this.map.set(k, v)
  }
  removeItem(k: string) {
    this.map.delete(k)
  }
}

function concept(slug: string, level = 0): GNode {
  return {
    id: `concept:${slug}`,
    type: 'concept',
    level,
    year: null,
    clusterId: null,
    data: { kind: 'concept', slug, name: slug, level, sources: 0, highlighted: false, dimmed: false, simple: false },
  }
}

function edge(a: string, b: string, type: GEdge['type'] = 'prerequisite'): GEdge {
  return { id: `${type}:${a}:${b}`, source: `concept:${a}`, target: `concept:${b}`, type, label: null }
}

/** An engine that counts what it is asked to lay out (a grid, so no worker is needed). */
function countingEngine(log: string[][]): () => Promise<ComponentEngine> {
  return async () => ({
    layout: async (c: Graph) => {
      log.push(c.nodes.map((n) => n.id))
      return { ...gridFallback(c), engine: 'elk' as const }
    },
    dispose: () => {},
  })
}

const twoComponents: Graph = {
  nodes: [concept('a'), concept('b', 1), concept('c'), concept('d', 1), concept('lonely')],
  edges: [edge('a', 'b'), edge('c', 'd')],
}

describe('graphHash', () => {
  it('depends on nodes and edges, not on their order', () => {
    const shuffled: Graph = { nodes: [...twoComponents.nodes].reverse(), edges: [...twoComponents.edges].reverse() }
    expect(graphHash(shuffled, 'v')).toBe(graphHash(twoComponents, 'v'))
    expect(graphHash(twoComponents, 'v2')).not.toBe(graphHash(twoComponents, 'v'))
    const moreEdges = { ...twoComponents, edges: [...twoComponents.edges, edge('a', 'c', 'related')] }
    expect(graphHash(moreEdges, 'v')).not.toBe(graphHash(twoComponents, 'v'))
  })

  it("depends on who shares a redundancy cluster, not on the cluster's id", () => {
    const clustered = (ids: Record<string, string | null>): Graph => ({
      ...twoComponents,
      nodes: twoComponents.nodes.map((n) => ({ ...n, clusterId: ids[n.id] ?? null })),
    })
    const one = clustered({ 'concept:a': 'k1', 'concept:b': 'k1' })
    const renamed = clustered({ 'concept:a': 'k2', 'concept:b': 'k2' })
    const other = clustered({ 'concept:a': 'k1', 'concept:c': 'k1' })
    expect(graphHash(renamed, 'v')).toBe(graphHash(one, 'v'))
    expect(graphHash(other, 'v')).not.toBe(graphHash(one, 'v'))
    expect(graphHash(one, 'v')).not.toBe(graphHash(twoComponents, 'v'))
  })
})

describe('layout cache by graph hash', () => {
  it('a reload (a new cache over the same storage) lays nothing out again and gives the same positions', async () => {
    const store = new MemoryStore()
    const first: string[][] = []
    const a = await layoutGraph(twoComponents, new LayoutCache(store), countingEngine(first))
    expect(first).toHaveLength(2) // two components of two; the single node needs no layout
    expect(a.stats.laidOut).toBe(2)

    const again: string[][] = []
    const b = await layoutGraph(twoComponents, new LayoutCache(store), countingEngine(again))
    expect(again).toEqual([])
    expect(b.stats.cached).toBe(2)
    expect([...b.positions.entries()]).toEqual([...a.positions.entries()])
  })

  it('a change lays out only the component that changed', async () => {
    const store = new MemoryStore()
    await layoutGraph(twoComponents, new LayoutCache(store), countingEngine([]))
    const grown: Graph = { nodes: [...twoComponents.nodes, concept('e', 2)], edges: [...twoComponents.edges, edge('b', 'e')] }
    const log: string[][] = []
    const r = await layoutGraph(grown, new LayoutCache(store), countingEngine(log))
    expect(log).toEqual([['concept:a', 'concept:b', 'concept:e']])
    expect(r.stats.cached).toBe(1)
  })

  it('does not store a grid fallback, so the next load tries ELK again', async () => {
    const store = new MemoryStore()
    const fallbackEngine = async (): Promise<ComponentEngine> => ({ layout: async (c) => gridFallback(c), dispose: () => {} })
    const r = await layoutGraph(twoComponents, new LayoutCache(store), fallbackEngine)
    expect(r.stats.fallback).toBe(2)
    const log: string[][] = []
    await layoutGraph(twoComponents, new LayoutCache(store), countingEngine(log))
    expect(log).toHaveLength(2)
  })

  it('keeps at most its capacity in storage', async () => {
    const store = new MemoryStore()
    const cache = new LayoutCache(store, 3)
    for (let i = 0; i < 5; i++) cache.set(`h${i}`, { positions: {}, width: 0, height: 0, engine: 'elk' })
    const kept = [...store.map.keys()].filter((k) => k.startsWith('marginalia-layout:'))
    expect(kept.sort()).toEqual(['marginalia-layout:h2', 'marginalia-layout:h3', 'marginalia-layout:h4'])
  })
})
