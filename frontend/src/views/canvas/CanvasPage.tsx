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
  useReactFlow,
  type Edge,
  type Node,
  type NodeChange,
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
import { NODE_SIZE, toGraph, type CanvasNodeData, type Graph } from './model'
import { nodeTypes } from './nodes'
import { ARROW_KEYS, nearestInDirection } from './keyboard'
import { LiveUpdates } from './LiveUpdates'
import { ClusterBoxes, clusterBoxes } from './clusters'
import { SidePanel } from './SidePanel'
import { Toolbar } from './Toolbar'

/** Layout time limit: past it the worker is terminated and the rest becomes a grid. */
const LAYOUT_TIME_LIMIT_MS = 20_000
/** Past this many nodes only what is on screen is rendered. */
const VISIBLE_ONLY_ABOVE = 300

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
  const [layout, setLayout] = useState<GraphLayout | null>(null)
  const [layoutError, setLayoutError] = useState<string | null>(null)
  const [filters, setFilters] = useState<Filters>(() => defaultFilters(EDGE_TYPES))
  const [selected, setSelected] = useState<string | null>(null)
  /** The keyboard cursor: where the arrow keys stand; Enter opens its panel. */
  const [cursor, setCursor] = useState<string | null>(null)
  const theme = useUi((s) => s.theme)
  const flow = useReactFlow()
  const fitted = useRef(false)

  useEffect(() => {
    if (!graph) return
    let cancelled = false
    performance.mark('canvas-layout-start')
    layoutGraph(graph, layoutCache(), () => createElkEngine(LAYOUT_TIME_LIMIT_MS))
      .then((l) => {
        performance.mark('canvas-layout-end')
        if (!cancelled) setLayout(l)
      })
      .catch((e: unknown) => !cancelled && setLayoutError(e instanceof Error ? e.message : String(e)))
    return () => {
      cancelled = true
    }
  }, [graph])

  const visible = useMemo(() => (graph ? visibleNodeIds(graph, filters) : new Set<string>()), [graph, filters])
  const highlight = useMemo(() => (graph ? highlightFor(graph, selected) : null), [graph, selected])

  const nodes = useMemo<Node<CanvasNodeData>[]>(() => {
    if (!graph || !layout) return []
    return graph.nodes.flatMap((n) => {
      const p = layout.positions.get(n.id)
      if (!p) return []
      const lit = highlight?.nodes.has(n.id) ?? false
      return [
        {
          id: n.id,
          type: n.type,
          position: p,
          ...NODE_SIZE[n.type],
          hidden: !visible.has(n.id),
          selected: n.id === selected || n.id === cursor,
          ariaLabel: `${n.type} ${n.type === 'concept' ? n.data.kind === 'concept' && n.data.name : n.data.kind === 'source' ? n.data.title : ''}`,
          className: lit ? 'is-highlighted' : undefined,
          data: { ...n.data, highlighted: lit && n.id !== selected, dimmed: Boolean(highlight) && !lit },
        } as Node<CanvasNodeData>,
      ]
    })
  }, [graph, layout, visible, highlight, selected, cursor])

  const clusters = useMemo(
    () => (graph && layout ? clusterBoxes(graph, layout.positions, visible, filters.collapsed) : []),
    [graph, layout, visible, filters.collapsed],
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
    if (!graph) return []
    return graph.edges.map((e) => {
      const lit = highlight?.edges.has(e.id) ?? false
      const reversed = e.type === 'discusses' // drawn from the concept above down to the source
      const style = EDGE_STYLES[e.type]
      return {
        id: e.id,
        source: reversed ? e.target : e.source,
        target: reversed ? e.source : e.target,
        hidden: !edgeVisible(e, visible, filters),
        style: { ...edgeCss(e.type, lit), opacity: highlight && !lit ? 0.15 : 1 },
        markerEnd: style.arrow ? { type: MarkerType.ArrowClosed, color: style.color, width: 16, height: 16 } : undefined,
        data: { type: e.type },
        className: `edge-${e.type}`,
        focusable: false,
      }
    })
  }, [graph, visible, filters, highlight])

  useEffect(() => {
    if (layout && !fitted.current && nodes.length) {
      fitted.current = true
      requestAnimationFrame(() => void flow.fitView({ padding: 0.1, maxZoom: 1.2 }))
    }
  }, [layout, nodes.length, flow])

  const focusNode = useCallback(
    (id: string) => {
      const p = layout?.positions.get(id)
      const n = graph?.nodes.find((x) => x.id === id)
      if (!p || !n) return
      setSelected(id)
      setCursor(id)
      const size = NODE_SIZE[n.type]
      void flow.setCenter(p.x + size.width / 2, p.y + size.height / 2, { zoom: 1.1, duration: 400 })
    },
    [layout, graph, flow],
  )

  // ?focus=<node id> (links from the path and wiki views): centre and select it once laid out.
  const [params] = useSearchParams()
  const focus = params.get('focus')
  const focused = useRef<string | null>(null)
  useEffect(() => {
    if (!focus || !layout || focused.current === focus) return
    focused.current = focus
    fitted.current = true
    requestAnimationFrame(() => focusNode(focus))
  }, [focus, layout, focusNode])

  const onNodesChange = useCallback((changes: NodeChange[]) => {
    // Keyboard (Enter on a focused node) and clicks both arrive as selection changes.
    for (const c of changes)
      if (c.type === 'select' && c.selected) {
        setSelected(c.id)
        setCursor(c.id)
      }
  }, [])

  // A click opens the panel even on the node the keyboard cursor (already "selected") is on.
  const onNodeClick = useCallback((_: unknown, n: Node) => {
    setSelected(n.id)
    setCursor(n.id)
  }, [])

  // Arrow keys: the cursor to the nearest visible node that way (from the selection, else the
  // node nearest the view's centre), centred and focused; Enter opens its panel.
  const canvasRef = useRef<HTMLDivElement>(null)
  const onKeyDown = useCallback(
    (e: KeyboardEvent) => {
      const target = e.target instanceof Element ? e.target : null
      // A dialog or popover (a citation's passage, the filters) has its own keys.
      if (e.defaultPrevented || target?.closest('[role="dialog"]')) return
      if (e.key === 'Escape') {
        setSelected(null)
        return
      }
      // Typing, and the side panel's own scrolling, keep their keys.
      if (target?.closest('input, textarea, select, [contenteditable="true"], [data-testid="canvas-panel"]')) return
      if (!graph || !layout) return
      const dir = ARROW_KEYS[e.key]
      if (e.key === 'Enter' && cursor && visible.has(cursor)) {
        e.preventDefault()
        setSelected(cursor)
        return
      }
      if (!dir || e.altKey || e.ctrlKey || e.metaKey) return
      e.preventDefault()
      const points = graph.nodes.flatMap((n) => {
        const p = layout.positions.get(n.id)
        if (!p || !visible.has(n.id)) return []
        const size = NODE_SIZE[n.type]
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
      void flow.setCenter(goal.x, goal.y, { zoom: flow.getZoom(), duration: 200 })
      requestAnimationFrame(() => document.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(next)}"]`)?.focus({ preventScroll: true }))
    },
    [graph, layout, visible, cursor, selected, flow],
  )
  // On the whole page while the canvas is open: focus may sit on a node, the pane or the body.
  useEffect(() => {
    window.addEventListener('keydown', onKeyDown)
    return () => window.removeEventListener('keydown', onKeyDown)
  }, [onKeyDown])

  const state = graphQuery.isPending || (graph && !layout) ? 'layout' : layout ? 'ready' : 'error'
  const counts = graph ? { sources: graph.nodes.filter((n) => n.type === 'source').length, concepts: graph.nodes.filter((n) => n.type === 'concept').length } : null

  return (
    <main className="flex min-h-0 flex-1 flex-col">
      <Toolbar graph={graph} filters={filters} setFilters={setFilters} onFocus={focusNode} />
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
          data-cursor={cursor ?? undefined}
          ref={canvasRef}
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
            onPaneClick={() => setSelected(null)}
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
            <ClusterBoxes boxes={clusters} onToggle={toggleCluster} />
            <Background gap={40} size={1} />
            <Controls showInteractive={false} />
            <MiniMap pannable zoomable nodeColor={miniMapColor} ariaLabel="Mini map" className="hidden sm:block" />
          </ReactFlow>
          </div>
        </div>
        {selected && graph && (
          <SidePanel workspaceId={workspace.id} graph={graph} selected={selected} onSelect={focusNode} onClose={() => setSelected(null)} />
        )}
      </div>
    </main>
  )
}

function miniMapColor(n: Node): string {
  return n.type === 'concept' ? '#0ea5e9' : n.type === 'synthesis' ? '#e11d48' : '#78716c'
}
