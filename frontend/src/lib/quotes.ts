// Find a claim's quote inside its passage, with the backend's notion of "verbatim"
// (answer/quotes.py normalize): NFKC, typographic quotes and dashes unified, line-break
// hyphenation undone, whitespace collapsed, case preserved. Returns offsets into the
// ORIGINAL passage text so the highlight covers exactly what the reader sees.

const CHAR_MAP: Record<string, string> = {
  '\u2018': "'", '\u2019': "'", '\u201a': "'", '\u201b': "'", '\u2032': "'", '\u00b4': "'", '`': "'",
  '\u201c': '"', '\u201d': '"', '\u201e': '"', '\u201f': '"', '\u2033': '"', '\u00ab': '"', '\u00bb': '"',
  '\u2010': '-', '\u2011': '-', '\u2012': '-', '\u2013': '-', '\u2014': '-', '\u2015': '-', '\u2212': '-',
  '\u00ad': '', '\u200b': '', '\ufeff': '',
}

const LETTER = /\p{L}/u
const SPACE = /\s/u

interface Mapped {
  text: string
  /** For each character of `text`, the index in the original of the character it came from. */
  origin: number[]
}

/** The comparison form of `text` with, per character, where it came from. */
export function normalizeWithMap(text: string): Mapped {
  const chars: string[] = []
  const origin: number[] = []
  for (let i = 0; i < text.length; i++) {
    const code = text.codePointAt(i) ?? 0
    const raw = String.fromCodePoint(code)
    const width = raw.length
    const mapped = raw in CHAR_MAP ? (CHAR_MAP[raw] as string) : raw.normalize('NFKC')
    for (const c of mapped) {
      const translated = c in CHAR_MAP ? (CHAR_MAP[c] as string) : c
      for (const t of translated) {
        chars.push(t)
        origin.push(i)
      }
    }
    i += width - 1
  }
  // Line-break hyphenation: letter, "-", spaces/tabs, newline, whitespace, letter.
  const keep = new Array<boolean>(chars.length).fill(true)
  for (let i = 1; i < chars.length; i++) {
    if (chars[i] !== '-' || !LETTER.test(chars[i - 1] ?? '')) continue
    let j = i + 1
    while (chars[j] === ' ' || chars[j] === '\t') j++
    if (chars[j] === '\r') j++
    if (chars[j] !== '\n') continue
    j++
    while (j < chars.length && SPACE.test(chars[j] ?? '')) j++
    if (j < chars.length && LETTER.test(chars[j] ?? '')) for (let k = i; k < j; k++) keep[k] = false
  }
  let out = ''
  const outOrigin: number[] = []
  let pendingSpace = false
  for (let i = 0; i < chars.length; i++) {
    if (!keep[i]) continue
    const c = chars[i] as string
    if (SPACE.test(c)) {
      pendingSpace = out.length > 0
      continue
    }
    if (pendingSpace) {
      out += ' '
      outOrigin.push(origin[i] as number)
      pendingSpace = false
    }
    out += c
    outOrigin.push(origin[i] as number)
  }
  return { text: out, origin: outOrigin }
}

export function normalize(text: string): string {
  return normalizeWithMap(text).text
}

/** [start, end) of `quote` in `passage` (original offsets), or null when it is not there. */
export function findQuote(passage: string, quote: string | null | undefined): [number, number] | null {
  if (!quote) return null
  const q = normalize(quote)
  if (!q) return null
  const p = normalizeWithMap(passage)
  let at = p.text.indexOf(q)
  if (at < 0) at = p.text.toLowerCase().indexOf(q.toLowerCase())
  if (at < 0) return null
  const start = p.origin[at] as number
  const lastOrigin = p.origin[at + q.length - 1] as number
  // Extend over the whole last original character (a surrogate pair, a ligature).
  const last = String.fromCodePoint(passage.codePointAt(lastOrigin) ?? 0)
  return [start, lastOrigin + last.length]
}
