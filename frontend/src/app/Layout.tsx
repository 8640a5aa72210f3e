import type { ReactElement } from 'react'
import { Link, Navigate, Outlet, useLocation, useSearchParams } from 'react-router'
import { useMe, useSignOut } from '../api/queries'
import { safeNext } from '../views/signin/SignInPage'
import { ThemeMenu, useApplyTheme } from './theme'

/** Accounts mode: nobody signed in goes to the sign-in page (and comes back after). */
function useSignInGate(): { gate: ReactElement | null; email: string | null } {
  const me = useMe()
  const location = useLocation()
  const [params] = useSearchParams()
  const onSignIn = location.pathname === '/sign-in'
  if (me.isPending) return { gate: <p className="p-6 text-stone-600 dark:text-stone-400">Loading…</p>, email: null }
  const accounts = me.data?.mode === 'accounts'
  const user = me.data?.user ?? null
  if (accounts && !user && !onSignIn) {
    const next = encodeURIComponent(location.pathname + location.search)
    return { gate: <Navigate to={`/sign-in?next=${next}`} replace />, email: null }
  }
  if (onSignIn && (!accounts || user)) return { gate: <Navigate to={safeNext(params.get('next'))} replace />, email: null }
  return { gate: null, email: accounts && user ? user.email : null }
}

export function Layout() {
  useApplyTheme()
  const { gate, email } = useSignInGate()
  const signOut = useSignOut()
  return (
    <div className="flex min-h-screen flex-col">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 dark:focus:bg-stone-900"
      >
        Skip to content
      </a>
      <header className="border-b border-stone-200 bg-white/80 dark:border-stone-800 dark:bg-stone-900/80">
        <div className="mx-auto flex h-12 max-w-7xl items-center justify-between gap-3 px-3 sm:px-5">
          <Link to="/" className="font-serif text-lg font-semibold tracking-tight">
            Marginalia
          </Link>
          <nav aria-label="Site" className="flex items-center gap-1 text-sm">
            <a className="rounded px-2 py-1 text-stone-700 hover:bg-stone-100 dark:text-stone-300 dark:hover:bg-stone-800" href="/docs">
              API
            </a>
            <ThemeMenu />
            {email && (
              <>
                <span className="hidden max-w-48 truncate px-2 text-stone-600 sm:inline dark:text-stone-400" data-testid="signed-in-as">
                  {email}
                </span>
                <button
                  type="button"
                  className="rounded px-2 py-1 text-stone-700 hover:bg-stone-100 dark:text-stone-300 dark:hover:bg-stone-800"
                  onClick={() => signOut.mutate()}
                  data-testid="sign-out"
                >
                  Sign out
                </button>
              </>
            )}
          </nav>
        </div>
      </header>
      <div id="main" className="flex flex-1 flex-col">
        {gate ?? <Outlet />}
      </div>
    </div>
  )
}
