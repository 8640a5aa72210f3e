// A topic cluster (papers-first view). Collapsed: one group node standing for its sources,
// its label (the cluster's characteristic concepts) as DOM text; a click expands it.
// Expanded: the frame behind its sources, with the label and a click to collapse.
import { memo } from 'react'
import type { Node, NodeProps } from '@xyflow/react'
import type { ClusterNodeData } from '../../model'
import { cx } from '../../../../lib/cx'

export type ClusterFlowNode = Node<ClusterNodeData, 'cluster'>

function ClusterNodeView({ data, selected }: NodeProps<ClusterFlowNode>) {
  const count = `${data.sources} ${data.sources === 1 ? (data.topicId === 'pinned' ? 'answer' : 'source') : data.topicId === 'pinned' ? 'answers' : 'sources'}`
  if (data.expanded)
    return (
      <div
        data-testid="canvas-topic-frame"
        data-topic={data.topicId}
        style={{ width: data.width, height: data.height }}
        className="pointer-events-none rounded-2xl border-2 border-dashed border-teal-500/70 bg-teal-50/50 dark:border-teal-400/60 dark:bg-teal-950/30"
      >
        <button
          type="button"
          data-testid="canvas-topic-collapse"
          aria-expanded="true"
          className="canvas-label pointer-events-auto m-2 max-w-[calc(100%-1rem)] truncate rounded px-1.5 py-0.5 text-left text-[14px] font-semibold text-teal-900 hover:bg-teal-100 dark:text-teal-100 dark:hover:bg-teal-900"
          title="Show this topic as one group"
        >
          ▾ {data.label} <span className="font-normal text-teal-800 dark:text-teal-200">· {count}</span>
        </button>
      </div>
    )
  return (
    <div
      data-testid="canvas-cluster"
      data-topic={data.topicId}
      aria-label={`Topic: ${data.label}, ${count}${data.years ? `, ${data.years}` : ''}; activate or zoom in to show them`}
      style={{ width: data.width, height: data.height }}
      className={cx(
        'flex cursor-pointer flex-col justify-between rounded-2xl border-2 border-teal-500 bg-teal-50 px-3 py-2 text-left shadow-sm dark:border-teal-400 dark:bg-teal-950',
        selected && 'ring-4 ring-accent-600 dark:ring-accent-300',
        data.dimmed && 'opacity-30',
      )}
    >
      <p title={data.label} className="canvas-label line-clamp-3 text-[15px] font-semibold leading-snug text-teal-950 dark:text-teal-50">{data.label}</p>
      <p className="canvas-label text-[13px] text-teal-900 dark:text-teal-100">
        {count}
        {data.years ? ` · ${data.years}` : ''}
      </p>
      <p className="canvas-label text-[12px] text-teal-800 dark:text-teal-200">▸ Click or zoom in to show them</p>
    </div>
  )
}

export const ClusterNode = memo(ClusterNodeView)
