import ELK from 'elkjs/lib/elk.bundled.js'
import { describe, expect, it } from 'vitest'
import type { Graph } from '../model'
import { elkGraph, fromElk } from './engine'
import { NODE_GAP } from './pack'
import { layers, wrapWideLayers, type SizedItem } from './wrap'

/** One source discussing `n` concepts: ELK draws the concepts as one layer above it. */
function star(n: number): Graph {
  const concepts = Array.from({ length: n }, (_, i) => ({ id: `concept:${i}`, type: 'concept' as const, level: 1, data: { kind: 'concept', name: `c${i}` } }))
  return {
    nodes: [{ id: 'source:s', type: 'source', data: { kind: 'source', title: 's' } }, ...concepts],
    edges: concepts.map((c) => ({ id: `e-${c.id}`, type: 'discusses', source: 'source:s', target: c.id })),
  } as unknown as Graph
}

function boxes(positions: Record<string, { x: number; y: number }>, items: SizedItem[]): SizedItem[] {
  return items.map((i) => ({ ...i, ...positions[i.id]! }))
}

function overlapping(a: SizedItem, b: SizedItem): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
}

describe('wrapWideLayers', () => {
  it('leaves a drawing that is not too wide as it is', () => {
    const items: SizedItem[] = [
      { id: 'a', x: 0, y: 0, width: 200, height: 56 },
      { id: 'b', x: 280, y: 0, width: 200, height: 56 },
      { id: 'c', x: 140, y: 196, width: 240, height: 92 },
    ]
    const out = wrapWideLayers(items)
    expect(boxes(out.positions, items)).toEqual(items)
    expect([out.width, out.height]).toEqual([480, 288])
  })

  it('wraps a sixty-node layer into rows: readable aspect, layer order kept, nothing overlaps', () => {
    const top = Array.from({ length: 60 }, (_, i): SizedItem => ({ id: `c${i}`, x: i * 280, y: 0, width: 200, height: 56 }))
    const bottom: SizedItem = { id: 's', x: 8300, y: 196, width: 240, height: 92 }
    const items = [...top, bottom]
    const out = wrapWideLayers(items)
    expect(out.width / out.height).toBeLessThan(3)
    const placed = boxes(out.positions, items)
    for (let i = 0; i < placed.length; i++)
      for (let j = i + 1; j < placed.length; j++) expect(overlapping(placed[i]!, placed[j]!), `${placed[i]!.id} / ${placed[j]!.id}`).toBe(false)
    const s = placed.at(-1)!
    // The layer below stays below every wrapped row, and the drawing holds everything.
    for (const c of placed.slice(0, -1)) expect(c.y + c.height).toBeLessThan(s.y)
    for (const p of placed) expect(p.x >= 0 && p.x + p.width <= out.width + 0.001 && p.y + p.height <= out.height).toBe(true)
    // Rows keep ELK's left-to-right order and NODE_GAP between neighbours.
    const rows = layers(placed.slice(0, -1))
    expect(rows.length).toBeGreaterThan(3)
    expect(rows.flat().map((i) => i.id)).toEqual(top.map((i) => i.id))
    expect(rows[0]![1]!.x - (rows[0]![0]!.x + rows[0]![0]!.width)).toBe(NODE_GAP)
  })

  it('turns ELK\'s drawing of a star into a block, not a strip', async () => {
    const out = fromElk(await new ELK().layout(elkGraph(star(60), new Map())), new Map())
    expect(out.width / out.height).toBeLessThan(3)
    expect(Object.keys(out.positions)).toHaveLength(61)
  })
})

describe('layers', () => {
  it('groups items whose vertical extents overlap, each layer left to right', () => {
    const items: SizedItem[] = [
      { id: 'b', x: 300, y: 10, width: 200, height: 56 },
      { id: 'a', x: 0, y: 0, width: 240, height: 92 },
      { id: 'c', x: 0, y: 232, width: 200, height: 56 },
    ]
    expect(layers(items).map((l) => l.map((i) => i.id))).toEqual([['a', 'b'], ['c']])
  })
})
