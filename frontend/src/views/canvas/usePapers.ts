// The papers-first view's state (issue 33): which topics are expanded — every one when the
// whole map fits at a legible zoom, else none (the ?focus source's topic either way) — its
// graph and layout, and a newly expanded topic brought into view at a legible zoom.
// Semantic zoom: zooming in on a group node expands its topic, zooming far out collapses
// the expanded ones (evaluated once the zoom has settled, not on every frame).
import { useCallback, useEffect, useMemo, useRef, useState, type RefObject } from 'react'
import { useReactFlow, type Viewport } from '@xyflow/react'
import type { Graph } from './model'
import { LEGIBLE_ZOOM, anchoredViewport, initialExpanded, legibleViewport, papersView, semanticZoom, topicOf, type PapersView } from './papers'

const MAX_ZOOM = 1.2
/** How long a zoom must have settled before topics expand or collapse. */
const SEMANTIC_ZOOM_DELAY_MS = 200
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
): {
  papers: PapersView | null
  setExpanded: (f: (prev: Set<string> | null) => Set<string>) => void
  toggleTopic: (topicId: string) => void
  /** React Flow's onMoveStart / onMoveEnd, and the zoom buttons' (a zoom by the user too). */
  onMoveStart: (event: MouseEvent | TouchEvent | null, viewport: Viewport) => void
  onMoveEnd: (event: MouseEvent | TouchEvent | null, viewport: Viewport) => void
  onZoomButton: () => void
} {
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

  // Semantic zoom. A move counts when the user made it (an event, or a zoom button); the
  // zoom it started from is the first move's since the last evaluation.
  const latest = useRef({ papers, expanded })
  latest.current = { papers, expanded }
  const startZoom = useRef<number | null>(null)
  const byButton = useRef(false)
  const pointer = useRef<{ x: number; y: number } | null>(null)
  const timer = useRef(0)
  /** A topic to keep where it was on screen once the map is laid out again. */
  const anchor = useRef<{ topic: string; at: { x: number; y: number } } | null>(null)
  useEffect(() => () => clearTimeout(timer.current), [])
  const onMoveStart = useCallback((_: MouseEvent | TouchEvent | null, viewport: Viewport) => {
    startZoom.current ??= viewport.zoom
  }, [])
  const onZoomButton = useCallback(() => {
    byButton.current = true
  }, [])
  const evaluate = useCallback(
    (viewport: Viewport) => {
      const from = startZoom.current ?? viewport.zoom
      startZoom.current = null
      const { papers: view, expanded: open } = latest.current
      const pane = canvasRef.current?.getBoundingClientRect()
      if (!view || !open || !pane?.width) return
      const at = pointer.current ?? { x: pane.width / 2, y: pane.height / 2 }
      pointer.current = null
      const change = semanticZoom(view.topicBoxes, open, viewport, from, pane, at)
      if (!change) return
      // The topic that stays put on screen: the one expanded, or the one nearest the centre.
      const screen = (b: { x: number; y: number; width: number; height: number }) => ({
        x: (b.x + b.width / 2) * viewport.zoom + viewport.x,
        y: (b.y + b.height / 2) * viewport.zoom + viewport.y,
      })
      let keep: string
      if ('expand' in change) keep = change.expand
      else {
        const mid = { x: pane.width / 2, y: pane.height / 2 }
        keep = [...view.topicBoxes.keys()].reduce((a, b) => {
          const d = (id: string) => {
            const p = screen(view.topicBoxes.get(id)!)
            return (p.x - mid.x) ** 2 + (p.y - mid.y) ** 2
          }
          return d(b) < d(a) ? b : a
        })
      }
      anchor.current = { topic: keep, at: screen(view.topicBoxes.get(keep)!) }
      setExpanded((prev) => {
        const next = new Set(prev ?? [])
        if ('expand' in change) next.add(change.expand)
        else for (const id of change.collapse) next.delete(id)
        return next
      })
    },
    [canvasRef],
  )
  const onMoveEnd = useCallback(
    (event: MouseEvent | TouchEvent | null, viewport: Viewport) => {
      const user = event !== null || byButton.current
      byButton.current = false
      clearTimeout(timer.current)
      if (!user) {
        // Moved by code (the first view, a topic or node brought into view): no change.
        startZoom.current = null
        return
      }
      const pane = canvasRef.current?.getBoundingClientRect()
      if (event && 'clientX' in event && pane) pointer.current = { x: event.clientX - pane.left, y: event.clientY - pane.top }
      timer.current = window.setTimeout(() => evaluate(viewport), SEMANTIC_ZOOM_DELAY_MS)
    },
    [evaluate, canvasRef],
  )
  useEffect(() => {
    const a = anchor.current
    const box = a ? papers?.topicBoxes.get(a.topic) : undefined
    const pane = canvasRef.current?.getBoundingClientRect()
    if (!a || !box || !pane) return
    anchor.current = null
    void flow.setViewport(anchoredViewport(box, a.at, flow.getZoom(), pane))
  }, [papers, flow, canvasRef])
  return { papers, setExpanded, toggleTopic, onMoveStart, onMoveEnd, onZoomButton }
}
