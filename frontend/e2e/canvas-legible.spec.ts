// Issue 33: the canvas's first view is legible. At 1280×800 and 390×844, light and dark,
// on the 9 shared PDFs and on a 300-source synthetic graph, every rendered label's computed
// font size × the viewport's zoom is at least 11 px; screenshots into docs/screenshots/.
import { expect, test, type APIRequestContext, type Browser, type Page } from '@playwright/test'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { PDFS, expectAccessible } from './helpers'

const SHOTS = path.resolve(import.meta.dirname, '..', '..', 'docs', 'screenshots')
const NINE = [
  'clinsci2014.pdf',
  'health-bmc2014.pdf',
  'literature-graph-naacl2018.pdf',
  'longeval-eacl2023.pdf',
  'rehab-hindawi2010.pdf',
  's2orc-acl2020.pdf',
  'specter-acl2020.pdf',
  'trauma-bmc2010.pdf',
  'vespa-peerj2017.pdf',
]
const SIZES = { wide: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } }

let nineId = ''
let syntheticId = ''

test.beforeAll(async ({ request }) => {
  syntheticId = (await (await request.post('/api/workspaces', { data: { name: 'Synthetic 300' } })).json()).id
})

/** The 9 PDFs uploaded through the API (once, by the first test that needs them). */
async function nineWorkspace(request: APIRequestContext): Promise<string> {
  if (nineId) return nineId
  const created = await request.post('/api/workspaces', { data: { name: 'Nine PDFs', description: 'two fields' } })
  const id = (await created.json()).id
  const form = new FormData()
  for (const f of NINE) form.append('files', new Blob([readFileSync(path.join(PDFS, f))], { type: 'application/pdf' }), f)
  const upload = await request.post(`/api/workspaces/${id}/sources`, { multipart: form })
  expect(upload.status(), await upload.text()).toBe(202)
  const job = (await upload.json()).id
  await expect
    .poll(async () => (await (await request.get(`/api/jobs/${job}`)).json()).status, { timeout: 840_000, intervals: [2000] })
    .toBe('succeeded')
  nineId = id
  return id
}

/** 300 sources in 14 topics of unequal size, similar edges inside a topic, a few citations. */
function syntheticGraph() {
  const nodes: Record<string, unknown>[] = []
  const edges: { id: string; source: string; target: string; type: string; weight: number }[] = []
  const topics = []
  let k = 0
  for (let t = 0; t < 14; t++) {
    const size = t < 13 ? 10 + ((t * 7) % 23) : 0
    const members: string[] = []
    for (let i = 0; i < size && k < 300; i++, k++) members.push(`source:00000000-0000-4000-8000-${String(k).padStart(12, '0')}`)
    topics.push({ id: `topic-${t + 1}`, label: `Topic concept ${t + 1}a · concept ${t + 1}b · concept ${t + 1}c`, concepts: [], concept_ids: [], source_count: members.length })
    members.forEach((id, i) => {
      nodes.push({ id, type: 'source', label: `Synthetic paper ${id.slice(-4)} on topic ${t + 1} with a fairly long title`, topic_id: `topic-${t + 1}`, data: { year: 1995 + ((i * 3 + t) % 30), citation_count: (i * 37) % 400, cited_by_here: i % 3, quality: 50 } })
      if (i > 0) edges.push({ id: `similar:${members[i - 1]}:${id}`, source: members[i - 1]!, target: id, type: 'similar', weight: 1 })
    })
  }
  while (k < 300) {
    const id = `source:00000000-0000-4000-8000-${String(k++).padStart(12, '0')}`
    topics[13]!.source_count++
    nodes.push({ id, type: 'source', label: `Unlinked synthetic paper ${id.slice(-4)}`, topic_id: 'topic-14', data: { year: 2020 } })
  }
  return { nodes, edges, topics: topics.filter((t) => t.source_count > 0), total_nodes: nodes.length, next_cursor: null, remaining: 0 }
}

