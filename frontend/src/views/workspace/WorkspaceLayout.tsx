import { NavLink, Outlet, useParams } from 'react-router'
import { useWorkspace } from '../../api/queries'
import { ErrorText } from '../../ui/Field'
import { cx } from '../../lib/cx'

const tabs = [
  { to: '', label: 'Sources', end: true },
  { to: 'chat', label: 'Chat' },
  { to: 'canvas', label: 'Canvas' },
  { to: 'path', label: 'Learning path' },
  { to: 'wiki', label: 'Wiki' },
  { to: 'evidence', label: 'Evidence' },
  { to: 'table', label: 'Tables' },
]

export function WorkspaceLayout() {
  const { workspaceId = '' } = useParams()
  const workspace = useWorkspace(workspaceId)
  return (
    <div className="flex flex-1 flex-col">
      <div className="border-b border-stone-200 bg-white dark:border-stone-800 dark:bg-stone-900">
        <div className="mx-auto max-w-7xl px-3 pt-4 sm:px-5">
          <h1 className="truncate font-serif text-xl font-semibold" title={workspace.data?.name}>
            {workspace.data?.name ?? (workspace.isPending ? '…' : 'Workspace')}
          </h1>
          <ErrorText error={workspace.error} />
          <nav aria-label="Workspace" className="-mb-px mt-2 flex gap-1 overflow-x-auto">
            {tabs.map((t) => (
              <NavLink
                key={t.label}
                to={t.to}
                end={t.end}
                className={({ isActive }) =>
                  cx(
                    'whitespace-nowrap border-b-2 px-3 py-2 text-sm',
                    isActive
                      ? 'border-accent-600 font-medium text-stone-900 dark:border-accent-400 dark:text-stone-50'
                      : 'border-transparent text-stone-600 hover:text-stone-900 dark:text-stone-400 dark:hover:text-stone-100',
                  )
                }
              >
                {t.label}
              </NavLink>
            ))}
          </nav>
        </div>
      </div>
      {workspace.isSuccess && <Outlet context={workspace.data} />}
    </div>
  )
}
