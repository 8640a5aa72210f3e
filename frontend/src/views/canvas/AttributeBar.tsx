// "Colour by table column" (issue 37): the choice (kept in the URL as ?attr=<table>:<column>,
// and ?attr_only=1 for "only sources with a value"), the column's values and their colours,
// and the legend that replaces the year legend while a column is chosen.
import { useMemo } from 'react'
import { useSearchParams } from 'react-router'
import { ErrorText } from '../../ui/Field'
import { useAllTables, useColumnValues } from '../table/api'
import { attributeScale, formatAttr, parseAttr, type AttributeRef, type AttributeScale } from './attribute'
import type { Graph } from './model'

export interface CanvasAttribute {
  attr: AttributeRef | null
  /** The chosen column's question (once its values have arrived). */
  question: string | null
  /** Null until a column is chosen and its values have arrived. */
  scale: AttributeScale | null
  /** Only sources with a value are drawn. */
  only: boolean
  error: unknown
}

export function useCanvasAttribute(workspaceId: string, graph: Graph | null): CanvasAttribute {
  const [params] = useSearchParams()
  const attr = useMemo(() => parseAttr(params.get('attr')), [params])
  const values = useColumnValues(workspaceId, attr)
  const scale = useMemo(() => {
    if (!attr || !values.data || !graph) return null
    const ids = graph.nodes.flatMap((n) => (n.data.kind === 'source' ? [n.data.sourceId] : []))
    return attributeScale(values.data.values, ids)
  }, [attr, values.data, graph])
  return { attr, question: values.data?.question ?? null, scale, only: Boolean(attr) && params.get('attr_only') === '1', error: values.error }
}

const selectCls =
  'h-8 max-w-[22rem] truncate rounded-md border border-stone-300 bg-white px-2 text-[13px] text-stone-900 dark:border-stone-600 dark:bg-stone-900 dark:text-stone-100'

/** The picker, the "only with a value" filter and, while a column is chosen, its legend. */
export function AttributeBar({ workspaceId, attribute }: { workspaceId: string; attribute: CanvasAttribute }) {
  const [params, setParams] = useSearchParams()
  const tables = useAllTables(workspaceId, true)
  const chosen = attribute.attr ? formatAttr(attribute.attr) : ''
  const known = tables.some((t) => t.columns.some((c) => formatAttr({ tableId: t.id, columnId: c.id }) === chosen))
  const set = (value: string, only: boolean) =>
    setParams((q) => {
      if (value) q.set('attr', value)
      else q.delete('attr')
      if (value && only) q.set('attr_only', '1')
      else q.delete('attr_only')
      return q
    })
  // A workspace without tables has nothing to choose: the canvas keeps its room.
  if (!tables.length && !params.get('attr')) return null
  return (
    <div className="flex flex-wrap items-center gap-x-3 gap-y-1 px-3 py-1 text-[12px] text-stone-700 dark:text-stone-200 sm:px-5">
      <label className="flex items-center gap-1.5">
        <span className="font-medium">Colour by table column</span>
        <select
          data-testid="canvas-attribute"
          className={selectCls}
          value={chosen}
          onChange={(e) => set(e.target.value, attribute.only)}
        >
          <option value="">none (year)</option>
          {chosen && !known && <option value={chosen}>{attribute.question ?? 'the chosen column'}</option>}
          {tables.map((t) => (
            <optgroup key={t.id} label={t.name}>
              {t.columns.map((c) => (
                <option key={c.id} value={formatAttr({ tableId: t.id, columnId: c.id })}>
                  {c.question}
                </option>
              ))}
            </optgroup>
          ))}
        </select>
      </label>
      {attribute.attr && (
        <>
          <label className="flex items-center gap-1">
            <input type="checkbox" data-testid="canvas-attribute-only" checked={attribute.only} onChange={(e) => set(chosen, e.target.checked)} />
            only sources with a value
          </label>
          <button
            type="button"
            className="rounded px-1 text-accent-700 underline dark:text-accent-300"
            data-testid="canvas-attribute-clear"
            onClick={() => set('', false)}
          >
            Clear
          </button>
        </>
      )}
      {attribute.scale && (
        <ul data-testid="canvas-attribute-legend" aria-label={`Colours: ${attribute.question ?? 'table column'}`} className="flex flex-wrap items-center gap-x-2 gap-y-1">
          {attribute.scale.legend.map((e) => (
            <li key={e.label} data-testid="canvas-attribute-legend-entry" className="flex max-w-[16rem] items-center gap-1" title={e.label}>
              <span aria-hidden className="inline-block h-3 w-3 shrink-0 rounded-sm" style={{ background: e.color }} />
              <span className="truncate">{e.label}</span>
              <span className="text-stone-500 dark:text-stone-400">({e.count})</span>
            </li>
          ))}
        </ul>
      )}
      {params.get('attr') && !attribute.attr && <span className="text-red-700 dark:text-red-400">Not a table column: {params.get('attr')}</span>}
      <ErrorText error={attribute.error} />
    </div>
  )
}