/** Every rendered node label on screen: its computed font size × the viewport's zoom. */
async function labelSizes(page: Page) {
  return page.evaluate(() => {
    const vp = document.querySelector('.react-flow__viewport') as HTMLElement
    const zoom = new DOMMatrixReadOnly(getComputedStyle(vp).transform).a
    const pane = document.querySelector('[data-testid="canvas"]')!.getBoundingClientRect()
    const sizes: number[] = []
    for (const el of document.querySelectorAll<HTMLElement>('.react-flow__node .canvas-label, .react-flow__node [data-testid="canvas-topic-collapse"]')) {
      const r = el.getBoundingClientRect()
      const onScreen = r.width > 0 && r.right > pane.left && r.left < pane.right && r.bottom > pane.top && r.top < pane.bottom
      if (onScreen && el.textContent?.trim()) sizes.push(parseFloat(getComputedStyle(el).fontSize) * zoom)
    }
    return { zoom, min: Math.min(...sizes), labels: sizes.length, clusters: document.querySelectorAll('[data-testid="canvas-cluster"]').length }
  })
}

async function measure(browser: Browser, workspaceId: string, name: string, graph: unknown | null) {
  const results: { size: string; dark: boolean; min: number; labels: number; clusters: number }[] = []
  for (const [size, viewport] of Object.entries(SIZES))
    for (const dark of [false, true]) {
      const context = await browser.newContext({ viewport, colorScheme: dark ? 'dark' : 'light' })
      const page = await context.newPage()
      if (graph) await page.route(`**/api/workspaces/${workspaceId}/graph**`, (route) => route.fulfill({ json: graph }))
      await page.goto(`/w/${workspaceId}/canvas`)
      await expect(page.getByTestId('canvas')).toHaveAttribute('data-state', 'ready', { timeout: 120_000 })
      await page.waitForTimeout(800)
      const m = await labelSizes(page)
      // The toolbar's search field keeps a usable width on a phone (its own row there).
      expect((await page.getByTestId('canvas-search').boundingBox())!.width, 'search field width').toBeGreaterThanOrEqual(200)
      await page.screenshot({ path: `${SHOTS}/canvas-first-view-${name}-${dark ? 'dark' : 'light'}-${size}.png` })
      results.push({ size, dark, min: m.min, labels: m.labels, clusters: m.clusters })
      console.log(`${name} ${size} ${dark ? 'dark' : 'light'}: zoom ${m.zoom.toFixed(2)}, ${m.labels} labels on screen, smallest ${m.min.toFixed(1)} px, ${m.clusters} cluster nodes`)
      expect(m.labels, 'some label is on screen').toBeGreaterThan(0)
      expect(m.min, 'the smallest label on screen (font size × zoom)').toBeGreaterThanOrEqual(11)
      await context.close()
    }
  return results
}

test('9 PDFs: every label at the first view is at least 11 px, wide and on a phone', async ({ browser, request }) => {
  test.setTimeout(1_000_000)
  const nineId = await nineWorkspace(request)
  const graph = await (await request.get(`/api/workspaces/${nineId}/graph`)).json()
  expect(graph.topics.length, 'the two fields (and the rest) are separate topics').toBeGreaterThanOrEqual(2)
  const results = await measure(browser, nineId, 'nine', null)
  console.log(`topics: ${graph.topics.map((t: { label: string; source_count: number }) => `${t.label} (${t.source_count})`).join('; ')}`)
  expect(results.every((r) => r.clusters === 0 || r.clusters >= 2), 'topics, not one group of everything').toBe(true)
})

test('300 synthetic sources: the first view shows labelled topics, legible, that expand on click', async ({ browser }) => {
  const graph = syntheticGraph()
  const results = await measure(browser, syntheticId, 'synthetic300', graph)
  expect(results.every((r) => r.clusters > 0), 'too many to fit legibly: topics as group nodes').toBe(true)
  expect(results.find((r) => r.size === 'wide')!.clusters, 'several topics side by side at 1280 px').toBeGreaterThan(3)
  const context = await browser.newContext({ viewport: SIZES.wide })
  const page = await context.newPage()
  await page.route(`**/api/workspaces/${syntheticId}/graph**`, (route) => route.fulfill({ json: graph }))
  await page.goto(`/w/${syntheticId}/canvas`)
  await expect(page.getByTestId('canvas')).toHaveAttribute('data-state', 'ready', { timeout: 120_000 })
  const first = page.getByTestId('canvas-cluster').first()
  const topic = await first.getAttribute('data-topic')
  await first.click()
  const frame = page.locator(`[data-testid="canvas-topic-frame"][data-topic="${topic}"]`)
  await expect(frame).toBeVisible()
  await expect(page.getByTestId('canvas-source').first()).toBeVisible()
  await expectAccessible(page, 'papers-first canvas with a topic expanded')
  // Escape returns focus to the canvas.
  await page.getByTestId('canvas-source').first().click()
  await expect(page).toHaveURL(/focus=source%3A/)
  await page.keyboard.press('Escape')
  await expect(page.getByTestId('canvas')).toBeFocused()
  await expect(page).not.toHaveURL(/focus=/)
  await context.close()
})

