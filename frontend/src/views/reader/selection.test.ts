import { beforeAll, describe, expect, it } from 'vitest'
import { describeSelection, selectedLayers } from './notes'

// jsdom has no layout: a selection's box (where the toolbar goes) is all zeros here.
beforeAll(() => {
  Range.prototype.getBoundingClientRect ??= () => new DOMRect()
})

function pages(count: number): HTMLElement {
  const root = document.createElement('div')
  for (let n = 1; n <= count; n++) {
    root.insertAdjacentHTML(
      'beforeend',
      `<div data-page-box="${n}"><div class="marks">MARK ${n}</div><div class="layer"><span>Page ${n} first line.</span><span>Page ${n} last line.</span></div></div>`,
    )
  }
  document.body.replaceChildren(root)
  return root
}

function select(root: HTMLElement, fromPage: number, toPage: number): Range {
  const from = root.querySelector(`[data-page-box="${fromPage}"] .layer span:last-child`)!.firstChild!
  const to = root.querySelector(`[data-page-box="${toPage}"] .layer span:first-child`)!.firstChild!
  const range = document.createRange()
  range.setStart(from, 'Page 1 '.length)
  range.setEnd(to, 'Page 2 first'.length)
  return range
}

describe('a selection across a page break', () => {
  it('covers both pages, and the quote is only their text (not the marks between)', () => {
    const root = pages(3)
    const range = select(root, 1, 2)
    const layers = selectedLayers(range, '[data-page-box]', 'pageBox', '.layer')
    expect(layers?.page).toBe(1)
    expect(layers?.containers).toHaveLength(2)
    const selection = describeSelection(layers!.page, range, layers!.containers)
    expect(selection?.pageEnd).toBe(2)
    expect(selection?.quote).toBe('last line. Page 2 first')
    expect(selection?.quote).not.toContain('MARK')
    expect(selection?.prefix).toContain('Page 1 first line.')
    expect(selection?.suffix).toMatch(/^ line\./)
  })

  it('includes a whole page in between, and refuses more pages than the backend takes', () => {
    const root = pages(5)
    const three = selectedLayers(select(root, 1, 3), '[data-page-box]', 'pageBox', '.layer')
    expect(three?.containers).toHaveLength(3)
    const quote = describeSelection(1, select(root, 1, 3), three!.containers)?.quote
    expect(quote).toContain('Page 2 first line.Page 2 last line.')
    expect(selectedLayers(select(root, 1, 4), '[data-page-box]', 'pageBox', '.layer')).toBeNull()
  })

  it('stays on one page when it does not cross', () => {
    const root = pages(2)
    const span = root.querySelector('[data-page-box="2"] .layer span')!.firstChild!
    const range = document.createRange()
    range.setStart(span, 0)
    range.setEnd(span, 6)
    const layers = selectedLayers(range, '[data-page-box]', 'pageBox', '.layer')
    expect(layers).toEqual({ page: 2, containers: [root.querySelector('[data-page-box="2"] .layer')] })
    expect(describeSelection(2, range, layers!.containers)?.pageEnd).toBe(2)
  })
})
