// Search that focuses a node, filters (edge type, concept level, source year, cluster) and the legend.
import * as Popover from '@radix-ui/react-popover'
import { useId, useMemo, useState, type FormEvent } from 'react'
import { Button } from '../../ui/Button'
import { EDGE_STYLES, EDGE_TYPES } from './edges'
import { defaultFilters, type Filters } from './focus'
import type { EdgeType, Graph } from './model'
import { LEVEL_NAMES } from './nodes/concept/ConceptNode'

const panel =
  'z-50 w-[min(22rem,calc(100vw-1.5rem))] rounded-lg border border-stone-200 bg-white p-3 text-sm shadow-xl dark:border-stone-700 dark:bg-stone-900'

export function Toolbar(props: { graph: Graph | null; filters: Filters; setFilters: (f: Filters) => void; onFocus: (id: string) => void }) {
  const { graph, filters, setFilters, onFocus } = props
  const [query, setQuery] = useState('')
  const [notFound, setNotFound] = useState(false)
  const listId = useId()
  const labels = useMemo(() => (graph ? graph.nodes.map((n) => ({ id: n.id, label: nodeLabel(n.data) })) : []), [graph])
  // Suggestions only for what is typed (a datalist of thousands of nodes costs a long main-thread task).
  const suggestions = useMemo(() => {
    const q = query.trim().toLowerCase()
    return q.length < 2 ? [] : labels.filter((l) => l.label.toLowerCase().includes(q)).slice(0, 30)
  }, [labels, query])
  const submit = (e: FormEvent) => {
    e.preventDefault()
    const q = query.trim().toLowerCase()
    if (!q) return
    const hit = labels.find((l) => l.label.toLowerCase() === q) ?? labels.find((l) => l.label.toLowerCase().includes(q))
    setNotFound(!hit)
    if (hit) onFocus(hit.id)
  }
  const changed = activeFilterCount(filters)
  return (
    <div className="flex flex-wrap items-center gap-2 border-b border-stone-200 px-3 py-2 dark:border-stone-800 sm:px-5">
      {/* At least 16rem wide, else on a row of its own (a phone): never squeezed to nothing. */}
      <form onSubmit={submit} className="flex min-w-0 flex-[1_1_16rem] items-center gap-2" role="search">
        <label htmlFor={`${listId}-q`} className="sr-only">
          Find a source or concept
        </label>
        <input
          id={`${listId}-q`}
          data-testid="canvas-search"
          list={listId}
          value={query}
          onChange={(e) => {
            setQuery(e.target.value)
            setNotFound(false)
          }}
          placeholder="Find a source or concept…"
          className="h-8 w-full min-w-0 max-w-sm rounded-md border border-stone-300 bg-white px-2 text-sm dark:border-stone-600 dark:bg-stone-900"
        />
        <datalist id={listId}>
          {suggestions.map((l) => (
            <option key={l.id} value={l.label} />
          ))}
        </datalist>
        <Button size="sm" type="submit">
          Find
        </Button>
        {notFound && <span className="text-sm text-red-700 dark:text-red-400">No match</span>}
      </form>
      <Button
        size="sm"
        variant={filters.allConcepts ? 'primary' : 'secondary'}
        data-testid="canvas-all-concepts"
        aria-pressed={filters.allConcepts}
        onClick={() => setFilters({ ...filters, allConcepts: !filters.allConcepts })}
        title="Off: papers grouped by topic, a selected paper's concepts beside it. On: every concept on the map."
      >
        Show all concepts
      </Button>
      <Popover.Root>
        <Popover.Trigger asChild>
          <Button size="sm" data-testid="canvas-filters">
            Filters{changed ? ` (${changed})` : ''}
          </Button>
        </Popover.Trigger>
        <Popover.Portal>
          <Popover.Content align="end" sideOffset={6} collisionPadding={12} className={panel} aria-label="Filters">
            <FilterForm graph={graph} filters={filters} setFilters={setFilters} />
          </Popover.Content>
        </Popover.Portal>
      </Popover.Root>
      <Popover.Root>
        <Popover.Trigger asChild>
          <Button size="sm" data-testid="canvas-legend-toggle">
            Legend
          </Button>
        </Popover.Trigger>
        <Popover.Portal>
          <Popover.Content align="end" sideOffset={6} collisionPadding={12} className={panel} aria-label="Legend">
            <Legend />
          </Popover.Content>
        </Popover.Portal>
      </Popover.Root>
    </div>
  )
}

