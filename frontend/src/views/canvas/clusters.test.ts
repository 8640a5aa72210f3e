import { describe, expect, it } from 'vitest'
import { CLUSTER_HEADER, CLUSTER_PAD, clusterBoxes } from './clusters'
import { NODE_SIZE, type GNode, type Graph } from './model'

const source = (id: string, clusterId: string | null): GNode => ({
  id,
  type: 'source',
  level: null,
  year: null,
  clusterId,
  data: {
    kind: 'source', sourceId: id, title: id, firstAuthor: null, year: null, citations: null, citedByHere: 0, quality: null, tldr: null,
    clusterId, clusterSize: 0, highlighted: false, dimmed: false, simple: false,
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
