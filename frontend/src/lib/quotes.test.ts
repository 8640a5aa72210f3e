import { describe, expect, it } from 'vitest'
import { findQuote, normalize } from './quotes'

describe('findQuote', () => {
  it('finds a quote across line breaks and hyphenation, returning original offsets', () => {
    const passage = 'Intro. The resulting literature graph con-\nsists of more than 280M  nodes,\nrepresenting papers.'
    const quote = 'The resulting literature graph consists of more than 280M nodes'
    const span = findQuote(passage, quote)
    expect(span).not.toBeNull()
    const [a, b] = span!
    expect(passage.slice(a, b)).toBe('The resulting literature graph con-\nsists of more than 280M  nodes')
    expect(normalize(passage.slice(a, b))).toBe(quote)
  })

  it('unifies typographic quotes and ligatures like the backend', () => {
    const passage = 'He said “ﬁne-tuning” works.'
    const span = findQuote(passage, 'said "fine-tuning" works')
    expect(span && passage.slice(...span)).toBe('said “ﬁne-tuning” works')
  })

  it('is null when the quote is not there', () => {
    expect(findQuote('some passage text', 'another text entirely')).toBeNull()
    expect(findQuote('some passage text', '')).toBeNull()
  })

  it('keeps a hyphen that is not at a line break', () => {
    expect(normalize('state-of-the-art\nmodels')).toBe('state-of-the-art models')
  })
})