function nodeLabel(d: Graph['nodes'][number]['data']): string {
  return d.kind === 'source' ? d.title : d.kind === 'concept' ? d.name : d.kind === 'cluster' ? d.label : d.question
}

function activeFilterCount(f: Filters): number {
  return (
    (f.edgeTypes.size < EDGE_TYPES.length ? 1 : 0) +
    (f.levels.size < 3 ? 1 : 0) +
    (f.yearFrom !== null || f.yearTo !== null ? 1 : 0) +
    (f.cluster !== 'all' ? 1 : 0) +
    (f.collapsed.size ? 1 : 0)
  )
}

function toggled<T>(set: Set<T>, value: T, on: boolean): Set<T> {
  const next = new Set(set)
  if (on) next.add(value)
  else next.delete(value)
  return next
}

function FilterForm({ graph, filters, setFilters }: { graph: Graph | null; filters: Filters; setFilters: (f: Filters) => void }) {
  const clusters = useMemo(() => {
    const sizes = new Map<string, number>()
    for (const n of graph?.nodes ?? []) if (n.clusterId) sizes.set(n.clusterId, (sizes.get(n.clusterId) ?? 0) + 1)
    return [...sizes.entries()]
  }, [graph])
  const present = useMemo(() => new Set<EdgeType>((graph?.edges ?? []).map((e) => e.type)), [graph])
  const box = 'h-4 w-4 accent-accent-600'
  const year = (v: string) => (v.trim() && Number.isFinite(Number(v)) ? Math.trunc(Number(v)) : null)
  return (
    <div className="grid gap-3">
      <fieldset>
        <legend className="font-medium">Concept level</legend>
        <div className="mt-1 flex flex-wrap gap-3">
          {LEVEL_NAMES.map((name, level) => (
            <label key={name} className="flex items-center gap-1.5">
              <input
                type="checkbox"
                className={box}
                data-testid={`filter-level-${level}`}
                checked={filters.levels.has(level)}
                onChange={(e) => setFilters({ ...filters, levels: toggled(filters.levels, level, e.target.checked) })}
              />
              {level} {name}
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset>
        <legend className="font-medium">Edges</legend>
        <div className="mt-1 grid grid-cols-2 gap-1">
          {EDGE_TYPES.map((t) => (
            <label key={t} className="flex items-center gap-1.5">
              <input
                type="checkbox"
                className={box}
                data-testid={`filter-edge-${t}`}
                checked={filters.edgeTypes.has(t)}
                onChange={(e) => setFilters({ ...filters, edgeTypes: toggled(filters.edgeTypes, t, e.target.checked) })}
              />
              <span className={present.has(t) ? '' : 'text-stone-500'}>{EDGE_STYLES[t].label}</span>
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset className="flex flex-wrap items-center gap-2">
        <legend className="font-medium">Source year</legend>
        <label className="flex items-center gap-1">
          from
          <input
            type="number"
            inputMode="numeric"
            data-testid="filter-year-from"
            className="h-8 w-20 rounded border border-stone-300 bg-white px-1 dark:border-stone-600 dark:bg-stone-900"
            value={filters.yearFrom ?? ''}
            onChange={(e) => setFilters({ ...filters, yearFrom: year(e.target.value) })}
          />
        </label>
        <label className="flex items-center gap-1">
          to
          <input
            type="number"
            inputMode="numeric"
            data-testid="filter-year-to"
            className="h-8 w-20 rounded border border-stone-300 bg-white px-1 dark:border-stone-600 dark:bg-stone-900"
            value={filters.yearTo ?? ''}
            onChange={(e) => setFilters({ ...filters, yearTo: year(e.target.value) })}
          />
        </label>
      </fieldset>
      <fieldset>
        <legend className="font-medium">Redundancy clusters</legend>
        {clusters.length === 0 ? (
          <p className="text-stone-600 dark:text-stone-400">No near-duplicate sources in this workspace.</p>
        ) : (
          <>
            <label className="mt-1 flex items-center gap-2">
              Show
              <select
                data-testid="filter-cluster"
                className="h-8 rounded border border-stone-300 bg-white px-1 dark:border-stone-600 dark:bg-stone-900"
                value={filters.cluster}
                onChange={(e) => setFilters({ ...filters, cluster: e.target.value })}
              >
                <option value="all">all sources</option>
                <option value="clustered">only clustered sources</option>
                {clusters.map(([id, size], i) => (
                  <option key={id} value={id}>
                    cluster {i + 1} ({size})
                  </option>
                ))}
              </select>
            </label>
            <label className="mt-1 flex items-center gap-1.5">
              <input
                type="checkbox"
                className={box}
                data-testid="collapse-clusters"
                checked={filters.collapsed.size === clusters.length}
                onChange={(e) => setFilters({ ...filters, collapsed: e.target.checked ? new Set(clusters.map(([id]) => id)) : new Set() })}
              />
              Collapse each cluster to one source
            </label>
          </>
        )}
      </fieldset>
      <Button size="sm" variant="ghost" onClick={() => setFilters(defaultFilters(EDGE_TYPES, filters.allConcepts))}>
        Reset filters
      </Button>
    </div>
  )
}

export function Legend() {
  return (
    <div data-testid="canvas-legend">
      <p className="font-medium">Nodes</p>
      <ul className="mt-1 grid gap-1">
        <li className="flex items-center gap-2">
          <span className="inline-block h-4 w-7 rounded border border-stone-400 bg-white dark:bg-stone-900" /> Source (❝ citations, ★ quality)
        </li>
        <li className="flex items-center gap-2">
          <span className="inline-block h-4 w-7 rounded-full border border-emerald-500 bg-emerald-50 dark:bg-emerald-950" /> Concept, level 0 foundational
        </li>
        <li className="flex items-center gap-2">
          <span className="inline-block h-4 w-7 rounded-full border border-sky-500 bg-sky-50 dark:bg-sky-950" /> level 1 intermediate
        </li>
        <li className="flex items-center gap-2">
          <span className="inline-block h-4 w-7 rounded-full border border-amber-500 bg-amber-50 dark:bg-amber-950" /> level 2 specialised
        </li>
        <li className="flex items-center gap-2">
          <span className="inline-block h-4 w-7 rounded border border-dashed border-rose-500 bg-rose-50 dark:bg-rose-950" /> Saved answer
        </li>
      </ul>
      <p className="mt-3 font-medium">Edges</p>
      <ul className="mt-1 grid gap-1">
        {EDGE_TYPES.map((t) => {
          const s = EDGE_STYLES[t]
          return (
            <li key={t} className="flex items-center gap-2" data-testid={`legend-${t}`}>
              <svg width="36" height="10" aria-hidden="true">
                <line x1="1" y1="5" x2="35" y2="5" stroke={s.color} strokeWidth={s.width + 0.5} strokeDasharray={s.dash} />
              </svg>
              <span>
                <span className="font-medium">{s.label}</span> <span className="text-stone-600 dark:text-stone-400">— {s.description}</span>
              </span>
            </li>
          )
        })}
      </ul>
      <p className="mt-3 text-stone-600 dark:text-stone-400">Foundational concepts sit above specialised ones; each source sits below the concepts it discusses.</p>
    </div>
  )
}
