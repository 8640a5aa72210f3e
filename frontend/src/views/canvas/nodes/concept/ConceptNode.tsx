// A concept on the canvas: name, level (0 foundational … 2 specialised), number of sources.
import { memo } from 'react'
import type { Node, NodeProps } from '@xyflow/react'
import { NODE_SIZE, type ConceptNodeData } from '../../model'
import { NodeFrame, useZoomedOut } from '../common'

export type ConceptFlowNode = Node<ConceptNodeData, 'concept'>

export const LEVEL_NAMES = ['foundational', 'intermediate', 'specialised'] as const

export function levelName(level: number): string {
  return LEVEL_NAMES[Math.max(0, Math.min(2, level))] ?? 'intermediate'
}

const levelStyle = [
  'border-emerald-400 bg-emerald-50 dark:border-emerald-500 dark:bg-emerald-950',
  'border-sky-400 bg-sky-50 dark:border-sky-500 dark:bg-sky-950',
  'border-amber-400 bg-amber-50 dark:border-amber-500 dark:bg-amber-950',
]

function ConceptNodeView({ data, selected }: NodeProps<ConceptFlowNode>) {
  const simple = useZoomedOut() || data.simple
  return (
    <NodeFrame
      {...NODE_SIZE.concept}
      testId="canvas-concept"
      label={`Concept: ${data.name}, ${levelName(data.level)}`}
      highlighted={data.highlighted}
      dimmed={data.dimmed}
      selected={selected}
      className={`rounded-full px-3 py-1 ${levelStyle[Math.max(0, Math.min(2, data.level))]}`}
    >
      <p className="truncate text-center text-[13px] font-medium text-stone-900 dark:text-stone-50">{data.name}</p>
      {!simple && (
        <p className="text-center text-[11px] text-stone-600 dark:text-stone-300" data-level={data.level}>
          L{data.level} {levelName(data.level)} · {data.sources} {data.sources === 1 ? 'source' : 'sources'}
        </p>
      )}
    </NodeFrame>
  )
}

export const ConceptNode = memo(ConceptNodeView)
