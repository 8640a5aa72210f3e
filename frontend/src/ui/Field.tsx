import * as L from '@radix-ui/react-label'
import { forwardRef, type InputHTMLAttributes, type TextareaHTMLAttributes } from 'react'
import { cx } from '../lib/cx'

const control =
  'w-full rounded-md border border-stone-300 bg-white px-3 py-2 text-sm text-stone-900 placeholder:text-stone-500 dark:border-stone-600 dark:bg-stone-900 dark:text-stone-100 dark:placeholder:text-stone-400'

export const Input = forwardRef<HTMLInputElement, InputHTMLAttributes<HTMLInputElement>>(function Input(
  { className, ...props },
  ref,
) {
  return <input ref={ref} className={cx(control, 'h-10', className)} {...props} />
})

export const Textarea = forwardRef<HTMLTextAreaElement, TextareaHTMLAttributes<HTMLTextAreaElement>>(
  function Textarea({ className, ...props }, ref) {
    return <textarea ref={ref} className={cx(control, className)} {...props} />
  },
)

export function Label({ htmlFor, children }: { htmlFor: string; children: string }) {
  return (
    <L.Root htmlFor={htmlFor} className="mb-1 block text-sm font-medium text-stone-700 dark:text-stone-300">
      {children}
    </L.Root>
  )
}

export function ErrorText({ error }: { error: unknown }) {
  if (!error) return null
  const text = error instanceof Error ? error.message : String(error)
  return (
    <p role="alert" className="mt-2 text-sm text-red-700 dark:text-red-400">
      {text}
    </p>
  )
}
