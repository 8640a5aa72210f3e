import { describe, expect, it } from 'vitest'
import { COMPONENT_GAP, gridLayout, packComponents, type Box } from './pack'

function rects(boxes: Box[]) {
  return packComponents(boxes).map((p, i) => ({ ...p, w: boxes[i]!.width, h: boxes[i]!.height }))
}

describe('packComponents', () => {
  const boxes: Box[] = [
    { width: 900, height: 600 },
    { width: 500, height: 300 },
    { width: 400, height: 420 },
    { width: 240, height: 92 },
    { width: 240, height: 92 },
    { width: 200, height: 56 },
    { width: 700, height: 200 },
  ]

  it('keeps at least 240 px between any two components and never overlaps', () => {
    const r = rects(boxes)
    for (let i = 0; i < r.length; i++)
      for (let j = i + 1; j < r.length; j++) {
        const a = r[i]!
        const b = r[j]!
        const dx = Math.max(b.x - (a.x + a.w), a.x - (b.x + b.w))
        const dy = Math.max(b.y - (a.y + a.h), a.y - (b.y + b.h))
        expect(Math.max(dx, dy), `components ${i} and ${j}`).toBeGreaterThanOrEqual(COMPONENT_GAP)
      }
  })

  it('lays rows out as a grid: neighbours exactly 240 px apart, each row 240 px below the tallest above it', () => {
    const r = rects(boxes)
    const rows = new Map<number, typeof r>()
    for (const b of r) rows.set(b.y, [...(rows.get(b.y) ?? []), b])
    expect(rows.size).toBeGreaterThan(1)
    const ys = [...rows.keys()].sort((a, b) => a - b)
    ys.forEach((y, k) => {
      const row = rows.get(y)!.sort((a, b) => a.x - b.x)
      expect(row[0]!.x).toBe(0)
      for (let i = 1; i < row.length; i++) expect(row[i]!.x - (row[i - 1]!.x + row[i - 1]!.w)).toBe(COMPONENT_GAP)
      if (k > 0) {
        const above = rows.get(ys[k - 1]!)!
        expect(y - (ys[k - 1]! + Math.max(...above.map((b) => b.h)))).toBe(COMPONENT_GAP)
      }
    })
  })

  it('places a single component at the origin and nothing for no components', () => {
    expect(packComponents([{ width: 10, height: 10 }])).toEqual([{ x: 0, y: 0 }])
    expect(packComponents([])).toEqual([])
  })

  it('grows the grid in both directions rather than one long row', () => {
    const many = Array.from({ length: 100 }, () => ({ width: 240, height: 92 }))
    const r = rects(many)
    const width = Math.max(...r.map((b) => b.x + b.w))
    const height = Math.max(...r.map((b) => b.y + b.h))
    expect(width / height).toBeGreaterThan(0.5)
    expect(width / height).toBeLessThan(4)
  })
})

describe('gridLayout', () => {
  it('puts items 80 px apart in a grid', () => {
    const items = Array.from({ length: 5 }, (_, i) => ({ id: `n${i}`, width: 100, height: 50 }))
    const g = gridLayout(items)
    expect(g.positions.n0).toEqual({ x: 0, y: 0 })
    expect(g.positions.n1).toEqual({ x: 180, y: 0 })
    const ys = new Set(Object.values(g.positions).map((p) => p.y))
    expect([...ys].sort((a, b) => a - b)).toEqual([0, 130])
    expect(g.width).toBe(3 * 100 + 2 * 80)
    expect(g.height).toBe(2 * 50 + 80)
  })
})
