// The reader's numbers for docs/BENCHMARKS.md (run on demand: E2E_EXTRAS=1 npm run e2e --
// e2e/reader-bench.spec.ts): a 300-page PDF built from the shared PDFs
// (scripts/make_long_pdf.py); time from following a citation link to the highlighted
// page being on screen, for page 3 and page 150 (median of 5 each); the tab's JS heap
// with the PDF open at page 150 and after scrolling through every page.
import { expect, test, type Page } from '@playwright/test'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '..', '..')
const LONG = path.join(process.env.E2E_HOME ?? '/tmp', 'long300.pdf')

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

async function heapMb(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('HeapProfiler.collectGarbage')
  const { metrics } = await cdp.send('Performance.getMetrics')
  await cdp.detach()
  return (metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0) / 1e6
}

test('reader timings and memory on a 300-page PDF', async ({ page, request }) => {
  test.setTimeout(1_500_000)
  execFileSync('uv', ['run', '--frozen', 'python', 'scripts/make_long_pdf.py', LONG, '--pages', '300'], { cwd: root })
  const ws = await (await request.post('/api/workspaces', { data: { name: 'Long PDF', description: 'reader benchmark' } })).json()
  const upload = await request.post(`/api/workspaces/${ws.id}/sources`, {
    multipart: { files: { name: 'long300.pdf', mimeType: 'application/pdf', buffer: readFileSync(LONG) } },
  })
  expect(upload.status()).toBe(202)
  const job = await upload.json()
  await expect
    .poll(async () => (await (await request.get(`/api/jobs/${job.id}`)).json()).status, { timeout: 1_200_000, intervals: [2000] })
    .toBe('succeeded')
  const sources = await (await request.get(`/api/workspaces/${ws.id}/sources`)).json()
  const source = (sources.items ?? sources)[0]
  const pages: { page_number: number; text: string }[] = await (await request.get(`/api/sources/${source.id}/pages`)).json()

  // A highlight (backend rectangles, as a citation has) on page 3 and on page 150.
  const targets: { page: number; id: string }[] = []
  for (const n of [3, 150]) {
    const text = pages[n - 1]!.text
    const m = /[A-Z][a-z]+(?:[ \n][a-zA-Z,;()'-]+){8,20}\./.exec(text)
    expect(m, `a sentence on page ${n}`).not.toBeNull()
    const h = await (await request.post(`/api/sources/${source.id}/highlights`, { data: { page: n, quote: m![0] } })).json()
    expect(h.rects.length).toBeGreaterThan(0)
    targets.push({ page: n, id: h.id })
  }

  await page.goto(`/w/${ws.id}`)
  await expect(page.getByTestId('source-item')).toHaveCount(1)
  const results: Record<number, number[]> = {}
  for (const target of targets) {
    results[target.page] = []
    for (let run = 0; run < 5; run++) {
      await page.goto(`/w/${ws.id}`)
      await expect(page.getByTestId('source-item')).toHaveCount(1)
      // Follow the link as a citation does (client-side navigation), then wait for the
      // highlight to be inside the viewport.
      const ms = await page.evaluate(
        ({ href }) =>
          new Promise<number>((resolve) => {
            const t0 = performance.now()
            history.pushState({}, '', href)
            dispatchEvent(new PopStateEvent('popstate'))
            const check = () => {
              const el = document.querySelector('[data-testid="note-highlight"]')
              const r = el?.getBoundingClientRect()
              const layer = el?.closest('[data-page-box]')?.querySelector('.react-pdf__Page__textContent span')
              if (r && layer && r.top >= 0 && r.bottom <= innerHeight && r.height > 0) resolve(performance.now() - t0)
              else requestAnimationFrame(check)
            }
            check()
          }),
        { href: `/w/${ws.id}/read/${source.id}?page=${target.page}&highlight=${target.id}` },
      )
      results[target.page]!.push(Math.round(ms))
    }
  }
  await page.goto(`/w/${ws.id}/read/${source.id}?page=150&highlight=${targets[1]!.id}`)
  await expect(page.getByTestId('note-highlight').first()).toBeInViewport()
  const atOpen = await heapMb(page)
  const canvasesAtOpen = await page.locator('.react-pdf__Page canvas').count()
  // Scroll through every page, a screen at a time.
  await page.getByTestId('pdf-scroller').evaluate(async (el) => {
    for (el.scrollTop = 0; el.scrollTop + el.clientHeight < el.scrollHeight; el.scrollTop += el.clientHeight) {
      await new Promise((r) => setTimeout(r, 60))
    }
  })
  await page.waitForTimeout(1500)
  const afterScroll = await heapMb(page)
  const canvasesAfter = await page.locator('.react-pdf__Page canvas').count()
  const report = {
    pages: pages.length,
    citation_to_visible_ms: Object.fromEntries(Object.entries(results).map(([p, v]) => [p, { runs: v, median: median(v) }])),
    js_heap_mb: { open_at_150: Math.round(atOpen * 10) / 10, after_scrolling_all: Math.round(afterScroll * 10) / 10 },
    rendered_pages: { open_at_150: canvasesAtOpen, after_scrolling_all: canvasesAfter },
  }
  console.log(`READER-BENCH ${JSON.stringify(report)}`)
})
