// The papers-first view's state (issue 33): which topics are expanded — every one when the
// whole map fits at a legible zoom, else none (the ?focus source's topic either way) — its
// graph and layout, and a newly expanded topic brought into view at a legible zoom.
import { useCallback, useEffect, useMemo, useRef, useState, type RefObject } from 'react'
import { useReactFlow } from '@xyflow/react'
import type { Graph } from './model'
import { LEGIBLE_ZOOM, initialExpanded, legibleViewport, papersView, topicOf, type PapersView } from './papers'

const MAX_ZOOM = 1.2
/** The minimap's size; the first view keeps its corner free (above sm, where it is shown). */
export const MINIMAP = { width: 180, height: 120 }
/** The width the first view fits into: the pane less the minimap's column when it is shown. */
export const paneWidth = (width: number) =>
  (typeof window !== 'undefined' && window.matchMedia('(max-width: 639px)').matches) || width < 640 ? width : width - MINIMAP.width - 16

export function usePapers(
  graph: Graph | null,
  allConcepts: boolean,
  focus: string | null,
  selected: string | null,
  canvasRef: RefObject<HTMLDivElement | null>,
): { papers: PapersView | null; setExpanded: (f: (prev: Set<string> | null) => Set<string>) => void; toggleTopic: (topicId: string) => void } {
  const flow = useReactFlow()
  /** The topics shown expanded (null: not decided yet). */
  const [expanded, setExpanded] = useState<Set<string> | null>(null)
  useEffect(() => {
    if (!graph || expanded || allConcepts) return
    const pane = canvasRef.current?.getBoundingClientRect()
    const open = initialExpanded(graph, { width: paneWidth(pane?.width || 800), height: pane?.height || 600 })
    // The ?focus node's topic is open (a pinned answer's is the pinned answers' group).
    const node = focus ? graph.nodes.find((n) => n.id === focus) : undefined
    const topic = node ? topicOf(graph, node) : null
    if (topic) open.add(topic)
    setExpanded(open)
  }, [graph, expanded, allConcepts, focus, canvasRef])
  const papers = useMemo(
    () => (graph && expanded && !allConcepts ? papersView(graph, expanded, selected) : null),
    [graph, expanded, allConcepts, selected],
  )
  const centreTopic = useRef<string | null>(null)
  const toggleTopic = useCallback((topicId: string) => {
    setExpanded((prev) => {
      const next = new Set(prev ?? [])
      if (!next.delete(topicId)) {
        next.add(topicId)
        centreTopic.current = topicId
      }
      return next
    })
  }, [])
  useEffect(() => {
    const id = centreTopic.current
    const box = id ? papers?.topicBoxes.get(id) : undefined
    const pane = canvasRef.current?.getBoundingClientRect()
    if (!box || !pane) return
    centreTopic.current = null
    void flow.setViewport(legibleViewport(box, { width: paneWidth(pane.width), height: pane.height }, LEGIBLE_ZOOM, MAX_ZOOM), { duration: 300 })
  }, [papers, flow, canvasRef])
  return { papers, setExpanded, toggleTopic }
}
