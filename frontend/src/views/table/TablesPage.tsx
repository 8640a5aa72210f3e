// Evidence tables (`/w/<id>/table` and `/w/<id>/table/<table id>`): rows are sources,
// columns are questions; every cell a short answer with the verbatim quote it rests on
// and its page (a click opens the reader at the quote, marked), or "not reported".
import { useState } from 'react'
import { Link, useNavigate, useOutletContext, useParams } from 'react-router'
import type { WorkspaceDetail } from '../../api/client'
import { useSources } from '../../api/queries'
import { Button } from '../../ui/Button'
import { ErrorText, Input, Label } from '../../ui/Field'
import { ago } from '../../lib/format'
import { useCreateTable, useSuggestions, useTables } from './api'
import { questionsFrom } from './cells'
import { TableView } from './TableView'

export function TablesPage() {
  const workspace = useOutletContext<WorkspaceDetail>()
  const { tableId } = useParams()
  if (tableId) return <TableView key={tableId} workspaceId={workspace.id} tableId={tableId} />
  return (
    <main className="mx-auto grid w-full max-w-7xl flex-1 grid-cols-1 gap-6 px-3 py-4 sm:px-5 lg:grid-cols-[minmax(0,1fr)_22rem]">
      <NewTable workspaceId={workspace.id} />
      <TableList workspaceId={workspace.id} />
    </main>
  )
}

function TableList({ workspaceId }: { workspaceId: string }) {
  const tables = useTables(workspaceId)
  return (
    <section aria-labelledby="tables-h" className="self-start rounded-lg border border-stone-200 bg-white p-3 dark:border-stone-800 dark:bg-stone-900">
      <h2 id="tables-h" className="font-semibold">
        Tables
      </h2>
      <ErrorText error={tables.error} />
      {tables.isSuccess && tables.data.length === 0 && <p className="mt-1 text-sm text-stone-600 dark:text-stone-400">No table yet.</p>}
      <ul className="mt-2 grid gap-2">
        {(tables.data ?? []).map((t) => (
          <li key={t.id}>
            <Link
              to={t.id}
              data-testid="table-link"
              className="block rounded-md border border-stone-200 p-2 text-sm hover:bg-stone-50 dark:border-stone-700 dark:hover:bg-stone-800"
            >
              <span className="block font-medium [overflow-wrap:anywhere]">{t.name}</span>
              <span className="text-xs text-stone-600 dark:text-stone-400">
                {t.rows} sources × {t.columns} columns · {ago(t.updated_at)}
              </span>
            </Link>
          </li>
        ))}
      </ul>
    </section>
  )
}

function NewTable({ workspaceId }: { workspaceId: string }) {
  const sources = useSources(workspaceId)
  const suggestions = useSuggestions(workspaceId)
  const create = useCreateTable(workspaceId)
  const navigate = useNavigate()
  const [columns, setColumns] = useState<string[]>([''])
  const [name, setName] = useState('')
  const [excluded, setExcluded] = useState<Set<string>>(new Set())
  const ready = (sources.data ?? []).filter((s) => s.status === 'ready')
  const questions = questionsFrom(columns)
  const chosen = ready.filter((s) => !excluded.has(s.id))
  const addQuestion = (q: string) =>
    setColumns((cs) => {
      if (cs.some((c) => c.trim() === q)) return cs
      const blank = cs.findIndex((c) => !c.trim())
      return blank >= 0 ? cs.map((c, i) => (i === blank ? q : c)) : [...cs, q]
    })
  const submit = () =>
    create.mutate(
      {
        columns: questions,
        name: name.trim() || null,
        source_ids: excluded.size ? chosen.map((s) => s.id) : null,
      },
      { onSuccess: (result) => navigate(result.table.id) },
    )

  return (
    <section aria-labelledby="new-table-h" className="min-w-0">
      <h2 id="new-table-h" className="font-serif text-xl font-semibold">
        New evidence table
      </h2>
      <p className="mt-1 text-sm text-stone-700 dark:text-stone-300">
        Rows are sources, columns are questions. Each cell is a short answer with the verbatim quote it rests on and its page — or “not reported” when the source does
        not say.
      </p>
      <form
        className="mt-4 grid gap-4"
        onSubmit={(e) => {
          e.preventDefault()
          submit()
        }}
      >
        <fieldset className="grid gap-2">
          <legend className="mb-1 text-sm font-medium text-stone-700 dark:text-stone-300">Columns (questions)</legend>
          {columns.map((c, i) => (
            <div key={i} className="flex gap-2">
              <Input
                aria-label={`Column ${i + 1}`}
                data-testid="new-column"
                value={c}
                maxLength={300}
                placeholder="e.g. How many participants are studied?"
                onChange={(e) => setColumns((cs) => cs.map((x, j) => (j === i ? e.target.value : x)))}
              />
              {columns.length > 1 && (
                <Button variant="ghost" aria-label={`Remove column ${i + 1}`} onClick={() => setColumns((cs) => cs.filter((_, j) => j !== i))}>
                  ✕
                </Button>
              )}
            </div>
          ))}
          <div className="flex flex-wrap items-center gap-2">
            <Button size="sm" onClick={() => setColumns((cs) => [...cs, ''])} disabled={columns.length >= 20}>
              Add a column
            </Button>
            <span className="text-xs text-stone-600 dark:text-stone-400">Suggested:</span>
            {(suggestions.data ?? []).map((s) => (
              <Button key={s.key} size="sm" variant="ghost" data-testid="suggested-column" title={s.question} onClick={() => addQuestion(s.question)}>
                + {s.label}
              </Button>
            ))}
          </div>
        </fieldset>
        <div>
          <Label htmlFor="table-name">Name (optional)</Label>
          <Input id="table-name" value={name} maxLength={200} onChange={(e) => setName(e.target.value)} placeholder="Named after its columns" />
        </div>
        <fieldset>
          <legend className="mb-1 text-sm font-medium text-stone-700 dark:text-stone-300">
            Sources ({chosen.length} of {ready.length})
          </legend>
          {sources.isSuccess && ready.length === 0 && <p className="text-sm text-stone-600 dark:text-stone-400">No ready source yet: upload or research first.</p>}
          <ul className="grid max-h-64 gap-1 overflow-y-auto rounded-md border border-stone-200 p-2 dark:border-stone-700">
            {ready.map((s) => (
              <li key={s.id}>
                <label className="flex items-start gap-2 text-sm">
                  <input
                    type="checkbox"
                    className="mt-1"
                    checked={!excluded.has(s.id)}
                    onChange={(e) =>
                      setExcluded((x) => {
                        const next = new Set(x)
                        if (e.target.checked) next.delete(s.id)
                        else next.add(s.id)
                        return next
                      })
                    }
                  />
                  <span className="[overflow-wrap:anywhere]">{s.title ?? s.file_name ?? s.id}</span>
                </label>
              </li>
            ))}
          </ul>
        </fieldset>
        <div className="flex items-center gap-3">
          <Button type="submit" variant="primary" data-testid="create-table" disabled={!questions.length || !chosen.length || create.isPending}>
            {create.isPending ? 'Creating…' : `Create and fill (${chosen.length} × ${questions.length})`}
          </Button>
        </div>
        <ErrorText error={create.error} />
      </form>
    </section>
  )
}
