// One evidence table: the grid (sources × questions), live while its fill job runs (one
// SSE event per cell), with columns and rows added in place and CSV/Markdown export.
import { useEffect, useRef, useState } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate } from 'react-router'
import { useJobEvents } from '../../api/jobs'
import { useJobAction, useSources } from '../../api/queries'
import { Button } from '../../ui/Button'
import { ErrorText, Input } from '../../ui/Field'
import { Progress } from '../../ui/Progress'
import { cx } from '../../lib/cx'
import {
  exportHref,
  tableKeys,
  useAddColumns,
  useAddRows,
  useDeleteColumn,
  useDeleteRow,
  useFill,
  useSuggestions,
  useTable,
  type Cell,
  type CellQuote,
  type Table,
  type TableRow,
} from './api'
import { cellHref, clip, confidenceLabel, pageLabel, quoteHref, sameAsQuote } from './cells'

const linkCls = 'text-accent-700 underline dark:text-accent-300'

export function TableView({ workspaceId, tableId }: { workspaceId: string; tableId: string }) {
  const table = useTable(workspaceId, tableId)
  const data = table.data
  return (
    <main className="mx-auto w-full max-w-[100rem] flex-1 px-3 py-4 sm:px-5">
      <Link to={`/w/${workspaceId}/table`} className={cx(linkCls, 'text-sm')}>
        ← All tables
      </Link>
      <ErrorText error={table.error} />
      {table.isPending && <p className="mt-2 text-sm">Loading the table…</p>}
      {data && <TableBody workspaceId={workspaceId} table={data} />}
    </main>
  )
}

function TableBody({ workspaceId, table }: { workspaceId: string; table: Table }) {
  const fill = useFill(workspaceId, table.id)
  const jobId = table.job_id ?? null
  const live = useLiveFill(workspaceId, table.id, jobId)
  const running = Boolean(jobId) && !live.finished
  const action = useJobAction()
  const filled = table.rows.reduce((n, r) => n + r.cells.filter((c) => c.state === 'filled').length, 0)
  const total = table.rows.reduce((n, r) => n + r.cells.filter((c) => c.state !== 'unavailable').length, 0)
  return (
    <>
      <div className="mt-2 flex flex-wrap items-end justify-between gap-3">
        <div className="min-w-0">
          <h2 className="font-serif text-xl font-semibold [overflow-wrap:anywhere]">{table.name}</h2>
          <p className="text-sm text-stone-600 dark:text-stone-400">
            {table.rows.length} sources × {table.columns.length} columns · {filled} of {total} cells filled · engine{' '}
            {table.engine.startsWith('offline') ? 'offline (extractive)' : table.engine.replace(/^llm:/, '')}
          </p>
        </div>
        <div className="flex flex-wrap gap-2">
          {table.pending > 0 && !running && (
            <Button size="sm" variant="primary" data-testid="fill-table" onClick={() => fill.mutate(undefined)} disabled={fill.isPending}>
              Fill {table.pending} cells
            </Button>
          )}
          {running && jobId && (
            <Button size="sm" data-testid="cancel-fill" onClick={() => action.mutate({ id: jobId, action: 'cancel' })} disabled={action.isPending}>
              Cancel
            </Button>
          )}
          <Button size="sm" asChild>
            <a href={exportHref(workspaceId, table.id, 'csv')} download data-testid="export-csv">
              Export CSV
            </a>
          </Button>
          <Button size="sm" asChild>
            <a href={exportHref(workspaceId, table.id, 'markdown')} download data-testid="export-markdown">
              Export Markdown
            </a>
          </Button>
        </div>
      </div>
      {running && (
        <div className="mt-2" data-testid="fill-progress">
          <Progress value={live.progress} label="Filling the table" />
          <p className="mt-1 text-xs text-stone-700 [overflow-wrap:anywhere] dark:text-stone-300" aria-live="polite">
            {live.message}
          </p>
        </div>
      )}
      <ErrorText error={fill.error ?? action.error} />
      <AddColumn workspaceId={workspaceId} table={table} />
      <div className="mt-3 overflow-x-auto rounded-lg border border-stone-200 dark:border-stone-800">
        <Grid workspaceId={workspaceId} table={table} running={running} />
      </div>
      <AddRows workspaceId={workspaceId} table={table} />
    </>
  )
}

/** The fill job's events: each cell event refreshes the table (at most every 600 ms). */
function useLiveFill(workspaceId: string, tableId: string, jobId: string | null) {
  const qc = useQueryClient()
  const live = useJobEvents(jobId, { enabled: Boolean(jobId) })
  const last = useRef(0)
  const count = live.events.length
  useEffect(() => {
    if (!count) return
    const refresh = () => {
      last.current = Date.now()
      void qc.invalidateQueries({ queryKey: tableKeys.table(workspaceId, tableId) })
    }
    if (live.finished) return refresh()
    const wait = Math.max(0, 600 - (Date.now() - last.current))
    const timer = window.setTimeout(refresh, wait)
    return () => window.clearTimeout(timer)
  }, [count, live.finished, qc, workspaceId, tableId])
  return { finished: live.finished, progress: live.progress, message: live.last?.message ?? 'Starting…' }
}

