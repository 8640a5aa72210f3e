import { describe, expect, it } from 'vitest'
import { ATTRIBUTE_COLORS, NONE_COLOR, NONE_LABEL, OTHER_COLOR, OTHER_LABEL, attributeScale, formatAttr, parseAttr } from './attribute'

const T = '11111111-1111-1111-1111-111111111111'
const C = '22222222-2222-2222-2222-222222222222'

describe('attributeScale', () => {
  it('colours by value, most frequent first, grey for no value or no row', () => {
    const values = { a: '120 patients', b: 'RCT', c: '120  Patients ', d: null, e: '' }
    const s = attributeScale(values, ['a', 'b', 'c', 'd', 'e', 'x'])
    // "120 patients" twice (case and spacing aside) is the most frequent: the first colour.
    expect(s.color('a')).toBe(ATTRIBUTE_COLORS[0])
    expect(s.color('c')).toBe(ATTRIBUTE_COLORS[0])
    expect(s.color('b')).toBe(ATTRIBUTE_COLORS[1])
    for (const id of ['d', 'e', 'x']) {
      expect(s.color(id)).toBe(NONE_COLOR)
      expect(s.value(id)).toBeNull()
    }
    expect(s.value('c')).toBe('120 patients')
    expect(s.legend).toEqual([
      { label: '120 patients', color: ATTRIBUTE_COLORS[0], count: 2 },
      { label: 'RCT', color: ATTRIBUTE_COLORS[1], count: 1 },
      { label: NONE_LABEL, color: NONE_COLOR, count: 3 },
    ])
  })

  it('gives every value its own colour up to the palette, then "other"', () => {
    const ids = Array.from({ length: ATTRIBUTE_COLORS.length }, (_, i) => `s${i}`)
    const full = attributeScale(Object.fromEntries(ids.map((id, i) => [id, `v${i}`])), ids)
    expect(new Set(ids.map((id) => full.color(id))).size).toBe(ATTRIBUTE_COLORS.length)
    expect(full.legend.map((e) => e.label)).not.toContain(OTHER_LABEL)

    const more = [...ids, 'extra1', 'extra2']
    const values = Object.fromEntries(more.map((id, i) => [id, `v${i}`]))
    values.s0 = 'common'
    values.s1 = 'common'
    const over = attributeScale(values, more)
    expect(over.color('s0')).toBe(ATTRIBUTE_COLORS[0])
    const colours = more.map((id) => over.color(id))
    // 9 distinct values over 10 sources: "common" and 6 more coloured, the last 2 "other".
    expect(colours.filter((c) => c === OTHER_COLOR)).toHaveLength(2)
    expect(new Set(colours.filter((c) => c !== OTHER_COLOR)).size).toBe(ATTRIBUTE_COLORS.length - 1)
    expect(over.legend).toHaveLength(ATTRIBUTE_COLORS.length)
    expect(over.legend.at(-1)).toEqual({ label: OTHER_LABEL, color: OTHER_COLOR, count: 2 })
  })

  it('does not depend on the order of the rows', () => {
    const values = { a: 'x', b: 'y', c: 'z' }
    const one = attributeScale(values, ['a', 'b', 'c'])
    const two = attributeScale(values, ['c', 'b', 'a'])
    expect(['a', 'b', 'c'].map(one.color)).toEqual(['a', 'b', 'c'].map(two.color))
  })
})

describe('parseAttr', () => {
  it('reads table:column and rejects anything else', () => {
    expect(parseAttr(formatAttr({ tableId: T, columnId: C }))).toEqual({ tableId: T, columnId: C })
    expect(parseAttr(null)).toBeNull()
    expect(parseAttr(`${T}`)).toBeNull()
    expect(parseAttr(`${T}:nope`)).toBeNull()
  })
})
