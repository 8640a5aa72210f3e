// Markdown structure of a stored page text, as character ranges of that same text, so the
// reader can show headings, list items, quotes and emphasis without `#`, `-` or `**`
// while every character stays in the DOM: a selection's text and every highlight's
// offsets are those of the stored text (the backend anchors quotes in it verbatim).

export type BlockKind = 'p' | 'h1' | 'h2' | 'h3' | 'h4' | 'li' | 'oli' | 'quote'

export interface Block {
  start: number
  /** Exclusive; the line break after the block is not part of it. */
  end: number
  kind: BlockKind
}

export type SpanKind = 'syntax' | 'strong' | 'em' | 'code' | 'link'

export interface Span {
  start: number
  end: number
  /** `syntax` is markup to hide; the others style what they cover. */
  kind: SpanKind
}

const HEADING = /^(#{1,6})[ \t]+/
const BULLET = /^[ \t]*[-*+][ \t]+/
const ORDERED = /^[ \t]*\d{1,3}[.)][ \t]+/
const QUOTE = /^>[ \t]?/

interface Line {
  start: number
  end: number
  text: string
}

function lines(text: string): Line[] {
  const out: Line[] = []
  let start = 0
  for (const part of text.split('\n')) {
    out.push({ start, end: start + part.length, text: part })
    start += part.length + 1
  }
  return out
}

/** The blocks of `text` (paragraphs, headings, list items, quotes) and the inline spans
 * (markup to hide, emphasis, code, link text). */
export function markdownStructure(text: string): { blocks: Block[]; spans: Span[] } {
  const blocks: Block[] = []
  const spans: Span[] = []
  let open: Block | null = null
  const close = () => {
    if (open) blocks.push(open)
    open = null
  }
  for (const line of lines(text)) {
    if (!line.text.trim()) {
      close()
      continue
    }
    const heading = HEADING.exec(line.text)
    const bullet = BULLET.exec(line.text)
    const ordered = ORDERED.exec(line.text)
    const quote = QUOTE.exec(line.text)
    if (heading) {
      close()
      const level = Math.min(heading[1]!.length, 4)
      spans.push({ start: line.start, end: line.start + heading[0].length, kind: 'syntax' })
      blocks.push({ start: line.start, end: line.end, kind: `h${level}` as BlockKind })
      continue
    }
    if (bullet || ordered) {
      close()
      if (bullet) spans.push({ start: line.start, end: line.start + bullet[0].length, kind: 'syntax' })
      open = { start: line.start, end: line.end, kind: bullet ? 'li' : 'oli' }
      continue
    }
    if (quote) {
      spans.push({ start: line.start, end: line.start + quote[0].length, kind: 'syntax' })
      if (open?.kind !== 'quote') {
        close()
        open = { start: line.start, end: line.end, kind: 'quote' }
      } else open.end = line.end
      continue
    }
    if (open) open.end = line.end
    else open = { start: line.start, end: line.end, kind: 'p' }
  }
  close()
  for (const block of blocks) spans.push(...inlineSpans(text, block))
  spans.sort((a, b) => a.start - b.start || b.end - a.end)
  return { blocks, spans }
}

const INLINE: { re: RegExp; kind: SpanKind; open: number; close: (m: RegExpExecArray) => number }[] = [
  { re: /`([^`\n]+)`/g, kind: 'code', open: 1, close: () => 1 },
  { re: /\*\*(?=\S)([^*\n]+?)\*\*/g, kind: 'strong', open: 2, close: () => 2 },
  { re: /(?<![*\w])\*(?=[^\s*])([^*\n]+?)\*(?![*\w])/g, kind: 'em', open: 1, close: () => 1 },
  { re: /(?<![\w_])_(?=\S)([^_\n]+?)_(?![\w_])/g, kind: 'em', open: 1, close: () => 1 },
  { re: /\[([^\]\n]+)\]\(([^)\s]+)\)/g, kind: 'link', open: 1, close: (m) => m[2]!.length + 3 },
]

function inlineSpans(text: string, block: Block): Span[] {
  const body = text.slice(block.start, block.end)
  const out: Span[] = []
  const taken: [number, number][] = []
  for (const { re, kind, open, close } of INLINE) {
    re.lastIndex = 0
    for (let m = re.exec(body); m; m = re.exec(body)) {
      const [a, b] = [block.start + m.index, block.start + m.index + m[0].length]
      if (taken.some(([x, y]) => a < y && b > x)) continue // inside code or another span
      taken.push([a, b])
      const tail = close(m)
      out.push({ start: a, end: a + open, kind: 'syntax' })
      out.push({ start: a + open, end: b - tail, kind })
      out.push({ start: b - tail, end: b, kind: 'syntax' })
    }
  }
  return out
}
