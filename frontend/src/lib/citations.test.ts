import { describe, expect, it } from 'vitest'
import { citedNumbers, citationFromHref, linkCitations } from './citations'

describe('linkCitations', () => {
  it('links each [n], including runs like [1][2]', () => {
    expect(linkCitations('A claim [1][2]. Another [3].')).toBe('A claim [1](#cite-1)[2](#cite-2). Another [3](#cite-3).')
  })
  it('leaves existing links, images and definitions alone', () => {
    expect(linkCitations('see [1](http://x) and ![2](img.png)\n[3]: http://y')).toBe('see [1](http://x) and ![2](img.png)\n[3]: http://y')
  })
  it('reads numbers back', () => {
    expect(citedNumbers('x [2] y [1] z [2]')).toEqual([2, 1])
    expect(citationFromHref('#cite-12')).toBe(12)
    expect(citationFromHref('https://example.org')).toBeNull()
  })
})
