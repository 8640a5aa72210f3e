import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, render, screen } from '@testing-library/react'
import { TextView, type CharMark } from './TextView'
import { markdownStructure } from './markdownBlocks'
import { describeSelection, selectedLayers } from './notes'

afterEach(cleanup)
// jsdom lays nothing out; the selection's box is not what these tests check.
Range.prototype.getBoundingClientRect ??= () => new DOMRect()

const ABSTRACT = [
  '# SPECTER: Document-level Representation Learning',
  '',
  '## Abstract',
  '',
  'Representation learning is a **critical ingredient** for NLP systems, and *citations* help.',
  '',
  '- pretrained on `citation` triplets',
  '- evaluated on [SciDocs](https://example.org/scidocs)',
  '',
  '> A quoted line.',
].join('\n')

function show(marks: CharMark[] = []) {
  render(<TextView pages={[{ page_number: 1, text: ABSTRACT }]} marks={marks} focus={null} selected={null} onSelect={() => {}} />)
  return screen.getByTestId('text-reader')
}

describe('markdown of text sources', () => {
  it('finds headings, list items, quotes and inline markup as ranges of the stored text', () => {
    const { blocks, spans } = markdownStructure(ABSTRACT)
    expect(blocks.map((b) => b.kind)).toEqual(['h1', 'h2', 'p', 'li', 'li', 'quote'])
    const syntax = spans.filter((s) => s.kind === 'syntax').map((s) => ABSTRACT.slice(s.start, s.end))
    expect(syntax).toEqual(['# ', '## ', '**', '**', '*', '*', '- ', '`', '`', '- ', '[', '](https://example.org/scidocs)', '> '])
    const strong = spans.find((s) => s.kind === 'strong')!
    expect(ABSTRACT.slice(strong.start, strong.end)).toBe('critical ingredient')
  })

  it('renders headings and emphasis, hides the markup, keeps every character in the DOM', () => {
    const root = show()
    const h = root.querySelector('h3')!
    expect(h.textContent).toBe('# SPECTER: Document-level Representation Learning')
    expect(h.querySelector('.md-syntax')!.textContent).toBe('# ')
    expect(root.querySelector('h4')!.textContent).toContain('Abstract')
    expect(root.querySelector('[data-block="p"] .font-semibold')!.textContent).toBe('critical ingredient')
    expect(root.querySelectorAll('[data-block="li"]')).toHaveLength(2)
    expect(root.querySelector('blockquote')!.textContent).toBe('> A quoted line.')
    // what a reader sees has no raw markup
    const visible = [...root.querySelectorAll('article *')]
      .flatMap((el) => [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE && !n.parentElement!.closest('.md-syntax')))
      .map((n) => n.textContent)
      .join('')
    expect(visible).not.toMatch(/(^|\s)#{1,6}\s|\*\*|`|\]\(/)
    // the section's text is the stored text: selections and offsets stay verbatim
    expect(root.querySelector('section')!.textContent).toBe(ABSTRACT)
  })

  it('keeps highlight marks on the stored offsets across hidden markup', () => {
    const start = ABSTRACT.indexOf('a **critical')
    const end = ABSTRACT.indexOf(' for NLP')
    const root = show([{ id: 'h1', kind: 'highlight', color: 'yellow', label: 'Highlight', page: 1, start, pageEnd: 1, end }])
    const marked = [...root.querySelectorAll('[data-mark="h1"]')].map((m) => m.textContent).join('')
    expect(marked).toBe(ABSTRACT.slice(start, end))
    expect(marked).toBe('a **critical ingredient**')
  })

  it('a selection across a heading and a paragraph quotes the stored text', () => {
    const root = show()
    const section = root.querySelector('section')!
    const range = document.createRange()
    const heading = root.querySelector('h4')!
    const para = root.querySelector('[data-block="p"]')!
    range.setStart(heading.lastChild!.firstChild ?? heading.lastChild!, 0)
    range.setEnd(para.firstChild!, 'Representation learning'.length)
    const layers = selectedLayers(range, 'section[data-page-number]', 'pageNumber', null)
    expect(layers?.containers).toEqual([section])
    const sel = describeSelection(1, range, layers!.containers)
    expect(sel?.quote).toBe('Abstract Representation learning')
    const flat = ABSTRACT.replace(/\s+/g, ' ')
    expect(flat).toContain(sel!.quote)
  })
})
