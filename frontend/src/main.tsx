import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { RouterProvider } from 'react-router'
import { router } from './app/router'
import { ApiError } from './api/client'
import { meKey } from './api/queries'
import './index.css'

const queryClient: QueryClient = new QueryClient({
  // A 401 means the session ended (accounts mode): ask who we are again, and the layout
  // sends the researcher to the sign-in page.
  queryCache: new QueryCache({
    onError: (error) => {
      if (error instanceof ApiError && error.status === 401) void queryClient.invalidateQueries({ queryKey: meKey })
    },
  }),
  defaultOptions: {
    queries: {
      staleTime: 5_000,
      // A 4xx (unknown workspace, bad id) will not fix itself: show it at once.
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
      refetchOnWindowFocus: true,
    },
  },
})

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
)
