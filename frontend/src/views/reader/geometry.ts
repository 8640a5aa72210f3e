// Quote rectangles from the backend (normalised 0–1, origin top-left, UNROTATED page
// coordinates) and how they are drawn on a page shown with its /Rotate, in percentages
// so the overlay stays aligned at every zoom and after a resize.

export interface QuoteRect {
  page: number
  x0: number
  y0: number
  x1: number
  y1: number
}

/** `rects=3:0.1,0.2,0.5,0.22;3:…` — the quote to show, carried in the reader's URL. */
export function encodeRects(rects: QuoteRect[]): string {
  const f = (v: number) => String(Math.round(v * 10000) / 10000)
  return rects.map((r) => `${r.page}:${f(r.x0)},${f(r.y0)},${f(r.x1)},${f(r.y1)}`).join(';')
}

export function decodeRects(text: string | null | undefined): QuoteRect[] {
  if (!text) return []
  const out: QuoteRect[] = []
  for (const part of text.split(';')) {
    const m = /^(\d+):([\d.]+),([\d.]+),([\d.]+),([\d.]+)$/.exec(part.trim())
    if (!m) continue
    const [x0, y0, x1, y1] = m.slice(2).map(Number) as [number, number, number, number]
    if ([x0, y0, x1, y1].every((v) => v >= 0 && v <= 1) && x1 > x0 && y1 > y0) out.push({ page: Number(m[1]), x0, y0, x1, y1 })
  }
  return out
}

/** An unrotated point as shown on a page rotated `rotation` degrees clockwise. */
function toDisplay(u: number, v: number, rotation: number): [number, number] {
  switch (((rotation % 360) + 360) % 360) {
    case 90:
      return [1 - v, u]
    case 180:
      return [1 - u, 1 - v]
    case 270:
      return [v, 1 - u]
    default:
      return [u, v]
  }
}

/** CSS box of a rectangle on the shown page, in percent of its width and height. */
export function displayBox(rect: QuoteRect, rotation: number): { left: number; top: number; width: number; height: number } {
  const [ax, ay] = toDisplay(rect.x0, rect.y0, rotation)
  const [bx, by] = toDisplay(rect.x1, rect.y1, rotation)
  const left = Math.min(ax, bx)
  const top = Math.min(ay, by)
  return { left: left * 100, top: top * 100, width: Math.abs(bx - ax) * 100, height: Math.abs(by - ay) * 100 }
}

export function readerHref(workspaceId: string, sourceId: string, opts: { page?: number | null; rects?: QuoteRect[]; n?: number; highlight?: string }): string {
  const params = new URLSearchParams()
  const page = opts.page ?? opts.rects?.[0]?.page
  if (page) params.set('page', String(page))
  if (opts.rects?.length) params.set('rects', encodeRects(opts.rects))
  if (opts.n) params.set('n', String(opts.n))
  if (opts.highlight) params.set('highlight', opts.highlight)
  const query = params.toString()
  return `/w/${workspaceId}/read/${sourceId}${query ? `?${query}` : ''}`
}

/** Reading position per source, remembered in this browser. */
export function rememberedPage(sourceId: string): number | null {
  try {
    const value = Number(localStorage.getItem(`marginalia-read:${sourceId}`))
    return Number.isInteger(value) && value > 0 ? value : null
  } catch {
    return null
  }
}

export function rememberPage(sourceId: string, page: number): void {
  try {
    localStorage.setItem(`marginalia-read:${sourceId}`, String(page))
  } catch {
    /* storage full or disabled: nothing to remember */
  }
}

/** The reader at a cited chunk: the backend locates `quote` in it (the whole chunk without
 * one) and the reader marks it and scrolls to it (wiki, evidence and canvas citations). */
export function chunkReaderHref(workspaceId: string, sourceId: string, chunk: { chunk_index: number; page_start?: number | null } | undefined, quote?: string | null): string {
  if (!chunk) return `/w/${workspaceId}/read/${sourceId}`
  const params = new URLSearchParams()
  if (chunk.page_start) params.set('page', String(chunk.page_start))
  params.set('chunk', String(chunk.chunk_index))
  if (quote) params.set('quote', quote.slice(0, 2000))
  return `/w/${workspaceId}/read/${sourceId}?${params.toString()}`
}
