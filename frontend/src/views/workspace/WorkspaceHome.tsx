import { useOutletContext } from 'react-router'
import type { WorkspaceDetail } from '../../api/client'
import { SourcesTable } from './SourcesTable'
import { JobPanel } from './JobPanel'
import { UploadPanel } from './UploadPanel'
import { ResearchPanel } from './ResearchPanel'
import { SuggestionsPanel } from './SuggestionsPanel'

export function WorkspaceHome() {
  const workspace = useOutletContext<WorkspaceDetail>()
  return (
    <main className="mx-auto grid w-full max-w-7xl grid-cols-1 gap-5 px-3 py-5 sm:px-5 lg:grid-cols-[minmax(0,1fr)_22rem]">
      <div className="min-w-0">
        <SourcesTable workspaceId={workspace.id} />
      </div>
      <aside className="grid min-w-0 content-start gap-5" aria-label="Add sources and jobs">
        <UploadPanel workspaceId={workspace.id} />
        <ResearchPanel workspace={workspace} />
        <SuggestionsPanel workspaceId={workspace.id} />
        <JobPanel workspaceId={workspace.id} />
      </aside>
    </main>
  )
}
