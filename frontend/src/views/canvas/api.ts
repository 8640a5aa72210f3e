// Server state of the canvas and the knowledge views (graph, concepts, claims).
import { useInfiniteQuery, useQuery } from '@tanstack/react-query'
import { useMemo } from 'react'
import { api, unwrap, type Schemas } from '../../api/client'

/** Nodes per page of the graph (the server's default; it bounds it at 5,000). */
export const GRAPH_PAGE_SIZE = 1500

export const canvasKeys = {
  graph: (workspaceId: string) => ['graph', workspaceId] as const,
  concepts: (workspaceId: string) => ['concepts', workspaceId] as const,
  claims: (workspaceId: string, sourceId?: string) => ['claims', workspaceId, sourceId ?? null] as const,
}

/** The graph, a page at a time (most important nodes first): `data` is the pages loaded so
 * far joined (each page's edges close on it, so the join repeats nothing); `loadMore`
 * fetches the next page; `remaining` says how many nodes are not loaded yet. */
export function useGraph(workspaceId: string) {
  const query = useInfiniteQuery({
    queryKey: canvasKeys.graph(workspaceId),
    initialPageParam: null as string | null,
    queryFn: async ({ pageParam }) =>
      unwrap(
        await api.GET('/api/workspaces/{workspace_id}/graph', {
          params: {
            path: { workspace_id: workspaceId },
            query: { max_concepts: 1000, limit: GRAPH_PAGE_SIZE, ...(pageParam ? { cursor: pageParam } : {}) },
          },
        }),
      ),
    getNextPageParam: (last) => last.next_cursor ?? null,
    // Keep showing the current graph while a live update refetches it.
    placeholderData: (previous) => previous,
  })
  const pages = query.data?.pages
  const data = useMemo<Schemas['GraphView'] | undefined>(() => {
    if (!pages?.length) return undefined
    const last = pages[pages.length - 1]!
    return {
      nodes: pages.flatMap((p) => p.nodes),
      edges: pages.flatMap((p) => p.edges),
      total_nodes: last.total_nodes,
      remaining: last.remaining,
      next_cursor: last.next_cursor,
      // The topic clusters of the whole snapshot (every page carries them all).
      topics: last.topics ?? [],
    }
  }, [pages])
  return {
    data,
    error: query.error,
    isPending: query.isPending,
    remaining: data?.remaining ?? 0,
    total: data?.total_nodes ?? 0,
    hasMore: query.hasNextPage,
    loadingMore: query.isFetchingNextPage,
    loadMore: () => void query.fetchNextPage(),
  }
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
