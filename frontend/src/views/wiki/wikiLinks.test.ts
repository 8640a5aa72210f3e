import { describe, expect, it } from 'vitest'
import { backlinkPages, linkWikiSlugs, slugFromHref } from './wikiLinks'

describe('wiki links', () => {
  it('turns [[slug]] and [[slug|label]] into fragment links and back', () => {
    const md = linkWikiSlugs('See [[citation-graph]] and [[scibert|SciBERT]].')
    expect(md).toBe('See [citation-graph](#wiki/citation-graph) and [SciBERT](#wiki/scibert).')
    expect(slugFromHref('#wiki/citation-graph')).toBe('citation-graph')
    expect(slugFromHref('/w/x/read/y')).toBeNull()
  })
  it('leaves other brackets alone', () => {
    expect(linkWikiSlugs('a [1] b [x](y)')).toBe('a [1] b [x](y)')
  })
  it('names backlinks by their pages\' titles, not their slugs', () => {
    const pages = backlinkPages({
      backlinks: ['citation-graph', 'scibert'],
      backlink_pages: [{ slug: 'citation-graph', title: 'Citation graph' }],
    })
    expect(pages).toEqual([
      { slug: 'citation-graph', title: 'Citation graph' },
      { slug: 'scibert', title: 'scibert' },
    ])
    expect(backlinkPages({ backlinks: ['deep-venous-thrombosis'] })[0]?.title).toBe(
      'deep venous thrombosis',
    )
  })
})
