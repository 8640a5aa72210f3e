import { describe, expect, it } from 'vitest'
import { citedCount, citedLabel } from './SourcesTable'

describe('the Cited column', () => {
  it('counts the workspace citations when no metadata count is known', () => {
    expect(citedLabel({ citation_count: null, cited_by_here: 2 })).toBe('2 here')
    expect(citedLabel({ citation_count: null, cited_by_here: 0 })).toBe('0 here')
    expect(citedCount({ citation_count: null, cited_by_here: 2 })).toBe(2)
  })
  it('shows the metadata count and the workspace count side by side', () => {
    expect(citedLabel({ citation_count: 1520, cited_by_here: 1 })).toBe('1,520 · 1 here')
    expect(citedLabel({ citation_count: 7, cited_by_here: 0 })).toBe('7')
    expect(citedCount({ citation_count: 7, cited_by_here: 9 })).toBe(9)
  })
})
