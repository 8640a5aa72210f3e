import { describe, expect, it } from 'vitest'
import { decodeRects, displayBox, encodeRects, readerHref } from './geometry'

describe('quote rectangles', () => {
  it('round-trip through the URL parameter and drop malformed parts', () => {
    const rects = [
      { page: 3, x0: 0.1, y0: 0.2, x1: 0.45678, y1: 0.22 },
      { page: 4, x0: 0.5, y0: 0.05, x1: 0.9, y1: 0.07 },
    ]
    const text = encodeRects(rects)
    expect(text).toBe('3:0.1,0.2,0.4568,0.22;4:0.5,0.05,0.9,0.07')
    expect(decodeRects(text)).toEqual([{ ...rects[0], x1: 0.4568 }, rects[1]])
    expect(decodeRects('x;3:0.5,0.5,0.4,0.6;2:0,0,2,1')).toEqual([])
    expect(readerHref('w', 's', { rects, n: 2 })).toBe('/w/w/read/s?page=3&rects=3%3A0.1%2C0.2%2C0.4568%2C0.22%3B4%3A0.5%2C0.05%2C0.9%2C0.07&n=2')
  })

  it('turn with the page: a rect near the unrotated bottom-left is top-left on a page shown at 90°', () => {
    const rect = { page: 1, x0: 0.1, y0: 0.8, x1: 0.12, y1: 0.95 }
    const flat = displayBox(rect, 0)
    expect([flat.left, flat.top, flat.width, flat.height].map((v) => Math.round(v * 1000) / 1000)).toEqual([10, 80, 2, 15])
    const turned = displayBox(rect, 90)
    expect(turned.left).toBeCloseTo(5)
    expect(turned.top).toBeCloseTo(10)
    expect(turned.width).toBeCloseTo(15)
    expect(turned.height).toBeCloseTo(2)
    const upside = displayBox(rect, 180)
    expect(upside.left).toBeCloseTo(88)
    expect(upside.top).toBeCloseTo(5)
  })
})
