// A source on the canvas: title, first author, year, citations, quality; a badge when it
// sits in a redundancy cluster.
import { memo } from 'react'
import type { Node, NodeProps } from '@xyflow/react'
import { NODE_SIZE, type SourceNodeData } from '../../model'
import { NodeFrame, useZoomedOut } from '../common'

export type SourceFlowNode = Node<SourceNodeData, 'source'>

function SourceNodeView({ data, selected }: NodeProps<SourceFlowNode>) {
  const simple = useZoomedOut() || data.simple
  const meta = [data.firstAuthor, data.year].filter(Boolean).join(' · ')
  return (
    <NodeFrame
      width={data.width ?? NODE_SIZE.source.width}
      height={NODE_SIZE.source.height}
      testId="canvas-source"
      label={`Source: ${data.title}`}
      highlighted={data.highlighted}
      dimmed={data.dimmed}
      selected={selected}
      className="border-stone-300 bg-white px-2.5 py-1.5 dark:border-stone-600 dark:bg-stone-900"
      accent={data.attribute?.color ?? data.yearColor}
    >
      <p className="canvas-label line-clamp-2 font-serif text-[13px] font-semibold leading-snug text-stone-900 dark:text-stone-50">{data.title}</p>
      {!simple && (
        <>
          <p className="canvas-label truncate text-[11px] text-stone-600 dark:text-stone-400">{meta || 'Unknown author'}</p>
          <p className="canvas-label mt-0.5 flex items-center gap-2 whitespace-nowrap text-[11px] text-stone-700 dark:text-stone-300">
            <span title="Citations">❝ {data.citations ?? '—'}</span>
            <span title="Quality score">★ {data.quality === null ? '—' : Math.round(data.quality)}</span>
            {data.citedByHere > 0 && <span title="Cited by this many sources of the workspace">↩ {data.citedByHere}</span>}
            {data.attribute && (
              <span
                data-testid="canvas-attribute-value"
                title={data.attribute.value ?? 'No value in the table column'}
                className="ml-auto min-w-0 truncate rounded border border-stone-300 px-1 text-[11px] font-medium text-stone-800 dark:border-stone-600 dark:text-stone-100"
              >
                {data.attribute.value ?? '—'}
              </span>
            )}
            {data.clusterId && (
              <span
                data-testid="cluster-badge"
                title={`In a redundancy cluster of ${data.clusterSize} near-duplicate sources`}
                className={`${data.attribute ? '' : 'ml-auto '}shrink-0 rounded bg-violet-100 px-1.5 text-[11px] font-medium text-violet-800 dark:bg-violet-900/60 dark:text-violet-100`}
              >
                cluster ×{data.clusterSize}
              </span>
            )}
          </p>
        </>
      )}
    </NodeFrame>
  )
}

export const SourceNode = memo(SourceNodeView)
