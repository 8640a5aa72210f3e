// The canvas: sources, concepts and saved answers as a map. ELK lays each connected
// component out in a Web Worker (cached by graph hash); components are packed in a grid.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import { useOutletContext, useSearchParams } from 'react-router'
import {
  Background,
  Controls,
  MarkerType,
  MiniMap,
  ReactFlow,
  ReactFlowProvider,
  getViewportForBounds,
  useReactFlow,
  useStore,
  type ReactFlowState,
  type Edge,
  type Node,
  type NodeChange,
  type Viewport,
} from '@xyflow/react'
import '@xyflow/react/dist/style.css'
import type { WorkspaceDetail } from '../../api/client'
import { useSources } from '../../api/queries'
import { resolveDark, useUi } from '../../store'
import { Button } from '../../ui/Button'
import { ErrorText } from '../../ui/Field'
import { useGraph } from './api'
import { EDGE_STYLES, EDGE_TYPES, edgeCss } from './edges'
import { defaultFilters, edgeVisible, highlightFor, visibleNodeIds, type Filters } from './focus'
import { LayoutCache } from './layout/cache'
import { createElkEngine, layoutGraph, type GraphLayout } from './layout/engine'
import { toGraph, type CanvasNodeData, type GEdge, type Graph, type SourceNodeData } from './model'
import { nodeTypes } from './nodes'
import { ARROW_KEYS, nearestInDirection } from './keyboard'
import { LiveUpdates } from './LiveUpdates'
import { ClusterBoxes, clusterBoxes } from './clusters'
import { OVERVIEW_ZOOM, Overview } from './Overview'
import { LEGIBLE_ZOOM, bounds as layoutBounds, legibleViewport, topicGroups, topicOf } from './papers'
import { MINIMAP, paneWidth, usePapers } from './usePapers'
import { YearLegend, nodeAria, nodeSize } from './PapersLegend'
import { SidePanel } from './SidePanel'
import { AttributeBar, useCanvasAttribute } from './AttributeBar'
import { Toolbar } from './Toolbar'

/** Layout time limit: past it the worker is terminated and the rest becomes a grid. */
const LAYOUT_TIME_LIMIT_MS = 20_000
/** Past this many nodes only what is on screen is rendered. */
const VISIBLE_ONLY_ABOVE = 300
/** The first render after a layout adds this many nodes per task (nearest the view's centre
 * first), so no main-thread task runs long; a live update's few new nodes come at once. */
const REVEAL_CHUNK = 24
const FIT_PADDING = 0.1
const FIT_MAX_ZOOM = 1.2
const FOCUS_ZOOM = 1.1

let sharedCache: LayoutCache | null = null
function layoutCache(): LayoutCache {
  sharedCache ??= new LayoutCache(typeof localStorage === 'undefined' ? null : localStorage)
  return sharedCache
}

export function CanvasPage() {
  const workspace = useOutletContext<WorkspaceDetail>()
  return (
    <ReactFlowProvider>
      <Canvas workspace={workspace} />
    </ReactFlowProvider>
  )
}

