import { describe, expect, it } from 'vitest'
import { CLUSTER_HEADER, CLUSTER_PAD, clusterBoxes } from './clusters'
import { connectedComponents, NODE_SIZE, type GNode, type Graph } from './model'
import type { ComponentLayout } from './layout/cache'
import { clusterBlocks, elkGraph, fromElk, gridFallback } from './layout/engine'

const source = (id: string, clusterId: string | null): GNode => ({
  id,
  type: 'source',
  level: null,
  year: null,
  clusterId,
  data: {
    kind: 'source', sourceId: id, title: id, firstAuthor: null, year: null, citations: null, citedByHere: 0, quality: null, tldr: null,
    clusterId, clusterSize: 0, topicId: null, highlighted: false, dimmed: false, simple: false,
  },
})

describe('clusterBoxes', () => {
  const graph: Graph = { nodes: [source('a', 'k'), source('b', 'k'), source('c', null), source('d', 'solo')], edges: [] }
  const positions = new Map([
    ['a', { x: 0, y: 0 }],
    ['b', { x: 400, y: 300 }],
    ['c', { x: 100, y: 100 }],
    ['d', { x: 900, y: 0 }],
  ])
  const { width, height } = NODE_SIZE.source

  it('draws the padded hull of the drawn members, with room for the header', () => {
    const [box, ...rest] = clusterBoxes(graph, positions, new Set(['a', 'b', 'c', 'd']), new Set())
    expect(rest).toEqual([]) // a cluster of one is no group
    expect(box).toEqual({
      id: 'k', size: 2, collapsed: false,
      x: -CLUSTER_PAD, y: -CLUSTER_PAD - CLUSTER_HEADER,
      width: 400 + width + 2 * CLUSTER_PAD, height: 300 + height + 2 * CLUSTER_PAD + CLUSTER_HEADER,
    })
  })

  it('shrinks to what is drawn when collapsed, and disappears with its members', () => {
    const [box] = clusterBoxes(graph, positions, new Set(['a', 'c']), new Set(['k']))
    expect(box).toMatchObject({ collapsed: true, size: 2, width: width + 2 * CLUSTER_PAD, height: height + 2 * CLUSTER_PAD + CLUSTER_HEADER })
    expect(clusterBoxes(graph, positions, new Set(['c']), new Set())).toEqual([])
  })
})

// Issue 15: a cluster's box must not cover unrelated nodes. A workspace-like component
// (concepts on three levels, sources discussing them, two redundancy clusters whose
// members discuss unrelated concepts far apart) laid out by the real ELK (the bundled
// build, no worker) and by the grid fallback: no non-member's box meets a cluster's box.
describe('cluster-aware layout', () => {
  const concept = (i: number, level: number): GNode => ({
    id: `concept:k${i}`, type: 'concept', level, year: null, clusterId: null,
    data: { kind: 'concept', slug: `k${i}`, name: `k${i}`, level, sources: 1, highlighted: false, dimmed: false, simple: false },
  })
  const nodes: GNode[] = []
  const edges: Graph['edges'] = []
  for (let i = 0; i < 24; i++) nodes.push(concept(i, i < 6 ? 0 : i < 14 ? 1 : 2))
  for (let i = 6; i < 24; i++) edges.push({ id: `prerequisite:${i}`, source: `concept:k${(i * 7) % 6}`, target: `concept:k${i}`, type: 'prerequisite', label: null })
  for (let i = 0; i < 16; i++) {
    const cluster = i < 3 ? 'alpha' : i < 5 ? 'beta' : null
    nodes.push(source(`source:s${i}`, cluster))
    for (const k of [(i * 5) % 24, (i * 11 + 3) % 24]) edges.push({ id: `discusses:s${i}:k${k}`, source: `source:s${i}`, target: `concept:k${k}`, type: 'discusses', label: null })
  }
  const graph: Graph = { nodes, edges }
  const size = (id: string) => NODE_SIZE[nodes.find((n) => n.id === id)!.type]
  const intersects = (a: { x: number; y: number; width: number; height: number }, b: typeof a) =>
    a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height

  async function check(layout: ComponentLayout) {
    const positions = new Map(Object.entries(layout.positions))
    expect(positions.size).toBe(nodes.length)
    const boxes = clusterBoxes(graph, positions, new Set(positions.keys()), new Set())
    expect(boxes.map((b) => b.id).sort()).toEqual(['alpha', 'beta'])
    for (const box of boxes)
      for (const n of nodes) {
        if (n.clusterId === box.id) continue
        const p = positions.get(n.id)!
        expect(intersects(box, { ...p, ...size(n.id) }), `${n.id} inside cluster ${box.id}'s box`).toBe(false)
      }
    // And nodes never overlap each other.
    const all = [...positions.entries()].map(([id, p]) => ({ id, ...p, ...size(id) }))
    for (let i = 0; i < all.length; i++) for (let j = i + 1; j < all.length; j++) expect(intersects(all[i]!, all[j]!), `${all[i]!.id} / ${all[j]!.id}`).toBe(false)
  }

  it('ELK places each cluster as one block', async () => {
    const { default: ELK } = await import('elkjs/lib/elk.bundled.js')
    const blocks = clusterBlocks(graph)
    expect([...blocks.values()].map((b) => b.members.length).sort()).toEqual([2, 3])
    await check(fromElk(await new ELK().layout(elkGraph(graph, blocks)), blocks))
  })

  it('the grid fallback keeps them together too', async () => {
    await check(gridFallback(graph))
  })

  it('puts the members of a cluster in one component even without an edge between them', () => {
    const parts = connectedComponents({ nodes: [source('x', 'q'), source('y', 'q'), source('z', null)], edges: [] })
    expect(parts.map((p) => p.nodes.map((n) => n.id))).toEqual([['x', 'y'], ['z']])
  })
})
