// The text of a reader selection, as the backend compares quotes
// (backend/marginalia/answer/quotes.py `normalize`): the PDF text layer's line breaks kept
// as whitespace, then the same normalisation (lib/quotes `normalize`), so a selection that
// wraps lines is sent as "suggests that", never glued into "suggeststhat".

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
