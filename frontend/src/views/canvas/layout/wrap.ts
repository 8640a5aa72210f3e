// Wide layers wrapped into several rows. A layered drawing of a star (one source with sixty
// concepts, or one concept discussed by forty sources) is one layer of sixty nodes side by
// side: a strip tens of thousands of pixels wide that no fitted view can show legibly. A
// layer wider than the component's target width is cut, in ELK's left-to-right order, into
// rows NODE_GAP apart; the layers below move down by what that adds. Layers that fit keep
// ELK's placement.
import { NODE_GAP, type Placed } from './pack'

export interface SizedItem {
  id: string
  x: number
  y: number
  width: number
  height: number
}

/** Wrap only when the drawing is wider than this many times its height. */
const MAX_ASPECT = 3
/** The target width aims at a 16:10 drawing of the same area. */
const TARGET_ASPECT = 1.6

/** Items grouped into layers: runs of items whose vertical extents overlap, top first. */
export function layers(items: SizedItem[]): SizedItem[][] {
  const sorted = [...items].sort((a, b) => a.y - b.y || a.x - b.x)
  const out: SizedItem[][] = []
  let bottom = -Infinity
  for (const item of sorted) {
    const last = out.at(-1)
    if (last && item.y < bottom) last.push(item)
    else out.push([item])
    bottom = last && item.y < bottom ? Math.max(bottom, item.y + item.height) : item.y + item.height
  }
  return out.map((layer) => layer.sort((a, b) => a.x - b.x))
}

/**
 * New top-left corners (relative to the drawing's corner) with wide layers wrapped, and the
 * drawing's new size. Unchanged when the drawing is no wider than MAX_ASPECT × its height.
 */
export function wrapWideLayers(items: SizedItem[], gap = NODE_GAP): { positions: Record<string, Placed>; width: number; height: number } {
  const width = Math.max(0, ...items.map((i) => i.x + i.width))
  const height = Math.max(0, ...items.map((i) => i.y + i.height))
  const positions: Record<string, Placed> = Object.fromEntries(items.map((i) => [i.id, { x: i.x, y: i.y }]))
  if (!items.length || width <= MAX_ASPECT * height) return { positions, width, height }
  const area = items.reduce((a, i) => a + (i.width + gap) * (i.height + gap), 0)
  const target = Math.max(...items.map((i) => i.width), Math.sqrt(area * TARGET_ASPECT))
  let shift = 0 // how far this layer moves down: the rows added above it
  const rows: SizedItem[][] = [] // every row, wrapped or not, with its new y
  for (const layer of layers(items)) {
    const top = Math.min(...layer.map((i) => i.y))
    const layerHeight = Math.max(...layer.map((i) => i.y + i.height)) - top
    const span = layer.at(-1)!.x + layer.at(-1)!.width - layer[0]!.x
    if (span <= target) {
      rows.push(layer.map((i) => ({ ...i, y: i.y + shift })))
      continue
    }
    // Rows of the layer's items in order, each as wide as fits the target.
    let row: SizedItem[] = []
    let offset = 0
    let x = 0
    let rowHeight = 0
    for (const i of layer) {
      if (row.length && x + i.width > target) {
        rows.push(row)
        row = []
        offset += rowHeight + gap
        x = 0
        rowHeight = 0
      }
      row.push({ ...i, x, y: i.y + shift + offset })
      x += i.width + gap
      rowHeight = Math.max(rowHeight, i.y - top + i.height)
    }
    rows.push(row)
    shift += offset + rowHeight - layerHeight
  }
  // Every row centred on the new width (a layer that fits keeps its own spacing).
  const span = (row: SizedItem[]) => row.at(-1)!.x + row.at(-1)!.width - row[0]!.x
  const newWidth = Math.max(...rows.map(span))
  for (const row of rows) {
    const dx = (newWidth - span(row)) / 2 - row[0]!.x
    for (const i of row) positions[i.id] = { x: i.x + dx, y: i.y }
  }
  return { positions, width: newWidth, height: Math.max(...rows.flat().map((i) => i.y + i.height)) }
}
