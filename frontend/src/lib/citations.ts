// `[n]` marks in answer text become citation links that the Markdown renderer turns into
// buttons (`[1][2]` is two). A mark already a link (`[1](…)`) or a definition (`[1]:`) is left alone.
const MARK = /(?<![!\\])\[(\d{1,3})\](?![(:])/g

export const CITE_PREFIX = '#cite-'

export function linkCitations(markdown: string): string {
  return markdown.replace(MARK, (_m, n: string) => `[${n}](${CITE_PREFIX}${n})`)
}

/** The citation numbers in `text`, in order of first appearance. */
export function citedNumbers(text: string): number[] {
  const seen: number[] = []
  for (const m of text.matchAll(MARK)) {
    const n = Number(m[1])
    if (!seen.includes(n)) seen.push(n)
  }
  return seen
}

export function citationFromHref(href: string | undefined): number | null {
  if (!href?.startsWith(CITE_PREFIX)) return null
  const n = Number(href.slice(CITE_PREFIX.length))
  return Number.isInteger(n) && n > 0 ? n : null
}
