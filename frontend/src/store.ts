// The one store for UI state (server state lives in TanStack Query). Only the theme
// and table preferences are remembered across visits.
import { create } from 'zustand'
import { persist } from 'zustand/middleware'

export type Theme = 'system' | 'light' | 'dark'
export type SourceSortKey = 'title' | 'year' | 'citations' | 'quality' | 'added' | 'sections'

export interface OpenCitation {
  /** Which button: answer (message id or live key), claim and number. */
  id: string
  n: number
  quote: string | null
}

interface UiState {
  theme: Theme
  setTheme: (theme: Theme) => void
  sourceSort: { key: SourceSortKey; descending: boolean }
  setSourceSort: (key: SourceSortKey) => void
  sourceFilter: string
  setSourceFilter: (text: string) => void
  /** The passage a clicked [n] shows (chat now; the reader later opens the PDF page). */
  citation: OpenCitation | null
  openCitation: (citation: OpenCitation | null) => void
  /** Jobs this tab started, newest first: their panels open expanded. */
  watchedJobs: string[]
  watchJob: (id: string) => void
}

export const useUi = create<UiState>()(
  persist(
    (set) => ({
      theme: 'system',
      setTheme: (theme) => set({ theme }),
      sourceSort: { key: 'added', descending: true },
      setSourceSort: (key) =>
        set((s) => ({
          sourceSort: { key, descending: s.sourceSort.key === key ? !s.sourceSort.descending : key !== 'title' },
        })),
      sourceFilter: '',
      setSourceFilter: (sourceFilter) => set({ sourceFilter }),
      citation: null,
      openCitation: (citation) => set({ citation }),
      watchedJobs: [],
      watchJob: (id) => set((s) => ({ watchedJobs: [id, ...s.watchedJobs.filter((j) => j !== id)].slice(0, 50) })),
    }),
    {
      name: 'marginalia-ui',
      partialize: (s) => ({ theme: s.theme, sourceSort: s.sourceSort }),
    },
  ),
)

/** Whether the page is dark now: the chosen theme, or the system's when "system". */
export function resolveDark(theme: Theme): boolean {
  if (theme === 'dark') return true
  if (theme === 'light') return false
  return typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches
}
