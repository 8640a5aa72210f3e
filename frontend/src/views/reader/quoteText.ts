// The text of a reader selection, as the backend compares quotes
// (backend/marginalia/answer/quotes.py `normalize`): the PDF text layer's line breaks kept
// as whitespace, then the same normalisation, so a selection that wraps lines is sent as
// "suggests that", never glued into "suggeststhat".

/** The text of `range`. pdf.js ends each line of its text layer with a `<br>` between the
 * lines' spans; `Range.toString()` skips elements, gluing the last word of one line to the
 * first of the next. Here each `<br>` inside the range counts as a line break. */
export function rangeText(range: Range): string {
  const root = range.commonAncestorContainer
  if (root.nodeType === Node.TEXT_NODE) return range.toString()
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT)
  let out = ''
  for (let node: Node | null = walker.currentNode; node; node = walker.nextNode()) {
    if (!range.intersectsNode(node)) continue
    if (node.nodeType === Node.TEXT_NODE) {
      const text = node.nodeValue ?? ''
      const start = node === range.startContainer ? range.startOffset : 0
      const end = node === range.endContainer ? range.endOffset : text.length
      out += text.slice(start, end)
    } else if (node.nodeName === 'BR') {
      out += '\n'
    }
  }
  return out
}

// The backend's _CHAR_MAP: typographic quotes, primes and dashes to ASCII; soft hyphens and
// zero-width characters dropped.
const CHAR_MAP: Record<string, string> = {
  '\u2018': "'", '\u2019': "'", '\u201a': "'", '\u201b': "'", '\u2032': "'", '\u00b4': "'", '`': "'",
  '\u201c': '"', '\u201d': '"', '\u201e': '"', '\u201f': '"', '\u2033': '"', '\u00ab': '"', '\u00bb': '"',
  '\u2010': '-', '\u2011': '-', '\u2012': '-', '\u2013': '-', '\u2014': '-', '\u2015': '-', '\u2212': '-',
  '\u00ad': '', '\u200b': '', '\ufeff': '',
}
// The backend's _LINE_BREAK_HYPHEN: a hyphen at a line break between two letters.
const LINE_BREAK_HYPHEN = /(?<=\p{L})-[ \t]*\r?\n\s*(?=\p{L})/gu

/** The backend's quote normalisation: NFKC (ligatures, no-break spaces), the character
 * map, line-break hyphenation undone ("ingre-\ndient" → "ingredient"), whitespace
 * collapsed; case kept. */
export function normalizeQuote(text: string): string {
  const mapped = Array.from(text.normalize('NFKC'), (c) => CHAR_MAP[c] ?? c).join('')
  return mapped.replace(LINE_BREAK_HYPHEN, '').split(/\s+/).filter(Boolean).join(' ')
}
