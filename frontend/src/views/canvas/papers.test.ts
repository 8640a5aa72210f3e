import { describe, expect, it } from 'vitest'
import { LEGIBLE_ZOOM, anchoredViewport, initialExpanded, legibleViewport, papersView, semanticZoom, topicGroups, topicOf, yearScale } from './papers'
import { toGraph, type ApiGraph } from './model'

function api(sources: number, topics: number): ApiGraph {
  const nodes: ApiGraph['nodes'] = []
  for (let i = 0; i < sources; i++)
    nodes.push({ id: `source:s${i}`, type: 'source', label: `Paper ${i}`, topic_id: `topic-${(i % topics) + 1}`, data: { year: 2000 + (i % 20), citation_count: i * 3 } })
  nodes.push({ id: 'concept:c', type: 'concept', label: 'C', data: {} })
  nodes.push({ id: 'synthesis:m', type: 'synthesis', label: 'Q?', data: { question: 'Q?' } })
  return {
    nodes,
    edges: [{ id: 'discusses:s0:c', source: 'source:s0', target: 'concept:c', type: 'discusses', weight: 1 }],
    topics: Array.from({ length: topics }, (_, t) => ({ id: `topic-${t + 1}`, label: `T${t + 1}`, concepts: [], concept_ids: [], source_count: 0 })),
    total_nodes: nodes.length,
    remaining: 0,
  }
}

describe('the papers-first view', () => {
  it('groups sources by topic and pinned answers apart, no concept unless a paper is selected', () => {
    const graph = toGraph(api(9, 2))
    expect(topicGroups(graph).map((g) => [g.id, g.members.length])).toEqual([['topic-1', 5], ['topic-2', 4], ['pinned', 1]])
    const closed = papersView(graph, new Set(), null)
    expect(closed.graph.nodes.map((n) => n.type).sort()).toEqual(['cluster', 'cluster', 'cluster'])
    const open = papersView(graph, new Set(['topic-1', 'topic-2', 'pinned']), 'source:s0')
    expect(open.graph.nodes.filter((n) => n.type === 'source')).toHaveLength(9)
    expect(open.graph.nodes.some((n) => n.id === 'concept:c')).toBe(true)
    expect(papersView(graph, new Set(['topic-1']), null).graph.nodes.some((n) => n.type === 'concept')).toBe(false)
  })

  it('expands the topics that fit legibly, the others stay group nodes', () => {
    expect(initialExpanded(toGraph(api(6, 2)), { width: 1100, height: 700 }).size).toBe(3)
    const big = initialExpanded(toGraph(api(300, 14)), { width: 1100, height: 700 })
    expect(big.size).toBeLessThan(15)
    expect(initialExpanded(toGraph(api(6, 2)), { width: 390, height: 700 }).size).toBeLessThan(3)
  })

  it('never fits below the legible zoom: the top left shows instead', () => {
    const v = legibleViewport({ x: 0, y: 0, width: 5000, height: 3000 }, { width: 1000, height: 600 }, LEGIBLE_ZOOM, 1.2)
    expect(v.zoom).toBe(LEGIBLE_ZOOM)
    expect(v.x).toBe(24)
    expect(v.y).toBe(24)
    const small = legibleViewport({ x: 0, y: 0, width: 400, height: 200 }, { width: 1000, height: 600 }, LEGIBLE_ZOOM, 1.2)
    expect(small.zoom).toBe(1.2)
  })

  it('colours years from old to new', () => {
    const s = yearScale([2000, 2010, 2020, null])
    expect(s.color(2000)).not.toBe(s.color(2020))
    expect(s.color(null)).toBe('#a8a29e')
    expect(s.buckets[0]![0]).toBe(2000)
  })
})

describe('topicOf', () => {
  it('puts a pinned answer in the pinned group and a source without a known topic in "other"', () => {
    const graph = toGraph(api(4, 2))
    const byId = (id: string) => graph.nodes.find((n) => n.id === id)!
    expect(topicOf(graph, byId('synthesis:m'))).toBe('pinned')
    expect(topicOf(graph, byId('concept:c'))).toBeNull()
    expect(topicOf(graph, byId('source:s0'))).toBe('topic-1')
    expect(topicOf(graph, { ...byId('source:s0'), topicId: 'gone' })).toBe('other')
  })
})

