// Server state of the canvas and the knowledge views (graph, concepts, claims).
import { useQuery } from '@tanstack/react-query'
import { api, unwrap } from '../../api/client'

export const canvasKeys = {
  graph: (workspaceId: string) => ['graph', workspaceId] as const,
  concepts: (workspaceId: string) => ['concepts', workspaceId] as const,
  claims: (workspaceId: string, sourceId?: string) => ['claims', workspaceId, sourceId ?? null] as const,
}

export function useGraph(workspaceId: string) {
  return useQuery({
    queryKey: canvasKeys.graph(workspaceId),
    queryFn: async () =>
      unwrap(
        await api.GET('/api/workspaces/{workspace_id}/graph', {
          params: { path: { workspace_id: workspaceId }, query: { max_concepts: 1000 } },
        }),
      ),
    // Keep showing the current graph while a live update refetches it.
    placeholderData: (previous) => previous,
  })
}

export function useClaims(workspaceId: string, sourceId?: string) {
  return useQuery({
    queryKey: canvasKeys.claims(workspaceId, sourceId),
    queryFn: async () =>
      unwrap(
        await api.GET('/api/workspaces/{workspace_id}/claims', {
          params: { path: { workspace_id: workspaceId }, query: sourceId ? { source_id: sourceId } : {} },
        }),
      ),
  })
}