function Grid({ workspaceId, table, running }: { workspaceId: string; table: Table; running: boolean }) {
  const removeColumn = useDeleteColumn(workspaceId, table.id)
  const removeRow = useDeleteRow(workspaceId, table.id)
  return (
    <table data-testid="evidence-table" className="w-full border-collapse text-left text-sm">
      <thead className="bg-stone-100 dark:bg-stone-800">
        <tr>
          <th scope="col" className="sticky left-0 z-10 w-32 min-w-[8rem] max-w-[10rem] bg-stone-100 p-2 sm:w-auto sm:min-w-[11rem] sm:max-w-[16rem] align-bottom font-semibold dark:bg-stone-800">
            Source
          </th>
          {table.columns.map((c) => (
            <th key={c.id} scope="col" className="min-w-[15rem] max-w-[24rem] p-2 align-bottom font-semibold" data-testid="table-column">
              <div className="flex items-start justify-between gap-1">
                <span className="[overflow-wrap:anywhere]">{c.question}</span>
                <button
                  type="button"
                  className="rounded px-1 text-stone-500 hover:bg-stone-200 dark:hover:bg-stone-700"
                  aria-label={`Remove the column “${c.question}”`}
                  onClick={() => removeColumn.mutate(c.id)}
                >
                  ✕
                </button>
              </div>
              <Link
                to={`/w/${workspaceId}/canvas?attr=${table.id}:${c.id}`}
                className="mt-1 inline-block text-xs font-normal text-accent-700 underline dark:text-accent-300"
                data-testid="column-to-canvas"
                aria-label={`Show the column “${c.question}” on the canvas`}
              >
                Show on canvas
              </Link>
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {table.rows.map((row) => (
          <tr key={row.source_id} className="border-t border-stone-200 align-top dark:border-stone-800" data-testid="table-row">
            <th scope="row" className="sticky left-0 z-10 w-32 min-w-[8rem] max-w-[10rem] bg-white p-2 text-xs font-medium sm:w-auto sm:min-w-[11rem] sm:max-w-[16rem] sm:text-sm dark:bg-stone-900">
              <Link to={`/w/${workspaceId}/read/${row.source_id}`} className="[overflow-wrap:anywhere] hover:underline">
                {row.title ?? row.file_name ?? row.source_id}
              </Link>
              <button
                type="button"
                className="ml-1 rounded px-1 text-xs font-normal text-stone-500 hover:bg-stone-200 dark:hover:bg-stone-700"
                aria-label={`Remove the row of “${row.title ?? row.file_name ?? row.source_id}”`}
                onClick={() => removeRow.mutate(row.source_id)}
              >
                ✕
              </button>
            </th>
            {row.cells.map((cell) => (
              <CellView key={cell.column_id} workspaceId={workspaceId} row={row} cell={cell} running={running} />
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function CellView({ workspaceId, row, cell, running }: { workspaceId: string; row: TableRow; cell: Cell; running: boolean }) {
  const navigate = useNavigate()
  const href = cellHref(workspaceId, row.source_id, cell)
  const confidence = confidenceLabel(cell.confidence)
  return (
    <td
      data-testid="table-cell"
      data-state={cell.state}
      data-not-reported={cell.not_reported ? 'true' : undefined}
      className={cx('min-w-[15rem] max-w-[24rem] p-2', href && 'cursor-pointer hover:bg-accent-100/50 dark:hover:bg-accent-700/20')}
      onClick={(e) => {
        if (!href || (e.target as HTMLElement).closest('a,button,summary')) return
        navigate(href)
      }}
    >
      {cell.state === 'pending' && <span className="text-stone-500 dark:text-stone-400">{running ? 'Filling…' : 'Not filled yet'}</span>}
      {cell.state === 'unavailable' && <span className="text-stone-500 dark:text-stone-400">Source not ready</span>}
      {cell.state === 'filled' && cell.not_reported && (
        <details className="text-stone-700 dark:text-stone-300">
          <summary className="cursor-pointer italic">Not reported</summary>
          {cell.note && <p className="mt-1 text-xs">{cell.note}</p>}
          {(cell.searched?.length ?? 0) > 0 && (
            <p className="mt-1 text-xs text-stone-600 dark:text-stone-400">
              Searched:{' '}
              {cell.searched?.map((s, i) => (
                <span key={i}>
                  {i > 0 && ', '}
                  {s.page ? `p. ${s.page}` : `passage ${s.chunk_index + 1}`}
                  {s.section ? ` (${s.section})` : ''}
                </span>
              ))}
            </p>
          )}
        </details>
      )}
      {cell.state === 'filled' && !cell.not_reported && (
        <div>
          {sameAsQuote(cell) ? (
            // A sentence answer is its quote: shown once, as the link into the reader.
            <p data-testid="cell-answer" className="text-stone-900 dark:text-stone-50">
              <QuoteLink workspaceId={workspaceId} sourceId={row.source_id} quote={(cell.quotes ?? [])[0]!} max={300} />
            </p>
          ) : (
            <>
              <p className="font-semibold text-stone-900 [overflow-wrap:anywhere] dark:text-stone-50" data-testid="cell-answer">
                {clip(cell.answer, 300)}
              </p>
              {(cell.quotes ?? []).map((q, i) => (
                <QuoteLink key={i} workspaceId={workspaceId} sourceId={row.source_id} quote={q} />
              ))}
            </>
          )}
          {(confidence || cell.note) && (
            <p className="mt-1 text-xs text-stone-600 dark:text-stone-400">
              {confidence}
              {confidence && cell.note ? ' · ' : ''}
              {cell.note}
            </p>
          )}
        </div>
      )}
    </td>
  )
}

function QuoteLink({ workspaceId, sourceId, quote, max }: { workspaceId: string; sourceId: string; quote: CellQuote; max?: number }) {
  return (
    <Link
      to={quoteHref(workspaceId, sourceId, quote)}
      data-testid="cell-quote"
      title={quote.text}
      className="mt-1 block font-serif text-[0.8125rem] leading-snug text-stone-700 hover:text-accent-700 hover:underline dark:text-stone-300 dark:hover:text-accent-300"
    >
      “{clip(quote.text, max)}” <span className="whitespace-nowrap font-sans text-xs text-stone-600 dark:text-stone-400">{pageLabel(quote)}</span>
    </Link>
  )
}

function AddColumn({ workspaceId, table }: { workspaceId: string; table: Table }) {
  const add = useAddColumns(workspaceId, table.id)
  const suggestions = useSuggestions(workspaceId)
  const [text, setText] = useState('')
  const have = new Set(table.columns.map((c) => c.question))
  const submit = (question: string) => add.mutate([question], { onSuccess: () => setText('') })
  return (
    <form
      className="mt-3 flex flex-wrap items-center gap-2"
      onSubmit={(e) => {
        e.preventDefault()
        if (text.trim()) submit(text.trim())
      }}
    >
      <Input
        aria-label="New column (a question)"
        data-testid="add-column-input"
        className="max-w-md flex-1"
        value={text}
        maxLength={300}
        placeholder="Add a column: a question for every source"
        onChange={(e) => setText(e.target.value)}
      />
      <Button type="submit" size="sm" data-testid="add-column" disabled={!text.trim() || add.isPending}>
        Add column
      </Button>
      {(suggestions.data ?? [])
        .filter((s) => !have.has(s.question))
        .map((s) => (
          <Button key={s.key} size="sm" variant="ghost" title={s.question} onClick={() => submit(s.question)} disabled={add.isPending}>
            + {s.label}
          </Button>
        ))}
      <ErrorText error={add.error} />
    </form>
  )
}

function AddRows({ workspaceId, table }: { workspaceId: string; table: Table }) {
  const sources = useSources(workspaceId)
  const add = useAddRows(workspaceId, table.id)
  const [picked, setPicked] = useState('')
  const inTable = new Set(table.rows.map((r) => r.source_id))
  const others = (sources.data ?? []).filter((s) => !inTable.has(s.id) && s.status === 'ready')
  if (!others.length) return null
  return (
    <form
      className="mt-3 flex flex-wrap items-center gap-2"
      onSubmit={(e) => {
        e.preventDefault()
        const ids = picked === '*' ? others.map((s) => s.id) : picked ? [picked] : []
        if (ids.length) add.mutate(ids, { onSuccess: () => setPicked('') })
      }}
    >
      <select
        aria-label="Add a source as a row"
        className="h-8 max-w-md rounded-md border border-stone-300 bg-white px-2 text-sm dark:border-stone-600 dark:bg-stone-900"
        value={picked}
        onChange={(e) => setPicked(e.target.value)}
      >
        <option value="">Add a source as a row…</option>
        <option value="*">All {others.length} sources not in the table</option>
        {others.map((s) => (
          <option key={s.id} value={s.id}>
            {s.title ?? s.file_name ?? s.id}
          </option>
        ))}
      </select>
      <Button type="submit" size="sm" disabled={!picked || add.isPending}>
        Add row
      </Button>
      <ErrorText error={add.error} />
    </form>
  )
}
