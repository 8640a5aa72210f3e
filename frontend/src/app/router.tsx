// Every view has a URL a researcher can bookmark and share. Views beyond the start page
// load on demand, so the first view carries no Markdown/KaTeX (and, later, no PDF or graph) code.
import { createBrowserRouter } from 'react-router'
import { Layout } from './Layout'
import { RouteError } from './RouteError'
import { WorkspacesPage } from '../views/workspaces/WorkspacesPage'
import { SignInPage } from '../views/signin/SignInPage'

export const router = createBrowserRouter([
  {
    path: '/',
    element: <Layout />,
    errorElement: <RouteError />,
    children: [
      { index: true, element: <WorkspacesPage /> },
      { path: 'sign-in', element: <SignInPage /> },
      {
        path: 'w/:workspaceId',
        lazy: async () => ({ Component: (await import('../views/workspace/WorkspaceLayout')).WorkspaceLayout }),
        children: [
          {
            index: true,
            lazy: async () => ({ Component: (await import('../views/workspace/WorkspaceHome')).WorkspaceHome }),
          },
          {
            path: 'chat/:conversationId?',
            lazy: async () => ({ Component: (await import('../views/chat/ChatPage')).ChatPage }),
          },
          // The later issues' views (canvas #15, path and wiki #15): routed now; the reader (#16).
          {
            path: 'canvas',
            lazy: async () => ({ Component: (await import('../views/canvas/CanvasPage')).CanvasPage }),
          },
          {
            path: 'path',
            lazy: async () => ({ Component: (await import('../views/path/PathView')).PathView }),
          },
          {
            path: 'evidence',
            lazy: async () => ({ Component: (await import('../views/evidence/EvidenceView')).EvidencePage }),
          },
          {
            path: 'table/:tableId?',
            lazy: async () => ({ Component: (await import('../views/table/TablesPage')).TablesPage }),
          },
          {
            path: 'wiki/:slug?',
            lazy: async () => ({ Component: (await import('../views/wiki/WikiPage')).WikiView }),
          },
          {
            path: 'read/:sourceId?',
            lazy: async () => ({ Component: (await import('../views/reader/ReaderPage')).ReaderPage }),
          },
        ],
      },
      { path: '*', element: <RouteError notFound /> },
    ],
  },
])