describe('semantic zoom', () => {
  const boxes = new Map([
    ['a', { x: 0, y: 0, width: 280, height: 112 }],
    ['b', { x: 400, y: 0, width: 280, height: 112 }],
    ['c', { x: 2000, y: 0, width: 280, height: 112 }],
  ])
  const pane = { width: 800, height: 600 }
  it('zooming in expands the collapsed topic mostly in view nearest the pointer, one per gesture', () => {
    const vp = { x: 0, y: 0, zoom: 1.2 }
    expect(semanticZoom(boxes, new Set(), vp, 1, pane, { x: 600, y: 60 })).toEqual({ expand: 'b' })
    expect(semanticZoom(boxes, new Set(), vp, 1, pane, { x: 10, y: 10 })).toEqual({ expand: 'a' })
    // b is already open: the next nearest in view; c (off screen) never.
    expect(semanticZoom(boxes, new Set(['b']), vp, 1, pane, { x: 600, y: 60 })).toEqual({ expand: 'a' })
    expect(semanticZoom(boxes, new Set(['a', 'b']), vp, 1, pane, { x: 600, y: 60 })).toBeNull()
  })
  it('a group node less than half in view, a pan or a zoom out at a legible zoom changes nothing', () => {
    // A 300 px pane at x −250, zoom 1.2, shows flow x 208–458: 58 of b's 280 px.
    const halfOut = { x: -250, y: 0, zoom: 1.2 }
    expect(semanticZoom(new Map([['b', boxes.get('b')!]]), new Set(), halfOut, 1, { width: 300, height: 600 }, { x: 200, y: 60 })).toBeNull()
    // A 400 px pane shows 142 of them (more than half): it expands.
    expect(semanticZoom(new Map([['b', boxes.get('b')!]]), new Set(), halfOut, 1, { width: 400, height: 600 }, { x: 200, y: 60 })).toEqual({ expand: 'b' })
    expect(semanticZoom(boxes, new Set(), { x: 0, y: 0, zoom: 1.2 }, 1.2, pane, { x: 10, y: 10 })).toBeNull()
    expect(semanticZoom(boxes, new Set(), { x: 0, y: 0, zoom: 1.1 }, 1.3, pane, { x: 10, y: 10 })).toBeNull()
  })
  it('zoomed out until a paper label would be under 11 px: every expanded topic collapses', () => {
    const out = { x: 0, y: 0, zoom: LEGIBLE_ZOOM * 0.8 }
    expect(semanticZoom(boxes, new Set(['a', 'c', 'gone']), out, 1.2, pane, { x: 0, y: 0 })).toEqual({ collapse: ['a', 'c'] })
    expect(semanticZoom(boxes, new Set(), out, 1.2, pane, { x: 0, y: 0 })).toBeNull()
    // Zooming in below the legible zoom expands nothing either.
    expect(semanticZoom(boxes, new Set(), out, 0.5, pane, { x: 400, y: 300 })).toBeNull()
  })
  it('keeps a re-laid-out topic where it was on screen, inside the pane when it fits', () => {
    const b = { x: 1000, y: 500, width: 600, height: 300 }
    expect(anchoredViewport(b, { x: 400, y: 300 }, 1, pane)).toEqual({ x: 400 - 300 - 1000, y: 300 - 150 - 500, zoom: 1 })
    // Near the right edge: moved left just enough to show all of it.
    const right = anchoredViewport(b, { x: 700, y: 300 }, 1, pane)
    expect(right.x + (b.x + b.width) * right.zoom).toBe(800 - 24)
    // Wider than the pane: its top left in view.
    const wide = anchoredViewport({ ...b, width: 2000 }, { x: 400, y: 300 }, 1, pane)
    expect(wide.x + b.x).toBe(24)
  })
})