test('300 synthetic sources: zooming in on a group node shows its papers, zooming far out groups them again', async ({ browser }) => {
  const graph = syntheticGraph()
  const context = await browser.newContext({ viewport: SIZES.wide })
  const page = await context.newPage()
  await page.route(`**/api/workspaces/${syntheticId}/graph**`, (route) => route.fulfill({ json: graph }))
  await page.goto(`/w/${syntheticId}/canvas`)
  await expect(page.getByTestId('canvas')).toHaveAttribute('data-state', 'ready', { timeout: 120_000 })
  await expect(page.getByTestId('canvas-topic-frame')).toHaveCount(0)
  const pane = (await page.getByTestId('canvas').boundingBox())!
  // The group node nearest the pane's centre (not the top left one: zoom must pick the one pointed at).
  const groups = await page.getByTestId('canvas-cluster').evaluateAll((els) =>
    els.map((e) => ({ topic: e.getAttribute('data-topic')!, ...e.getBoundingClientRect().toJSON() }) as { topic: string; x: number; y: number; width: number; height: number }),
  )
  const mid = { x: pane.x + pane.width / 2, y: pane.y + pane.height / 2 }
  const dist = (b: { x: number; y: number; width: number; height: number }) => (b.x + b.width / 2 - mid.x) ** 2 + (b.y + b.height / 2 - mid.y) ** 2
  const box = groups.reduce((a, b) => (dist(b) < dist(a) ? b : a))
  const topic = box.topic
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2)
  await page.mouse.wheel(0, -200)
  const frame = page.locator(`[data-testid="canvas-topic-frame"][data-topic="${topic}"]`)
  await expect(frame).toBeVisible()
  await expect(page.getByTestId('canvas-topic-frame'), 'one topic per zoom gesture').toHaveCount(1)
  await expect(page.locator(`[data-testid="canvas-cluster"][data-topic="${topic}"]`)).toHaveCount(0)
  // Its papers are drawn, on screen, and every label on screen is still at least 11 px.
  const paper = page.getByTestId('canvas-source').filter({ hasText: `on ${topic.replace('-', ' ')} with` }).first()
  await expect(paper).toBeVisible()
  const p = (await paper.boundingBox())!
  expect(p.x >= pane.x && p.x + p.width <= pane.x + pane.width && p.y >= pane.y && p.y <= pane.y + pane.height, 'a paper of the topic in view').toBe(true)
  await page.waitForTimeout(500)
  const zoomedIn = await labelSizes(page)
  console.log(`zoomed in: zoom ${zoomedIn.zoom.toFixed(2)}, ${zoomedIn.labels} labels, smallest ${zoomedIn.min.toFixed(1)} px`)
  expect(zoomedIn.zoom).toBeGreaterThan(1)
  expect(zoomedIn.min, 'the smallest label on screen after zooming in').toBeGreaterThanOrEqual(11)
  await page.screenshot({ path: `${SHOTS}/canvas-zoom-expanded-light-wide.png` })
  // Zoomed far out (a paper's label would be under 11 px): the topic is one group node again.
  await page.mouse.wheel(0, 400)
  await expect(page.getByTestId('canvas-topic-frame')).toHaveCount(0)
  await expect(page.locator(`[data-testid="canvas-cluster"][data-topic="${topic}"]`)).toHaveCount(1)
  // The zoom buttons are a zoom by the user too: in until legible, the topic nearest the centre opens.
  const zoomIn = page.getByRole('button', { name: /zoom in/i })
  for (let i = 0; i < 6 && (await labelSizes(page)).zoom <= 1; i++) {
    await zoomIn.click()
    await page.waitForTimeout(500)
  }
  await expect(page.getByTestId('canvas-topic-frame')).toHaveCount(1)
  expect((await labelSizes(page)).min).toBeGreaterThanOrEqual(11)
  await context.close()
})
