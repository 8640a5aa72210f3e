import { describe, expect, it } from 'vitest'
import { nearestInDirection, type Point } from './keyboard'

const at = (id: string, x: number, y: number): Point => ({ id, x, y })

describe('nearestInDirection', () => {
  const from = at('o', 0, 0)
  const grid = [from, at('r', 100, 0), at('rr', 200, 0), at('l', -100, 10), at('u', 0, -100), at('d', 5, 100), at('diag', 90, 80)]

  it('moves to the nearest node in each direction', () => {
    expect(nearestInDirection(from, grid, 'right')).toBe('r')
    expect(nearestInDirection(from, grid, 'left')).toBe('l')
    expect(nearestInDirection(from, grid, 'up')).toBe('u')
    expect(nearestInDirection(from, grid, 'down')).toBe('d')
  })

  it('prefers a node inside the cone over a closer one beside it', () => {
    const points = [from, at('beside', 10, 200), at('ahead', 300, 50)]
    expect(nearestInDirection(from, points, 'right')).toBe('ahead')
  })

  it('falls back to a node outside the cone, and to nothing when none is ahead', () => {
    expect(nearestInDirection(from, [from, at('beside', 10, 200)], 'right')).toBe('beside')
    expect(nearestInDirection(from, [from, at('behind', -10, 0)], 'right')).toBeNull()
    expect(nearestInDirection(from, [from], 'up')).toBeNull()
  })

  it('breaks ties by id', () => {
    expect(nearestInDirection(from, [from, at('b', 100, 10), at('a', 100, -10)], 'right')).toBe('a')
  })
})
