import { beforeAll, describe, expect, it } from 'vitest'
import { describeSelection } from './notes'
import { normalize } from '../../lib/quotes'
import { rangeText } from './quoteText'

beforeAll(() => {
  Range.prototype.getBoundingClientRect ??= () => new DOMRect()
})

// A page of pdf.js's text layer: one span per text item, a <br> after each line's last.
function layer(html: string): HTMLElement {
  document.body.innerHTML = `<div data-page-box="3"><div class="layer">${html}</div></div>`
  return document.querySelector('.layer')!
}

function selectBetween(root: HTMLElement, from: [number, number], to: [number, number]): Range {
  const spans = root.querySelectorAll('span')
  const range = document.createRange()
  range.setStart(spans[from[0]]!.firstChild!, from[1])
  range.setEnd(spans[to[0]]!.firstChild!, to[1])
  return range
}

describe('a selection that wraps lines in the PDF text layer', () => {
  it('keeps the line break as a space, not glued (issue 34)', () => {
    const root = layer('<span>The evidence suggests</span><br role="presentation"><span>that attention is</span><br role="presentation"><span>not explanation.</span>')
    const range = selectBetween(root, [0, 4], [1, 'that attention'.length])
    expect(range.toString()).toBe('evidence suggeststhat attention') // what was sent before
    expect(rangeText(range)).toBe('evidence suggests\nthat attention')
    const selection = describeSelection(3, range, [root])
    expect(selection?.quote).toBe('evidence suggests that attention')
    expect(selection?.prefix).toBe('The ')
    expect(selection?.suffix).toBe(' is\nnot explanation.')
  })

  it('joins a word hyphenated at a line break, as the backend does', () => {
    const root = layer('<span>a new ingre-</span><br role="presentation"><span>dient was added</span>')
    const selection = describeSelection(3, selectBetween(root, [0, 2], [1, 'dient was'.length]), [root])
    expect(selection?.quote).toBe('new ingredient was')
  })

  it('normalises like the backend: ligatures, typographic quotes and dashes, spaces', () => {
    expect(normalize('the \ufb01rst \u201cbest\u201d\u00a0result \u2014 so-\n  called  ')).toBe('the first "best" result - socalled')
    expect(normalize('state-of-the-art')).toBe('state-of-the-art')
    expect(normalize('page 12-\n13')).toBe('page 12- 13') // digits: not a hyphenated word
  })
})