function Canvas({ workspace }: { workspace: WorkspaceDetail }) {
  const graphQuery = useGraph(workspace.id)
  const sources = useSources(workspace.id)
  const graph = useMemo<Graph | null>(
    () => (graphQuery.data ? toGraph(graphQuery.data, sources.data ?? []) : null),
    [graphQuery.data, sources.data],
  )
  // What the layout depends on: the graph as served, not the sources list joined to it (its
  // arrival must not lay everything out a second time).
  const structure = useMemo<Graph | null>(() => {
    if (!graphQuery.data) return null
    performance.mark('canvas-graph') // the graph has arrived (the benchmark's window opens)
    return toGraph(graphQuery.data)
  }, [graphQuery.data])
  const [elkLayout, setLayout] = useState<GraphLayout | null>(null)
  const [layoutError, setLayoutError] = useState<string | null>(null)
  const [params, setParams] = useSearchParams()
  const [filters, setFilters] = useState<Filters>(() => defaultFilters(EDGE_TYPES, params.get('concepts') === 'all' || Boolean(params.get('focus')?.startsWith('concept:'))))
  const [selected, setSelected] = useState<string | null>(null)
  /** The keyboard cursor: where the arrow keys stand; Enter opens its panel. */
  const [cursor, setCursor] = useState<string | null>(null)
  const theme = useUi((s) => s.theme)
  const flow = useReactFlow()
  const fitted = useRef(false)

  useEffect(() => {
    if (!structure || !filters.allConcepts) return
    let cancelled = false
    performance.mark('canvas-layout-start')
    layoutGraph(structure, layoutCache(), () => createElkEngine(LAYOUT_TIME_LIMIT_MS))
      .then((l) => {
        performance.mark('canvas-layout-end')
        if (!cancelled) setLayout(l)
      })
      .catch((e: unknown) => !cancelled && setLayoutError(e instanceof Error ? e.message : String(e)))
    return () => {
      cancelled = true
    }
  }, [structure, filters.allConcepts])

  // ?focus=<node id> (links from the path and wiki views, and every selection): the view
  // opens centred on it; back/forward move between selections.
  const focus = params.get('focus')
  const canvasRef = useRef<HTMLDivElement>(null)
  const { papers, setExpanded, toggleTopic, onMoveStart: papersMoveStart, onMoveEnd, onZoomButton } = usePapers(graph, filters.allConcepts, focus, selected, canvasRef)
  /** What is drawn: the papers-first graph, or the whole graph with every concept. */
  const view = papers ? papers.graph : filters.allConcepts ? graph : null
  const layout = papers ? papers.layout : filters.allConcepts ? elkLayout : null
  // A mode switch sets the first view again.
  useEffect(() => {
    fitted.current = false
    setViewSet(false)
  }, [filters.allConcepts])
  // The first view is set from the layout itself (no node needs measuring first), before any
  // node is drawn: fit to the whole map, or centred on ?focus. Then the nodes are added a
  // chunk per task, nearest the view's centre first (the rest of the map fills in around it).
  const [revealOrder, setRevealOrder] = useState<string[]>([])
  const [revealed, setRevealed] = useState(0)
  /** The first view is set (and the reveal order known). */
  const [viewSet, setViewSet] = useState(false)
  const focused = useRef<string | null>(null)
  // The ?focus node stays centred until the map is moved: its side panel opens beside the
  // canvas a frame or more after the first view is set, and the canvas narrows then, so
  // every resize centres it again (otherwise it ends up half a panel's width off).
  const pinned = useRef<{ x: number; y: number } | null>(null)
  const centreOnPinned = useCallback(() => {
    const pane = canvasRef.current?.getBoundingClientRect()
    const centre = pinned.current
    if (!pane || !pane.width || !centre) return
    // On a phone the panel is a sheet over the lower half: the node sits in the upper half.
    const lift = sheetLift(pane)
    void flow.setViewport({ x: pane.width / 2 - centre.x * FOCUS_ZOOM, y: pane.height / 2 - lift - centre.y * FOCUS_ZOOM, zoom: FOCUS_ZOOM })
  }, [flow])
  useEffect(() => {
    const el = canvasRef.current
    if (!el) return
    const observer = new ResizeObserver(() => centreOnPinned())
    observer.observe(el)
    return () => observer.disconnect()
  }, [centreOnPinned])
  const onMoveStart = useCallback(
    (event: MouseEvent | TouchEvent | null, viewport: Viewport) => {
      if (event) pinned.current = null // moved by the user, not by code
      papersMoveStart(event, viewport)
    },
    [papersMoveStart],
  )
  // A big map zoomed out is the overview (one <canvas>): React Flow gets no nodes then.
  const big = (layout?.positions.size ?? 0) > VISIBLE_ONLY_ABOVE
  const zoomedOut = useStore(belowOverviewZoom)
  const overview = big && zoomedOut && viewSet
  const wasOverview = useRef(false)
  useEffect(() => {
    if (!layout) return
    if (overview) {
      wasOverview.current = true
      setRevealed(0)
      return
    }
    if (!wasOverview.current) return
    // Zoomed in from the overview: draw the nodes again, nearest the view's centre first.
    wasOverview.current = false
    const pane = canvasRef.current?.getBoundingClientRect()
    if (!pane) return
    const centre = flow.screenToFlowPosition({ x: pane.left + pane.width / 2, y: pane.top + pane.height / 2 })
    setRevealOrder(byDistance(layout, centre))
  }, [overview, layout, flow])

  useEffect(() => {
    if (!layout || fitted.current) return
    if (layout.positions.size === 0) {
      // Nothing to show yet: the first layout with nodes (a live update) sets the view.
      setViewSet(true)
      return
    }
    fitted.current = true
    const f = focus ? layout.positions.get(focus) : undefined
    const focusType = focus && view?.nodes.find((n) => n.id === focus)?.type
    if (focus && f && focusType) {
      // Selected first: its panel takes its room beside the canvas before the view is set.
      focused.current = focus
      setSelected(focus)
      setCursor(focus)
    }
    requestAnimationFrame(() => {
      const pane = canvasRef.current?.getBoundingClientRect()
      const width = pane?.width || 800
      const height = pane?.height || 600
      let centre: { x: number; y: number }
      if (f && focusType) {
        const size = nodeSize(view!.nodes.find((n) => n.id === focus)!)
        centre = { x: f.x + size.width / 2, y: f.y + size.height / 2 }
        pinned.current = centre
        centreOnPinned()
      } else {
        const bounds = layoutBounds(layout)
        centre = { x: bounds.x + bounds.width / 2, y: bounds.y + bounds.height / 2 }
        // Papers first: never a fitted miniature (labels stay >= 11 px), and the minimap's
        // corner is left free.
        if (papers) void flow.setViewport(legibleViewport(layoutBounds(layout), { width: paneWidth(width), height }, LEGIBLE_ZOOM, FIT_MAX_ZOOM))
        else void flow.setViewport(getViewportForBounds(bounds, width, height, 0.03, FIT_MAX_ZOOM, FIT_PADDING))
      }
      setRevealOrder(byDistance(layout, centre))
      setViewSet(true)
    })
  }, [layout, focus, view, papers, flow])
  // Later layouts (live updates) keep what is drawn and add what is new at once.
  const allRevealed = viewSet && revealed >= revealOrder.length
  const shown = useMemo(
    () => (overview ? NOTHING : allRevealed ? null : new Set(revealOrder.slice(0, revealed))),
    [overview, allRevealed, revealOrder, revealed],
  )
  const drawn = Boolean(layout) && (overview || allRevealed)
  useEffect(() => {
    if (drawn) performance.mark('canvas-rendered')
  }, [drawn])
  useEffect(() => {
    if (!revealOrder.length || overview || revealed >= revealOrder.length) return
    // After the browser has painted the last chunk, in a task of its own.
    let timer = 0
    const frame = requestAnimationFrame(() => {
      timer = window.setTimeout(() => setRevealed((r) => r + REVEAL_CHUNK), 0)
    })
    return () => {
      cancelAnimationFrame(frame)
      clearTimeout(timer)
    }
  }, [revealed, revealOrder, overview])

  // Coloured by a table column (?attr=): "only sources with a value" hides the others.
  const attribute = useCanvasAttribute(workspace.id, graph)
  const scale = attribute.scale
  const visible = useMemo(() => {
    const ids = view ? visibleNodeIds(view, filters) : new Set<string>()
    if (view && scale && attribute.only)
      for (const n of view.nodes) if (n.data.kind === 'source' && scale.value(n.data.sourceId) === null) ids.delete(n.id)
    return ids
  }, [view, filters, scale, attribute.only])
  const highlight = useMemo(() => (view && !selected?.startsWith('cluster:') ? highlightFor(view, selected) : null), [view, selected])

  // Nodes and edges in the order they are revealed (a chunk is appended, never inserted
  // between drawn elements), and the same object for an unchanged node or edge, so React
  // Flow re-renders only what changed.
  const rank = useMemo(() => new Map(revealOrder.map((id, i) => [id, i])), [revealOrder])
  const orderedNodes = useMemo(() => (view ? [...view.nodes].sort((a, b) => (rank.get(a.id) ?? Infinity) - (rank.get(b.id) ?? Infinity)) : []), [view, rank])
  const orderedEdges = useMemo(() => {
    if (!view) return []
    const at = (e: GEdge) => Math.max(rank.get(e.source) ?? Infinity, rank.get(e.target) ?? Infinity)
    return [...view.edges].sort((a, b) => at(a) - at(b))
  }, [view, rank])
  const nodeCache = useRef(new Map<string, Reused<Node<CanvasNodeData>>>())
  const edgeCache = useRef(new Map<string, Reused<Edge>>())

  const nodes = useMemo<Node<CanvasNodeData>[]>(() => {
    if (!layout) return []
    return orderedNodes.flatMap((n) => {
      const p = layout.positions.get(n.id)
      if (!p || (shown && !shown.has(n.id))) return []
      const lit = highlight?.nodes.has(n.id) ?? false
      const hidden = !visible.has(n.id)
      const isSelected = n.id === selected || n.id === cursor
      const highlighted = lit && n.id !== selected
      const dimmed = Boolean(highlight) && !lit
      const sourceId = n.data.kind === 'source' ? n.data.sourceId : null
      const value = scale && sourceId ? scale.value(sourceId) : null
      const color = scale && sourceId ? scale.color(sourceId) : null
      return [
        reuse(nodeCache.current, n.id, [n.data, p.x, p.y, hidden, isSelected, lit, highlighted, dimmed, value, color], () => ({
          id: n.id,
          type: n.type,
          position: p,
          ...nodeSize(n),
          hidden,
          selected: isSelected,
          ariaLabel: color ? `${nodeAria(n)}; ${attribute.question ?? 'column'}: ${value ?? 'no value'}` : nodeAria(n),
          className: lit ? 'is-highlighted' : undefined,
          // An expanded topic's frame lies behind its sources and takes no clicks but its header's.
          ...(n.data.kind === 'cluster' && n.data.expanded ? { zIndex: -1, style: { pointerEvents: 'none' as const }, focusable: false } : {}),
          data: { ...n.data, highlighted, dimmed, ...(color ? { attribute: { value, color } } : {}) },
        }) as Node<CanvasNodeData>),
      ]
    })
  }, [orderedNodes, layout, shown, visible, highlight, selected, cursor, scale, attribute.question])

  const clusters = useMemo(
    () => (view && layout ? clusterBoxes(view, layout.positions, visible, filters.collapsed) : []),
    [view, layout, visible, filters.collapsed],
  )
  const toggleCluster = useCallback(
    (id: string) =>
      setFilters((f) => {
        const collapsed = new Set(f.collapsed)
        if (!collapsed.delete(id)) collapsed.add(id)
        return { ...f, collapsed }
      }),
    [],
  )

  const edges = useMemo<Edge[]>(() => {
    return orderedEdges.flatMap((e): Edge[] => {
      if (shown && !(shown.has(e.source) && shown.has(e.target))) return []
      const lit = highlight?.edges.has(e.id) ?? false
      const faded = Boolean(highlight) && !lit
      const hidden = !edgeVisible(e, visible, filters)
      const reversed = e.type === 'discusses' // drawn from the concept above down to the source
      const style = EDGE_STYLES[e.type]
      return [
        reuse(edgeCache.current, e.id, [e, hidden, lit, faded], () => ({
          id: e.id,
          source: reversed ? e.target : e.source,
          target: reversed ? e.source : e.target,
          hidden,
          style: { ...edgeCss(e.type, lit), opacity: faded ? 0.15 : 1 },
          markerEnd: style.arrow ? { type: MarkerType.ArrowClosed, color: style.color, width: 16, height: 16 } : undefined,
          data: { type: e.type },
          className: `edge-${e.type}`,
          focusable: false,
        })),
      ]
    })
  }, [orderedEdges, shown, visible, filters, highlight])

  const focusNode = useCallback(
    (id: string) => {
      const p = layout?.positions.get(id)
      const n = view?.nodes.find((x) => x.id === id)
      if (!p || !n) {
        // Not drawn: a concept (every concept on the map), or a source of a collapsed topic.
        const hidden = graph?.nodes.find((x) => x.id === id)
        if (hidden?.type === 'concept' && !filters.allConcepts) setFilters((f) => ({ ...f, allConcepts: true }))
        else if (hidden && graph && topicOf(graph, hidden)) setExpanded((prev) => new Set([...(prev ?? []), topicOf(graph, hidden)!]))
        else return
        focused.current = null // focused again once laid out (the ?focus effect)
        setSelected(id)
        if (params.get('focus') !== id) setParams((q) => (q.set('focus', id), q))
        return
      }
      pinned.current = null
      setSelected(id)
      setCursor(id)
      const size = nodeSize(n)
      const pane = canvasRef.current?.getBoundingClientRect()
      const lift = pane ? sheetLift(pane) / FOCUS_ZOOM : 0
      void flow.setCenter(p.x + size.width / 2, p.y + size.height / 2 + lift, { zoom: FOCUS_ZOOM, duration: 400 })
    },
    [layout, view, graph, flow, filters.allConcepts, params, setParams],
  )

  // ?focus=<node id>: selected (its panel open) and centred once laid out; a later change of
  // the parameter moves the view to the new node.
  useEffect(() => {
    if (!focus) {
      // Back to no selection (the browser's back button).
      if (focused.current) setSelected(null)
      focused.current = null
      return
    }
    if (!layout || !view || !fitted.current || focused.current === focus) return
    if (!graph?.nodes.some((n) => n.id === focus)) return
    focused.current = focus
    focusNode(focus)
  }, [focus, layout, view, graph, focusNode])

  /** A selection by the user: in the URL (a history entry), so back/forward return to it. */
  const select = useCallback(
    (id: string | null) => {
      setSelected(id)
      if (id) setCursor(id)
      focused.current = id
      if ((params.get('focus') ?? null) === id) return
      setParams((q) => {
        if (id) q.set('focus', id)
        else q.delete('focus')
        return q
      })
    },
    [params, setParams],
  )

  /** Search and the side panel's links: selected (in the URL) and brought into view. */
  const goTo = useCallback(
    (id: string) => {
      select(id)
      focusNode(id) // after select: an undrawn node is focused again once laid out
    },
    [select, focusNode],
  )

  const onNodesChange = useCallback(
    (changes: NodeChange[]) => {
      // Keyboard (Enter on a focused node) and clicks both arrive as selection changes.
      for (const c of changes) if (c.type === 'select' && c.selected && !c.id.startsWith('cluster:')) select(c.id)
    },
    [select],
  )

  // A click opens the panel even on the node the keyboard cursor (already "selected") is on;
  // on a topic it expands (or collapses) the topic.
  const onNodeClick = useCallback(
    (_: unknown, n: Node) => {
      if (n.id.startsWith('cluster:')) return toggleTopic(n.id.slice('cluster:'.length))
      select(n.id)
    },
    [select, toggleTopic],
  )

  // Arrow keys: the cursor to the nearest visible node that way (from the selection, else the
  // node nearest the view's centre), centred and focused; Enter opens its panel.
  const onKeyDown = useCallback(
    (e: KeyboardEvent) => {
      const target = e.target instanceof Element ? e.target : null
      // A dialog or popover (a citation's passage, the filters) has its own keys.
      if (e.defaultPrevented || target?.closest('[role="dialog"]')) return
      if (e.key === 'Escape') {
        select(null)
        // Focus back on the canvas (not lost on the body): the arrow keys go on from here.
        canvasRef.current?.focus({ preventScroll: true })
        return
      }
      // Typing, and the side panel's own scrolling, keep their keys.
      if (target?.closest('input, textarea, select, [contenteditable="true"], [data-testid="canvas-panel"]')) return
      if (!view || !layout) return
      const dir = ARROW_KEYS[e.key]
      if (e.key === 'Enter' && cursor && visible.has(cursor)) {
        e.preventDefault()
        if (cursor.startsWith('cluster:')) toggleTopic(cursor.slice('cluster:'.length))
        else select(cursor)
        return
      }
      if (!dir || e.altKey || e.ctrlKey || e.metaKey) return
      e.preventDefault()
      const points = view.nodes.flatMap((n) => {
        const p = layout.positions.get(n.id)
        if (!p || !visible.has(n.id) || (n.data.kind === 'cluster' && n.data.expanded)) return []
        const size = nodeSize(n)
        return [{ id: n.id, x: p.x + size.width / 2, y: p.y + size.height / 2 }]
      })
      const start = cursor ?? selected
      const from = points.find((p) => p.id === start)
      let next: string | null
      if (from) next = nearestInDirection(from, points, dir)
      else {
        const box = canvasRef.current?.getBoundingClientRect()
        if (!box) return
        const c = flow.screenToFlowPosition({ x: box.left + box.width / 2, y: box.top + box.height / 2 })
        next = points.reduce<{ id: string; d: number } | null>((b, p) => {
          const d = (p.x - c.x) ** 2 + (p.y - c.y) ** 2
          return !b || d < b.d ? { id: p.id, d } : b
        }, null)?.id ?? null
      }
      if (!next) return
      const goal = points.find((p) => p.id === next)!
      setCursor(next)
      pinned.current = null // the keyboard moved the view: a ?focus centre no longer holds
      void flow.setCenter(goal.x, goal.y, { zoom: flow.getZoom(), duration: 200 })
      requestAnimationFrame(() => document.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(next)}"]`)?.focus({ preventScroll: true }))
    },
    [view, layout, visible, cursor, selected, flow, select, toggleTopic],
  )
  // On the whole page while the canvas is open: focus may sit on a node, the pane or the body.
  useEffect(() => {
    window.addEventListener('keydown', onKeyDown)
    return () => window.removeEventListener('keydown', onKeyDown)
  }, [onKeyDown])

  const state = graphQuery.isPending || (graph && !layout) ? 'layout' : layout ? (drawn ? 'ready' : 'rendering') : 'error'

  // In the overview a click picks the node under the pointer (and zooms to it).
  const onPaneClick = useCallback(
    (e: React.MouseEvent) => {
      if (!overview || !view || !layout) return select(null)
      const at = flow.screenToFlowPosition({ x: e.clientX, y: e.clientY })
      const hit = view.nodes.find((n) => {
        const p = layout.positions.get(n.id)
        const size = nodeSize(n)
        return p && visible.has(n.id) && at.x >= p.x && at.x <= p.x + size.width && at.y >= p.y && at.y <= p.y + size.height
      })
      if (hit) focusNode(hit.id)
      else select(null)
    },
    [overview, view, layout, visible, flow, focusNode, select],
  )
  const counts = graph ? { sources: graph.nodes.filter((n) => n.type === 'source').length, concepts: graph.nodes.filter((n) => n.type === 'concept').length } : null

  return (
    <main className="flex min-h-0 flex-1 flex-col">
      <Toolbar graph={graph} filters={filters} setFilters={setFilters} onFocus={goTo} />
      <ErrorText error={graphQuery.error} />
      {graphQuery.data && graphQuery.remaining > 0 && (
        <div className="flex flex-wrap items-center gap-2 px-3 py-1 text-sm text-stone-700 dark:text-stone-300" data-testid="canvas-truncated" role="status">
          <span>
            Showing {graphQuery.data.nodes.length} of {graphQuery.total} nodes, the most important first.
          </span>
          <Button size="sm" variant="secondary" onClick={graphQuery.loadMore} disabled={graphQuery.loadingMore} data-testid="canvas-load-more">
            {graphQuery.loadingMore ? 'Loading…' : `Load more (${graphQuery.remaining} remaining)`}
          </Button>
        </div>
      )}
      {layoutError && <p className="px-3 text-sm text-red-700 dark:text-red-400">Layout failed: {layoutError}</p>}
      <LiveUpdates workspaceId={workspace.id} />
      <AttributeBar workspaceId={workspace.id} attribute={attribute} />
      {papers && !scale && <YearLegend graph={graph} topics={topicGroups(graph!).length} />}
      <div className="relative flex min-h-[70vh] flex-1 flex-col md:flex-row">
        <div
          className="relative min-h-[60vh] flex-1"
          data-testid="canvas"
          data-state={state}
          data-layout-ms={layout ? Math.round(layout.stats.ms) : undefined}
          data-layout-cached={layout?.stats.cached}
          data-layout-laid-out={layout?.stats.laidOut}
          data-layout-fallback={layout?.stats.fallback}
          data-components={layout?.stats.components}
          data-overview={overview || undefined}
          data-cursor={cursor ?? undefined}
          ref={canvasRef}
          tabIndex={0}
          role="region"
          aria-label={counts ? `Canvas: ${counts.sources} sources, ${counts.concepts} concepts` : 'Canvas'}
          aria-keyshortcuts="ArrowLeft ArrowRight ArrowUp ArrowDown Enter Escape"
          aria-describedby="canvas-keys"
        >
          <p className="sr-only" id="canvas-keys">
            Arrow keys move between nodes, Enter opens the node's details, Escape closes them.
          </p>
          {state === 'layout' && (
            <p className="absolute inset-x-0 top-4 z-10 text-center text-sm text-stone-600 dark:text-stone-400" role="status">
              {graph ? `Laying out ${graph.nodes.length} nodes…` : 'Loading the graph…'}
            </p>
          )}
          {graph && graph.nodes.length === 0 && (
            <p className="absolute inset-x-0 top-8 z-10 text-center text-stone-600 dark:text-stone-400">
              Nothing to map yet: add sources (upload or research) and their concepts appear here.
            </p>
          )}
          <div className="absolute inset-0">
          <ReactFlow
            nodes={nodes}
            edges={edges}
            nodeTypes={nodeTypes}
            onNodesChange={onNodesChange}
            onNodeClick={onNodeClick}
            onPaneClick={onPaneClick}
            onMoveStart={onMoveStart}
            onMoveEnd={onMoveEnd}
            nodesDraggable={false}
            nodesConnectable={false}
            edgesFocusable={false}
            minZoom={0.03}
            maxZoom={2}
            onlyRenderVisibleElements={nodes.length > VISIBLE_ONLY_ABOVE}
            colorMode={resolveDark(theme) ? 'dark' : 'light'}
            proOptions={{ hideAttribution: true }}
            aria-label={counts ? `Canvas: ${counts.sources} sources, ${counts.concepts} concepts` : 'Canvas'}
          >
            {overview && view && layout && (
              <Overview
                graph={view}
                positions={layout.positions}
                visible={visible}
                filters={filters}
                highlight={highlight}
                selected={selected}
                dark={resolveDark(theme)}
                sourceFill={scale?.color}
              />
            )}
            <ClusterBoxes boxes={clusters} onToggle={toggleCluster} />
            <Background gap={40} size={1} />
            <Controls showInteractive={false} onZoomIn={onZoomButton} onZoomOut={onZoomButton} />
            {/* The overview is a map of the whole graph itself; React Flow holds no node then. */}
            {!overview && (
              <MiniMap
                pannable
                zoomable
                nodeColor={miniMapColor}
                bgColor={resolveDark(theme) ? '#1c1917' : '#ffffff'}
                maskColor={resolveDark(theme) ? 'rgba(0, 0, 0, 0.55)' : 'rgba(240, 240, 240, 0.6)'}
                ariaLabel="Mini map"
                data-testid="canvas-minimap"
                className="hidden sm:block"
                style={MINIMAP}
              />
            )}
          </ReactFlow>
          </div>
        </div>
        {selected && graph && (
          <SidePanel workspaceId={workspace.id} graph={graph} selected={selected} onSelect={goTo} onClose={() => select(null)} />
        )}
      </div>
    </main>
  )
}

