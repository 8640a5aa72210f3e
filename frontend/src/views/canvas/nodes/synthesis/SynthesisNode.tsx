// A saved answer on the canvas: its question and how many claims it makes.
import { memo } from 'react'
import type { Node, NodeProps } from '@xyflow/react'
import { NODE_SIZE, type SynthesisNodeData } from '../../model'
import { NodeFrame, useZoomedOut } from '../common'

export type SynthesisFlowNode = Node<SynthesisNodeData, 'synthesis'>

function SynthesisNodeView({ data, selected }: NodeProps<SynthesisFlowNode>) {
  const simple = useZoomedOut() || data.simple
  return (
    <NodeFrame
      {...NODE_SIZE.synthesis}
      testId="canvas-synthesis"
      label={`Saved answer: ${data.question}`}
      highlighted={data.highlighted}
      dimmed={data.dimmed}
      selected={selected}
      className="border-dashed border-rose-400 bg-rose-50 px-2.5 py-1.5 dark:border-rose-500 dark:bg-rose-950"
    >
      <p className="canvas-label line-clamp-2 text-[12px] font-medium leading-snug text-stone-900 dark:text-stone-50">{data.question}</p>
      {!simple && (
        <p className="canvas-label text-[11px] text-stone-600 dark:text-stone-300">
          Saved answer{data.claims !== null ? ` · ${data.claims} ${data.claims === 1 ? 'claim' : 'claims'}` : ''}
        </p>
      )}
    </NodeFrame>
  )
}

export const SynthesisNode = memo(SynthesisNodeView)
