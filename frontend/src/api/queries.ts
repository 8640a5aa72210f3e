// Server state: TanStack Query hooks over the typed client. Keys are centralised so a
// job that finishes can invalidate exactly what it changed.
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query'
import { api, errorFromResponse, unwrap, type Chunk, type Job, type Source } from './client'

export const keys = {
  workspaces: ['workspaces'] as const,
  workspace: (id: string) => ['workspace', id] as const,
  sources: (workspaceId: string) => ['sources', workspaceId] as const,
  chunks: (sourceId: string) => ['chunks', sourceId] as const,
  jobs: ['jobs'] as const,
  job: (id: string) => ['job', id] as const,
  conversations: (workspaceId: string, sourceId?: string) =>
    ['conversations', workspaceId, sourceId ?? null] as const,
  conversation: (id: string) => ['conversation', id] as const,
  limits: ['limits'] as const,
  wikiPage: (workspaceId: string, slug: string) => ['wiki', workspaceId, slug] as const,
}

export function useWorkspaces() {
  return useQuery({
    queryKey: keys.workspaces,
    queryFn: async () => unwrap(await api.GET('/api/workspaces')),
  })
}

export function useWorkspace(id: string) {
  return useQuery({
    queryKey: keys.workspace(id),
    queryFn: async () =>
      unwrap(await api.GET('/api/workspaces/{workspace_id}', { params: { path: { workspace_id: id } } })),
  })
}

export function useCreateWorkspace() {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: async (body: { name: string; description: string }) =>
      unwrap(await api.POST('/api/workspaces', { body })),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.workspaces }),
  })
}

export function useUpdateWorkspace() {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: async ({ id, ...body }: { id: string; name?: string; description?: string }) =>
      unwrap(
        await api.PATCH('/api/workspaces/{workspace_id}', { params: { path: { workspace_id: id } }, body }),
      ),
    onSuccess: (_data, vars) => {
      void qc.invalidateQueries({ queryKey: keys.workspaces })
      void qc.invalidateQueries({ queryKey: keys.workspace(vars.id) })
    },
  })
}

export function useDeleteWorkspace() {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: async (id: string) => {
      const r = await api.DELETE('/api/workspaces/{workspace_id}', { params: { path: { workspace_id: id } } })
      if (!r.response.ok) throw await errorFromResponse(r.response)
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.workspaces }),
  })
}

export function useSources(workspaceId: string) {
  return useQuery({
    queryKey: keys.sources(workspaceId),
    queryFn: async () =>
      unwrap(
        await api.GET('/api/workspaces/{workspace_id}/sources', {
          params: { path: { workspace_id: workspaceId }, query: { limit: 1000 } },
        }),
      ),
  })
}

export function useDeleteSource(workspaceId: string) {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: async (id: string) => {
      const r = await api.DELETE('/api/sources/{source_id}', { params: { path: { source_id: id } } })
      if (!r.response.ok) throw await errorFromResponse(r.response)
    },
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: keys.sources(workspaceId) })
      void qc.invalidateQueries({ queryKey: keys.workspace(workspaceId) })
    },
  })
}

async function fetchChunks(sourceId: string): Promise<Chunk[]> {
  return unwrap(
    await api.GET('/api/sources/{source_id}/chunks', {
      params: { path: { source_id: sourceId }, query: { limit: 5000 } },
    }),
  )
}

/** A source's chunks; they never change once stored, so they are fetched once. */
export function useChunks(sourceId: string | null | undefined) {
  return useQuery({
    queryKey: keys.chunks(sourceId ?? ''),
    queryFn: () => fetchChunks(sourceId as string),
    enabled: Boolean(sourceId),
    staleTime: Infinity,
  })
}

/** Section counts per source (from the chunks' section titles, until the API counts them). */
export function useSectionCounts(sources: Source[]): Map<string, number | undefined> {
  const results = useQueries({
    queries: sources.map((s) => ({
      queryKey: keys.chunks(s.id),
      queryFn: () => fetchChunks(s.id),
      staleTime: Infinity,
      enabled: !('section_count' in s) && s.status === 'ready',
    })),
  })
  const counts = new Map<string, number | undefined>()
  sources.forEach((s, i) => {
    const given = (s as Source & { section_count?: number }).section_count
    const chunks = results[i]?.data
    counts.set(
      s.id,
      given ?? (chunks ? new Set(chunks.map((c) => `${c.section_type}|${c.section_title ?? ''}`)).size : undefined),
    )
  })
  return counts
}

export function useJobs() {
  return useQuery({
    queryKey: keys.jobs,
    queryFn: async () => unwrap(await api.GET('/api/jobs', { params: { query: { limit: 500 } } })),
    // Jobs started elsewhere (CLI, another tab) show up; running ones stream their own events.
    refetchInterval: 15_000,
  })
}

export function useJobAction() {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: async ({ id, action }: { id: string; action: 'resume' | 'retry' | 'cancel' }): Promise<Job> => {
      const path = { params: { path: { job_id: id } } }
      if (action === 'resume') return unwrap(await api.POST('/api/jobs/{job_id}/resume', path))
      if (action === 'retry') return unwrap(await api.POST('/api/jobs/{job_id}/retry', path))
      return unwrap(await api.POST('/api/jobs/{job_id}/cancel', path))
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.jobs }),
  })
}

