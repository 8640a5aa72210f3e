import { Link, Outlet } from 'react-router'
import { ThemeMenu, useApplyTheme } from './theme'

export function Layout() {
  useApplyTheme()
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
          </nav>
        </div>
      </header>
      <div id="main" className="flex flex-1 flex-col">
        <Outlet />
      </div>
    </div>
  )
}
