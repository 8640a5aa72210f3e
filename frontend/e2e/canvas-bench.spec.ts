// On demand (E2E_BENCH=1, `make web-bench`-style): the canvas on generated graphs of 200,
// 1,000 and 2,000 nodes (the graph endpoint answered by the test): layout time in the
// worker, the longest main-thread task while laying out, frames per second while panning
// at 1,000 nodes. Writes frontend/test-results/canvas-bench.json and prints a table.
import { test, type Page } from '@playwright/test'
import { mkdirSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import path from 'node:path'
import { generateGraph } from './canvasGraph'

// Playwright's trace snapshots run on the page's main thread: off, or they are measured too.
test.use({ trace: 'off', screenshot: 'off' })

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

async function openWithGraph(page: Page, workspaceId: string, graph: unknown) {
  await page.route(`**/api/workspaces/${workspaceId}/graph**`, (route) => route.fulfill({ json: graph }))
  await page.addInitScript(() => {
    const w = window as unknown as { __long: { start: number; duration: number }[] }
    w.__long = []
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__long.push({ start: e.startTime, duration: e.duration })
    }).observe({ type: 'longtask', buffered: true })
  })
  await page.goto(`/w/${workspaceId}/canvas?concepts=all`)
  // Polled in the page: a failing expect() takes an ARIA snapshot of the whole page per poll.
  await page.waitForFunction(() => document.querySelector('[data-testid="canvas"]')?.getAttribute('data-state') === 'ready', null, { timeout: 180_000, polling: 500 })
  await page.waitForTimeout(1500)
  return page.evaluate(() => {
    const w = window as unknown as { __long: { start: number; duration: number }[] }
    const start = performance.getEntriesByName('canvas-layout-start').at(0)?.startTime ?? 0
    const end = performance.getEntriesByName('canvas-layout-end').at(-1)?.startTime ?? 0
    const rendered = performance.getEntriesByName('canvas-rendered').at(-1)?.startTime ?? end
    const within = (a: number, b: number) => w.__long.filter((t) => t.start + t.duration > a && t.start < b)
    const el = document.querySelector('[data-testid="canvas"]') as HTMLElement
    return {
      layoutMs: end - start,
      // The worker's layout, then the first render (every node added, a chunk per task).
      longestDuringLayout: Math.max(0, ...within(start, end).map((t) => t.duration)),
      renderMs: rendered - end,
      longestDuringLayoutAndRender: Math.max(0, ...within(start, rendered).map((t) => t.duration)),
      // From the graph's arrival (its JSON parsed, the nodes built) to every node drawn.
      longestFromGraphToRendered: Math.max(0, ...within(performance.getEntriesByName('canvas-graph').at(0)?.startTime ?? start, rendered).map((t) => t.duration)),
      longTasksDuringLayoutAndRender: within(start, rendered).length,
      longestOverall: Math.max(0, ...w.__long.map((t) => t.duration)),
      layoutStarts: performance.getEntriesByName('canvas-layout-start').length,
      laidOut: Number(el.dataset.layoutLaidOut),
      fallback: Number(el.dataset.layoutFallback),
      components: Number(el.dataset.components),
      rendered: document.querySelectorAll('.react-flow__node').length,
    }
  })
}

async function panFps(page: Page, zoom: number | null): Promise<number> {
  if (zoom !== null) {
    await page.evaluate(() => window.scrollTo(0, 0))
    await page.getByRole('button', { name: /zoom in/i }).waitFor()
    // React Flow's zoom: wheel over the pane until the zoom level is reached.
    for (let i = 0; i < 40; i++) {
      const z = await page.evaluate(() => {
        const t = getComputedStyle(document.querySelector('.react-flow__viewport')!).transform
        return new DOMMatrix(t).a
      })
      if (z >= zoom) break
      await page.getByRole('button', { name: /zoom in/i }).click()
    }
  }
  const box = (await page.locator('.react-flow__pane').boundingBox())!
  const cx = box.x + box.width / 2
  const cy = box.y + box.height / 2
  await page.evaluate(() => {
    const w = window as unknown as { __frames: number; __stop: boolean }
    w.__frames = 0
    w.__stop = false
    const tick = () => {
      w.__frames++
      if (!w.__stop) requestAnimationFrame(tick)
    }
    requestAnimationFrame(tick)
  })
  const t0 = Date.now()
  await page.mouse.move(cx, cy)
  await page.mouse.down()
  for (let i = 0; i < 120; i++) {
    const a = (i / 120) * Math.PI * 4
    await page.mouse.move(cx + Math.cos(a) * box.width * 0.3, cy + Math.sin(a) * box.height * 0.3)
  }
  await page.mouse.up()
  const seconds = (Date.now() - t0) / 1000
  const frames = await page.evaluate(() => {
    const w = window as unknown as { __frames: number; __stop: boolean }
    w.__stop = true
    return w.__frames
  })
  return frames / seconds
}

test('canvas benchmark: layout time, longest main-thread task, panning FPS', async ({ browser, request }) => {
  test.skip(!process.env.E2E_BENCH, 'benchmarks on demand')
  test.setTimeout(1_200_000)
  const ws = await (await request.post('/api/workspaces', { data: { name: 'Bench', description: 'generated graphs' } })).json()
  const rows: Record<string, unknown>[] = []
  for (const n of [200, 1000, 2000]) {
    const graph = generateGraph(n)
    const runs: Record<string, number | null>[] = []
    for (let i = 0; i < 3; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } }) // fresh localStorage: no cached layout
      const page = await context.newPage()
      const r = await openWithGraph(page, ws.id, graph)
      let fpsFit: number | null = null
      let fpsZoom1: number | null = null
      if (n === 1000) {
        fpsFit = await panFps(page, null)
        fpsZoom1 = await panFps(page, 1)
      }
      runs.push({ ...r, fpsFit, fpsZoom1 })
      await context.close()
    }
    const pick = (k: string) => median(runs.map((x) => x[k]).filter((v): v is number => typeof v === 'number'))
    rows.push({
      nodes: n,
      edges: graph.edges.length,
      components: runs[0]!.components,
      layoutMs: pick('layoutMs'),
      longestTaskDuringLayoutMs: pick('longestDuringLayout'),
      renderMs: pick('renderMs'),
      longestTaskDuringLayoutAndRenderMs: pick('longestDuringLayoutAndRender'),
      longestTaskFromGraphToRenderedMs: pick('longestFromGraphToRendered'),
      longestTaskOverallMs: pick('longestOverall'),
      fallbackComponents: pick('fallback'),
      fpsPanFit: n === 1000 ? pick('fpsFit') : null,
      fpsPanZoom1: n === 1000 ? pick('fpsZoom1') : null,
      runs,
    })
  }
  const out = { loadavg: loadavg(), rows }
  const dir = path.resolve(import.meta.dirname, '..', 'test-results')
  mkdirSync(dir, { recursive: true })
  writeFileSync(path.join(dir, 'canvas-bench.json'), JSON.stringify(out, null, 2))
  console.log(JSON.stringify(out.rows.map(({ runs: _r, ...x }) => x), null, 1), 'load', out.loadavg)
})