export function useStartResearch(workspaceId: string) {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: async ({
      description,
      max_sources = 30,
      fetch = true,
      save_description = false,
    }: { description: string; max_sources?: number; fetch?: boolean; save_description?: boolean }) =>
      unwrap(
        await api.POST('/api/workspaces/{workspace_id}/research', {
          params: { path: { workspace_id: workspaceId } },
          body: { description, max_sources, fetch, save_description },
        }),
      ),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: keys.jobs })
      void qc.invalidateQueries({ queryKey: keys.workspace(workspaceId) })
    },
  })
}

export function useLimits() {
  return useQuery({
    queryKey: keys.limits,
    queryFn: async () => unwrap(await api.GET('/api/limits')),
    staleTime: Infinity,
  })
}

export function useConversations(workspaceId: string, sourceId?: string) {
  return useQuery({
    queryKey: keys.conversations(workspaceId, sourceId),
    queryFn: async () =>
      unwrap(
        await api.GET('/api/workspaces/{workspace_id}/conversations', {
          params: { path: { workspace_id: workspaceId }, query: sourceId ? { source_id: sourceId } : {} },
        }),
      ),
  })
}

export function useConversation(id: string | undefined) {
  return useQuery({
    queryKey: keys.conversation(id ?? ''),
    queryFn: async () =>
      unwrap(await api.GET('/api/conversations/{conversation_id}', { params: { path: { conversation_id: id! } } })),
    enabled: Boolean(id),
  })
}

export function useRenameConversation(workspaceId: string) {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: async ({ id, title }: { id: string; title: string }) =>
      unwrap(
        await api.PATCH('/api/conversations/{conversation_id}', {
          params: { path: { conversation_id: id } },
          body: { title },
        }),
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['conversations', workspaceId] }),
  })
}

export function useDeleteConversation(workspaceId: string) {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: async (id: string) => {
      const r = await api.DELETE('/api/conversations/{conversation_id}', {
        params: { path: { conversation_id: id } },
      })
      if (!r.response.ok) throw await errorFromResponse(r.response)
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: ['conversations', workspaceId] }),
  })
}

export function useWikiPage(workspaceId: string, slug: string | null | undefined) {
  return useQuery({
    queryKey: keys.wikiPage(workspaceId, slug ?? ''),
    queryFn: async () =>
      unwrap(
        await api.GET('/api/workspaces/{workspace_id}/wiki/{slug}', {
          params: { path: { workspace_id: workspaceId, slug: slug! } },
        }),
      ),
    enabled: Boolean(slug),
    staleTime: 60_000,
  })
}

/** Upload files as one request (multipart "files"); returns the response body as JSON. */
export async function uploadFiles(workspaceId: string, files: File[]): Promise<unknown> {
  const form = new FormData()
  for (const f of files) form.append('files', f, f.name)
  const response = await fetch(`/api/workspaces/${encodeURIComponent(workspaceId)}/sources`, {
    method: 'POST',
    body: form,
  })
  if (!response.ok) throw await errorFromResponse(response)
  return response.json()
}

// ---------------------------------------------------------------- accounts (issue 18)

export const meKey = ['me'] as const

/** The server's mode and who is signed in (accounts mode); local mode has no user. */
export function useMe() {
  return useQuery({
    queryKey: meKey,
    queryFn: async () => unwrap(await api.GET('/api/auth/me')),
    staleTime: 60_000,
  })
}

export function useSignIn() {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: async (body: { email: string; password: string }) =>
      unwrap(await api.POST('/api/auth/session', { body })),
    // Everything cached belonged to nobody (or to the previous user): start over.
    onSuccess: () => qc.resetQueries(),
  })
}

export function useSignOut() {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: async () => {
      const result = await api.DELETE('/api/auth/session')
      if (!result.response.ok) throw await errorFromResponse(result.response)
    },
    onSuccess: () => {
      qc.clear()
      void qc.invalidateQueries({ queryKey: meKey })
    },
  })
}

// Citation chasing (issue 36): a source's references / citing works, and adding chosen works.
export function useCitationList(sourceId: string, direction: 'references' | 'cited-by', poll = false) {
  return useQuery({
    queryKey: ['citations', sourceId, direction] as const,
    // While added works are being imported, look again until they are in the workspace.
    refetchInterval: poll ? 3000 : false,
    queryFn: async () => {
      const path = { params: { path: { source_id: sourceId } } }
      return direction === 'references'
        ? unwrap(await api.GET('/api/sources/{source_id}/references', path))
        : unwrap(await api.GET('/api/sources/{source_id}/cited-by', path))
    },
  })
}

export function useSuggestions(workspaceId: string, enabled: boolean) {
  return useQuery({
    queryKey: ['suggestions', workspaceId] as const,
    enabled,
    queryFn: async () =>
      unwrap(
        await api.GET('/api/workspaces/{workspace_id}/suggestions', {
          params: { path: { workspace_id: workspaceId }, query: { limit: 30 } },
        }),
      ),
  })
}

export type WorkToAdd = {
  title?: string | null
  doi?: string | null
  arxiv_id?: string | null
  openalex_id?: string | null
  catalog_id?: string | null
  year?: number | null
}

export function useAddWorks(workspaceId: string) {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: async (works: WorkToAdd[]) =>
      unwrap(
        await api.POST('/api/workspaces/{workspace_id}/works', {
          params: { path: { workspace_id: workspaceId } },
          body: { works, fetch: true },
        }),
      ),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: keys.jobs })
      void qc.invalidateQueries({ queryKey: ['citations'] })
      void qc.invalidateQueries({ queryKey: ['suggestions', workspaceId] })
    },
  })
}