const NOTHING: ReadonlySet<string> = new Set()
/** Below Tailwind's `md`: the side panel is a bottom sheet over the canvas. */
const phone = () => typeof window !== 'undefined' && window.matchMedia('(max-width: 767px)').matches
/** On a phone the panel is a sheet over the lower half of the screen (at most 50vh): how far
 * above the pane's centre a focused node goes to sit in the middle of what is left above it
 * (the legends above the canvas wrap to more lines on a phone, so not simply a quarter). */
function sheetLift(pane: DOMRect): number {
  if (!phone()) return 0
  const above = Math.min(pane.bottom, window.innerHeight / 2) - pane.top
  return above > 0 ? pane.height / 2 - above / 2 : pane.height / 4
}
const belowOverviewZoom = (s: ReactFlowState) => s.transform[2] < OVERVIEW_ZOOM

/** Node ids, nearest the given point first. */
function byDistance(layout: GraphLayout, centre: { x: number; y: number }): string[] {
  const d = new Map([...layout.positions].map(([id, p]) => [id, (p.x - centre.x) ** 2 + (p.y - centre.y) ** 2]))
  return [...d.keys()].sort((a, b) => d.get(a)! - d.get(b)!)
}

interface Reused<T> {
  deps: unknown[]
  value: T
}

/** The cached value while its deps are the same (Object.is each), else a new one. */
function reuse<T>(cache: Map<string, Reused<T>>, id: string, deps: unknown[], make: () => T): T {
  const hit = cache.get(id)
  if (hit && hit.deps.length === deps.length && hit.deps.every((d, i) => Object.is(d, deps[i]))) return hit.value
  const value = make()
  cache.set(id, { deps, value })
  return value
}

function miniMapColor(n: Node): string {
  const attribute = (n.data as Partial<SourceNodeData>).attribute
  if (attribute) return attribute.color
  return n.type === 'concept' ? '#0ea5e9' : n.type === 'synthesis' ? '#e11d48' : n.type === 'cluster' ? '#14b8a6' : '#78716c'
}

