// Components packed into a grid of rows ("shelves"): biggest first, left to right, a new
// row when the next one would pass the target width. Exactly COMPONENT_GAP between
// neighbours in a row and between rows, so components never overlap.

/** DESIGN §6: 80 px node–node, 140 px layer–layer, 240 px component–component. */
export const NODE_GAP = 80
export const LAYER_GAP = 140
export const COMPONENT_GAP = 240

/** A redundancy cluster's box: space between its members' hull and the box, and the
 * header band above the members (the box is drawn by clusters.tsx, laid out here). */
export const CLUSTER_PAD = 14
export const CLUSTER_HEADER = 26

export interface Box {
  width: number
  height: number
}

export interface Placed {
  x: number
  y: number
}

/** Top-left corner of each box (same order as given). Rows aim at a roughly 16:10 canvas. */
export function packComponents(boxes: Box[], gap = COMPONENT_GAP): Placed[] {
  if (boxes.length === 0) return []
  const area = boxes.reduce((a, b) => a + (b.width + gap) * (b.height + gap), 0)
  const widest = Math.max(...boxes.map((b) => b.width))
  const target = Math.max(widest, Math.sqrt(area * 1.6))
  const placed: Placed[] = new Array(boxes.length)
  let x = 0
  let y = 0
  let rowHeight = 0
  boxes.forEach((b, i) => {
    if (x > 0 && x + b.width > target) {
      y += rowHeight + gap
      x = 0
      rowHeight = 0
    }
    placed[i] = { x, y }
    x += b.width + gap
    rowHeight = Math.max(rowHeight, b.height)
  })
  return placed
}

export interface GridItem {
  id: string
  width: number
  height: number
}

/** Fallback when ELK is too slow or fails: a grid in the given order, NODE_GAP apart. */
export function gridLayout(items: GridItem[], gap = NODE_GAP): { positions: Record<string, Placed>; width: number; height: number } {
  const columns = Math.max(1, Math.ceil(Math.sqrt(items.length * 1.6)))
  const cellW = Math.max(0, ...items.map((i) => i.width))
  const cellH = Math.max(0, ...items.map((i) => i.height))
  const positions: Record<string, Placed> = {}
  items.forEach((item, i) => {
    positions[item.id] = { x: (i % columns) * (cellW + gap), y: Math.floor(i / columns) * (cellH + gap) }
  })
  const rows = Math.ceil(items.length / columns)
  const usedColumns = Math.min(columns, items.length)
  return {
    positions,
    width: usedColumns ? usedColumns * cellW + (usedColumns - 1) * gap : 0,
    height: rows ? rows * cellH + (rows - 1) * gap : 0,
  }
}
