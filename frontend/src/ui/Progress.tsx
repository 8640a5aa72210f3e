import * as P from '@radix-ui/react-progress'
import { cx } from '../lib/cx'

/** A progress bar; `value` null or undefined shows an indeterminate bar (no fake numbers). */
export function Progress({ value, label, tone = 'accent' }: { value: number | null | undefined; label: string; tone?: 'accent' | 'red' | 'green' }) {
  const known = typeof value === 'number' && Number.isFinite(value)
  const pct = known ? Math.max(0, Math.min(100, value * 100)) : null
  const bar = tone === 'red' ? 'bg-red-600' : tone === 'green' ? 'bg-emerald-600' : 'bg-accent-600 dark:bg-accent-400'
  return (
    <P.Root
      value={pct}
      max={100}
      aria-label={label}
      getValueLabel={(v) => `${Math.round(v)}%`}
      className="relative h-1.5 w-full overflow-hidden rounded-full bg-stone-200 dark:bg-stone-700"
    >
      <P.Indicator
        className={cx('h-full transition-[width] duration-300', bar, !known && 'progress-indeterminate w-2/5')}
        style={known ? { width: `${pct}%` } : undefined}
      />
    </P.Root>
  )
}
