import * as Menu from '@radix-ui/react-dropdown-menu'
import { useEffect } from 'react'
import { resolveDark, useUi, type Theme } from '../store'

/** Keep <html class="dark"> in step with the chosen theme and, for "system", the OS. */
export function useApplyTheme() {
  const theme = useUi((s) => s.theme)
  useEffect(() => {
    const apply = () => document.documentElement.classList.toggle('dark', resolveDark(theme))
    apply()
    if (theme !== 'system' || typeof matchMedia !== 'function') return
    const query = matchMedia('(prefers-color-scheme: dark)')
    query.addEventListener('change', apply)
    return () => query.removeEventListener('change', apply)
  }, [theme])
}

const labels: Record<Theme, string> = { system: 'System', light: 'Light', dark: 'Dark' }

export function ThemeMenu() {
  const theme = useUi((s) => s.theme)
  const setTheme = useUi((s) => s.setTheme)
  const item =
    'flex cursor-default select-none items-center gap-2 rounded px-2 py-1.5 text-sm outline-none data-[highlighted]:bg-stone-100 dark:data-[highlighted]:bg-stone-800'
  return (
    <Menu.Root>
      <Menu.Trigger
        data-testid="theme-toggle"
        className="rounded px-2 py-1 text-stone-700 hover:bg-stone-100 dark:text-stone-300 dark:hover:bg-stone-800"
        aria-label={`Theme: ${labels[theme]}`}
      >
        {resolveDark(theme) ? '☾' : '☀'} <span className="hidden sm:inline">{labels[theme]}</span>
      </Menu.Trigger>
      <Menu.Portal>
        <Menu.Content
          align="end"
          sideOffset={4}
          className="z-50 min-w-32 rounded-md border border-stone-200 bg-white p-1 shadow-lg dark:border-stone-700 dark:bg-stone-900"
        >
          <Menu.RadioGroup value={theme} onValueChange={(v) => setTheme(v as Theme)}>
            {(Object.keys(labels) as Theme[]).map((t) => (
              <Menu.RadioItem key={t} value={t} className={item} data-testid={`theme-${t}`}>
                <Menu.ItemIndicator className="w-3">✓</Menu.ItemIndicator>
                <span className={theme === t ? '' : 'pl-5'}>{labels[t]}</span>
              </Menu.RadioItem>
            ))}
          </Menu.RadioGroup>
        </Menu.Content>
      </Menu.Portal>
    </Menu.Root>
  )
}
