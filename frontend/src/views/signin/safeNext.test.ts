import { describe, expect, it } from 'vitest'
import { safeNext } from './SignInPage'

describe('safeNext', () => {
  it('keeps a path on this site', () => {
    expect(safeNext('/w/abc/chat?x=1')).toBe('/w/abc/chat?x=1')
  })
  it('refuses other sites, protocol-relative URLs and the sign-in page itself', () => {
    for (const next of ['https://evil.example/', '//evil.example/x', 'javascript:alert(1)', '/sign-in?next=/', null]) {
      expect(safeNext(next)).toBe('/')
    }
  })
})
