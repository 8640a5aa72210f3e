// Keyboard navigation on the canvas: an arrow key moves the keyboard cursor to the nearest
// node in that direction (Enter opens its side panel, Escape closes the panel).

export type Direction = 'left' | 'right' | 'up' | 'down'

export const ARROW_KEYS: Record<string, Direction> = { ArrowLeft: 'left', ArrowRight: 'right', ArrowUp: 'up', ArrowDown: 'down' }

export interface Point {
  id: string
  /** The node's centre, in flow coordinates. */
  x: number
  y: number
}

/** The nearest node in `dir` from `from`: among the nodes ahead (strictly further along the
 * direction), those within the 90° cone around it first; the score is the distance along the
 * direction plus twice the distance across it; ties by id. Null when nothing is ahead. */
export function nearestInDirection(from: Point, points: readonly Point[], dir: Direction): string | null {
  let best: { id: string; cone: boolean; score: number } | null = null
  for (const p of points) {
    if (p.id === from.id) continue
    const dx = p.x - from.x
    const dy = p.y - from.y
    const along = dir === 'right' ? dx : dir === 'left' ? -dx : dir === 'down' ? dy : -dy
    const across = Math.abs(dir === 'left' || dir === 'right' ? dy : dx)
    if (along <= 0) continue
    const cone = across <= along
    const score = along + 2 * across
    if (
      !best ||
      (cone && !best.cone) ||
      (cone === best.cone && (score < best.score || (score === best.score && p.id < best.id)))
    )
      best = { id: p.id, cone, score }
  }
  return best?.id ?? null
}
