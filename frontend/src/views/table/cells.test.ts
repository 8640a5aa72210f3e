import { describe, expect, it } from 'vitest'
import { cellHref, clip, confidenceLabel, pageLabel, questionsFrom, sameAsQuote } from './cells'
import type { Cell } from './api'

const quote = { text: 'we interviewed 100 outpatients', chunk_index: 4, page: 3, page_end: 3 }
const filled: Cell = { column_id: 'c', state: 'filled', answer: '100 outpatients', not_reported: false, quotes: [quote] }

describe('cellHref', () => {
  it('opens the reader at the first quote: its page, chunk and text', () => {
    const href = cellHref('w1', 's1', filled)
    expect(href).not.toBeNull()
    const url = new URL(href as string, 'http://x')
    expect(url.pathname).toBe('/w/w1/read/s1')
    expect(url.searchParams.get('page')).toBe('3')
    expect(url.searchParams.get('chunk')).toBe('4')
    expect(url.searchParams.get('quote')).toBe('we interviewed 100 outpatients')
  })
  it('goes nowhere for a pending or not-reported cell', () => {
    expect(cellHref('w1', 's1', { ...filled, state: 'pending' })).toBeNull()
    expect(cellHref('w1', 's1', { ...filled, not_reported: true, quotes: [] })).toBeNull()
  })
})

describe('labels', () => {
  it('says the confidence in words and figures', () => {
    expect(confidenceLabel(0.81)).toBe('high confidence (0.81)')
    expect(confidenceLabel(0.6)).toBe('medium confidence (0.60)')
    expect(confidenceLabel(0.2)).toBe('low confidence (0.20)')
    expect(confidenceLabel(null)).toBeNull()
  })
  it('names one page or a range', () => {
    expect(pageLabel(quote)).toBe('p. 3')
    expect(pageLabel({ ...quote, page_end: 4 })).toBe('pp. 3–4')
    expect(pageLabel({ ...quote, page: null })).toBe('')
  })
  it('clips long quotes at a word with an ellipsis, whitespace collapsed', () => {
    expect(clip('a\n  b')).toBe('a b')
    const long = 'word '.repeat(100)
    expect(clip(long, 20).endsWith('…')).toBe(true)
    expect(clip(long, 20).length).toBeLessThanOrEqual(20)
  })
  it('keeps only non-empty questions', () => {
    expect(questionsFrom(['  How many?  ', '', ' '])).toEqual(['How many?'])
  })
})

describe('sameAsQuote', () => {
  it('is true for a sentence answer (its quote, hyphenation and line breaks aside)', () => {
    const q = { text: 'We propose SPECTER, a new method to generate scien-\ntific embeddings.', chunk_index: 0, page: 1 }
    expect(sameAsQuote({ ...filled, answer: 'We propose SPECTER, a new method to generate scientific embeddings.', quotes: [q] })).toBe(true)
    expect(sameAsQuote({ ...filled, answer: 'We propose SPECTER, a new …', quotes: [q] })).toBe(true)
  })
  it('is false for a value cut from its quote', () => {
    expect(sameAsQuote(filled)).toBe(false)
  })
})
