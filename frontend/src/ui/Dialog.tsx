import * as D from '@radix-ui/react-dialog'
import * as A from '@radix-ui/react-alert-dialog'
import type { ReactNode } from 'react'
import { Button } from './Button'

const overlay = 'fixed inset-0 z-40 bg-black/40 backdrop-blur-[1px]'
const panel =
  'fixed left-1/2 top-1/2 z-50 max-h-[90vh] w-[min(32rem,calc(100vw-2rem))] -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-lg border border-stone-200 bg-white p-5 shadow-xl dark:border-stone-700 dark:bg-stone-900'

export function Dialog(props: {
  open: boolean
  onOpenChange: (open: boolean) => void
  title: string
  description?: string
  children: ReactNode
  wide?: boolean
}) {
  return (
    <D.Root open={props.open} onOpenChange={props.onOpenChange}>
      <D.Portal>
        <D.Overlay className={overlay} />
        <D.Content className={panel + (props.wide ? ' w-[min(46rem,calc(100vw-2rem))]' : '')} aria-describedby={props.description ? undefined : undefined}>
          <D.Title className="text-lg font-semibold">{props.title}</D.Title>
          {props.description ? (
            <D.Description className="mt-1 text-sm text-stone-600 dark:text-stone-400">{props.description}</D.Description>
          ) : (
            <D.Description className="sr-only">{props.title}</D.Description>
          )}
          <div className="mt-4">{props.children}</div>
          <D.Close asChild>
            <button
              className="absolute right-3 top-3 rounded p-1 text-stone-500 hover:bg-stone-100 dark:hover:bg-stone-800"
              aria-label="Close"
            >
              ✕
            </button>
          </D.Close>
        </D.Content>
      </D.Portal>
    </D.Root>
  )
}

/** A destructive action asks first (Radix AlertDialog: focus goes to Cancel). */
export function ConfirmDialog(props: {
  open: boolean
  onOpenChange: (open: boolean) => void
  title: string
  description: string
  confirmLabel: string
  onConfirm: () => void
  busy?: boolean
}) {
  return (
    <A.Root open={props.open} onOpenChange={props.onOpenChange}>
      <A.Portal>
        <A.Overlay className={overlay} />
        <A.Content className={panel}>
          <A.Title className="text-lg font-semibold">{props.title}</A.Title>
          <A.Description className="mt-2 text-sm text-stone-700 dark:text-stone-300">{props.description}</A.Description>
          <div className="mt-5 flex justify-end gap-2">
            <A.Cancel asChild>
              <Button>Cancel</Button>
            </A.Cancel>
            <A.Action asChild>
              <Button variant="danger" disabled={props.busy} onClick={props.onConfirm}>
                {props.confirmLabel}
              </Button>
            </A.Action>
          </div>
        </A.Content>
      </A.Portal>
    </A.Root>
  )
}
