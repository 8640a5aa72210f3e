// What every canvas node shares: handles top and bottom (edges run downwards), the
// highlight/dim state and the zoomed-out simplification.
import { Handle, Position, useStore, type ReactFlowState } from '@xyflow/react'
import type { ReactNode } from 'react'
import { cx } from '../../../lib/cx'

/** Below this zoom, nodes draw only their title (cheaper, and legible text is too small anyway). */
export const SIMPLE_ZOOM = 0.45
const zoomedOut = (s: ReactFlowState) => s.transform[2] < SIMPLE_ZOOM

export function useZoomedOut(): boolean {
  return useStore(zoomedOut)
}

export function NodeFrame(props: {
  width: number
  height: number
  highlighted: boolean
  dimmed: boolean
  selected: boolean
  className: string
  testId: string
  label: string
  /** A colour bar on the left edge (a source's year). */
  accent?: string
  children: ReactNode
}) {
  const { width, height, highlighted, dimmed, selected, className, testId, label, accent, children } = props
  return (
    <div
      data-testid={testId}
      data-highlighted={highlighted || undefined}
      data-dimmed={dimmed || undefined}
      aria-label={label}
      style={{ width, height, ...(accent ? { borderLeft: `6px solid ${accent}` } : {}) }}
      className={cx(
        'relative overflow-hidden rounded-lg border text-left shadow-sm transition-opacity',
        className,
        highlighted && 'ring-4 ring-amber-400 dark:ring-amber-300',
        selected && 'ring-4 ring-accent-600 dark:ring-accent-300',
        dimmed && 'opacity-30',
      )}
    >
      <Handle type="target" position={Position.Top} isConnectable={false} className="!h-1.5 !w-1.5 !min-w-0 !border-0 !bg-stone-400" />
      {children}
      <Handle type="source" position={Position.Bottom} isConnectable={false} className="!h-1.5 !w-1.5 !min-w-0 !border-0 !bg-stone-400" />
    </div>
  )
}
