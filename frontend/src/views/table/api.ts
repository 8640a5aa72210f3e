// Evidence tables: TanStack Query hooks over the generated client (the table, its
// changes, suggestions), keyed so a fill job's cell events refresh exactly the table.
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query'
import { api, errorFromResponse, unwrap, type Schemas } from '../../api/client'

export type Table = Schemas['TableOut']
export type TableSummary = Schemas['TableSummaryOut']
export type TableRow = Schemas['RowOut']
export type TableColumn = Schemas['ColumnOut']
export type Cell = Schemas['CellOut']
export type CellQuote = Schemas['CellQuote']
export type TableJob = Schemas['TableJobOut']

export const tableKeys = {
  list: (workspaceId: string) => ['tables', workspaceId] as const,
  table: (workspaceId: string, tableId: string) => ['table', workspaceId, tableId] as const,
  suggestions: ['table-suggestions'] as const,
  columnValues: (workspaceId: string, tableId: string, columnId: string) => ['table', workspaceId, tableId, 'values', columnId] as const,
}

const path = (workspaceId: string, tableId: string) => ({ params: { path: { workspace_id: workspaceId, table_id: tableId } } })

export function useTables(workspaceId: string) {
  return useQuery({
    queryKey: tableKeys.list(workspaceId),
    queryFn: async () => unwrap(await api.GET('/api/workspaces/{workspace_id}/tables', { params: { path: { workspace_id: workspaceId } } })),
  })
}

export function useTable(workspaceId: string, tableId: string) {
  return useQuery({
    queryKey: tableKeys.table(workspaceId, tableId),
    queryFn: async () => unwrap(await api.GET('/api/workspaces/{workspace_id}/tables/{table_id}', path(workspaceId, tableId))),
  })
}

/** Every table of the workspace with its columns (the canvas's "colour by table column"). */
export function useAllTables(workspaceId: string, enabled: boolean) {
  const list = useTables(workspaceId)
  const ids = enabled ? (list.data ?? []).map((t) => t.id) : []
  return useQueries({
    queries: ids.map((id) => ({
      queryKey: tableKeys.table(workspaceId, id),
      queryFn: async () => unwrap(await api.GET('/api/workspaces/{workspace_id}/tables/{table_id}', path(workspaceId, id))),
    })),
    combine: (results) => results.flatMap((r) => (r.data ? [r.data] : [])),
  })
}

/** A column's values per source (source id → short answer or null). Under the table's key,
 * so a change to the table (a fill's cell events) refreshes them too. */
export function useColumnValues(workspaceId: string, attr: { tableId: string; columnId: string } | null) {
  return useQuery({
    queryKey: tableKeys.columnValues(workspaceId, attr?.tableId ?? '', attr?.columnId ?? ''),
    enabled: Boolean(attr),
    queryFn: async () =>
      unwrap(
        await api.GET('/api/workspaces/{workspace_id}/tables/{table_id}/columns/{column_id}/values', {
          params: { path: { workspace_id: workspaceId, table_id: attr!.tableId, column_id: attr!.columnId } },
        }),
      ),
  })
}

export function useSuggestions(workspaceId: string) {
  return useQuery({
    queryKey: tableKeys.suggestions,
    queryFn: async () =>
      unwrap(await api.GET('/api/workspaces/{workspace_id}/tables/suggestions', { params: { path: { workspace_id: workspaceId } } })),
    staleTime: Infinity,
  })
}

/** After a change: the table as the server returned it, and the list refreshed. */
function useTableChange<V>(workspaceId: string, tableId: string, fn: (vars: V) => Promise<TableJob | Table>) {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: fn,
    onSuccess: (result) => {
      const table = 'table' in result ? result.table : result
      qc.setQueryData(tableKeys.table(workspaceId, tableId), table)
      void qc.invalidateQueries({ queryKey: tableKeys.list(workspaceId) })
    },
  })
}

export function useCreateTable(workspaceId: string) {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: async (body: { columns: string[]; name?: string | null; source_ids?: string[] | null }) =>
      unwrap(
        await api.POST('/api/workspaces/{workspace_id}/tables', {
          params: { path: { workspace_id: workspaceId } },
          body: { ...body, fill: true },
        }),
      ),
    onSuccess: (result) => {
      qc.setQueryData(tableKeys.table(workspaceId, result.table.id), result.table)
      void qc.invalidateQueries({ queryKey: tableKeys.list(workspaceId) })
    },
  })
}

export function useAddColumns(workspaceId: string, tableId: string) {
  return useTableChange(workspaceId, tableId, async (questions: string[]) =>
    unwrap(await api.POST('/api/workspaces/{workspace_id}/tables/{table_id}/columns', { ...path(workspaceId, tableId), body: { questions, fill: true } })),
  )
}

export function useDeleteColumn(workspaceId: string, tableId: string) {
  return useTableChange(workspaceId, tableId, async (columnId: string) =>
    unwrap(
      await api.DELETE('/api/workspaces/{workspace_id}/tables/{table_id}/columns/{column_id}', {
        params: { path: { workspace_id: workspaceId, table_id: tableId, column_id: columnId } },
      }),
    ),
  )
}

export function useAddRows(workspaceId: string, tableId: string) {
  return useTableChange(workspaceId, tableId, async (sourceIds: string[]) =>
    unwrap(await api.POST('/api/workspaces/{workspace_id}/tables/{table_id}/rows', { ...path(workspaceId, tableId), body: { source_ids: sourceIds, fill: true } })),
  )
}

export function useDeleteRow(workspaceId: string, tableId: string) {
  return useTableChange(workspaceId, tableId, async (sourceId: string) =>
    unwrap(
      await api.DELETE('/api/workspaces/{workspace_id}/tables/{table_id}/rows/{source_id}', {
        params: { path: { workspace_id: workspaceId, table_id: tableId, source_id: sourceId } },
      }),
    ),
  )
}

export function useFill(workspaceId: string, tableId: string) {
  return useTableChange(workspaceId, tableId, async () =>
    unwrap(await api.POST('/api/workspaces/{workspace_id}/tables/{table_id}/fill', path(workspaceId, tableId))),
  )
}

export function useDeleteTable(workspaceId: string) {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: async (tableId: string) => {
      const r = await api.DELETE('/api/workspaces/{workspace_id}/tables/{table_id}', path(workspaceId, tableId))
      if (!r.response.ok) throw await errorFromResponse(r.response)
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: tableKeys.list(workspaceId) }),
  })
}

export function exportHref(workspaceId: string, tableId: string, format: 'csv' | 'markdown'): string {
  return `/api/workspaces/${encodeURIComponent(workspaceId)}/tables/${encodeURIComponent(tableId)}/export?format=${format}`
}
