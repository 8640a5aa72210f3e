// A table column as a node attribute (issue 37): each source's short answer in the column
// picks its colour from a categorical palette (the most frequent values first), with
// "other" past the palette and grey where the table has no value for the source.

/** Categorical colours (Tableau 10 less its brown and grey): distinct from each other and
 * legible as a bar or swatch on both the light and the dark canvas. */
export const ATTRIBUTE_COLORS = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7'] as const
/** Values past the palette share one colour. */
export const OTHER_COLOR = '#9c755f'
/** Not reported, not filled yet, or the source is not a row of the table. */
export const NONE_COLOR = '#a8a29e'
export const OTHER_LABEL = 'other'
export const NONE_LABEL = 'no value'

/** `?attr=<table id>:<column id>` */
export interface AttributeRef {
  tableId: string
  columnId: string
}

export function parseAttr(param: string | null): AttributeRef | null {
  const m = param?.match(/^([0-9a-fA-F-]{36}):([0-9a-fA-F-]{36})$/)
  return m ? { tableId: m[1]!, columnId: m[2]! } : null
}

export const formatAttr = (a: AttributeRef) => `${a.tableId}:${a.columnId}`

export interface LegendEntry {
  label: string
  color: string
  /** How many sources have it. */
  count: number
}

export interface AttributeScale {
  /** A source's value as shown (trimmed), or null when it has none. */
  value(sourceId: string): string | null
  color(sourceId: string): string
  /** The palette's values by frequency, then "other" and "no value" when any source has them. */
  legend: LegendEntry[]
}

/** Values are grouped case-insensitively and with their whitespace collapsed ("120 patients"
 * and "120  Patients" are one value; the first spelling seen is shown). */
const key = (v: string) => v.trim().replace(/\s+/g, ' ').toLowerCase()

/** The scale over ``sourceIds`` (the sources drawn) given the column's ``values`` (source id
 * → short answer or null); a source missing from ``values`` has no value. */
export function attributeScale(values: Readonly<Record<string, string | null>>, sourceIds: readonly string[]): AttributeScale {
  const shown = new Map<string, string>()
  const counts = new Map<string, number>()
  let none = 0
  for (const id of sourceIds) {
    const v = values[id]
    if (v === null || v === undefined || !v.trim()) {
      none += 1
      continue
    }
    const k = key(v)
    if (!shown.has(k)) shown.set(k, v.trim().replace(/\s+/g, ' '))
    counts.set(k, (counts.get(k) ?? 0) + 1)
  }
  // Most frequent first; ties by the value itself, so the colours do not depend on row order.
  const ranked = [...counts.keys()].sort((a, b) => counts.get(b)! - counts.get(a)! || (a < b ? -1 : a > b ? 1 : 0))
  // With exactly one value past the palette it takes the "other" slot's place itself.
  const slots = ranked.length <= ATTRIBUTE_COLORS.length ? ranked.length : ATTRIBUTE_COLORS.length - 1
  const colorOf = new Map(ranked.slice(0, slots).map((k, i) => [k, ATTRIBUTE_COLORS[i]!]))
  const legend: LegendEntry[] = ranked.slice(0, slots).map((k) => ({ label: shown.get(k)!, color: colorOf.get(k)!, count: counts.get(k)! }))
  const rest = ranked.slice(slots).reduce((n, k) => n + counts.get(k)!, 0)
  if (rest) legend.push({ label: OTHER_LABEL, color: OTHER_COLOR, count: rest })
  if (none) legend.push({ label: NONE_LABEL, color: NONE_COLOR, count: none })
  const valueOf = (id: string) => {
    const v = values[id]
    return v === null || v === undefined || !v.trim() ? null : shown.get(key(v)) ?? v.trim()
  }
  return {
    value: valueOf,
    color: (id) => {
      const v = values[id]
      if (v === null || v === undefined || !v.trim()) return NONE_COLOR
      return colorOf.get(key(v)) ?? OTHER_COLOR
    },
    legend,
  }
}
