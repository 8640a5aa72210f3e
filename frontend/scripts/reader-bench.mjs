// The reader's numbers for docs/BENCHMARKS.md, against a running `marginalia serve` whose
// workspace holds the 300-page PDF of scripts/make_long_pdf.py:
//
//   uv run python scripts/make_long_pdf.py /tmp/long300.pdf --pages 300
//   MARGINALIA_HOME=/tmp/bench uv run marginalia serve --port 48123 &
//   (create a workspace, upload /tmp/long300.pdf, wait for the ingest job)
//   node frontend/scripts/reader-bench.mjs http://127.0.0.1:48123 <workspace id>
//
// Time from following a citation link (a client-side navigation to the reader URL with
// a backend-anchored highlight, as [n] → "Open in the reader" does) to the highlight being
// inside the viewport over its drawn text layer, for page 3 and page 150, 5 runs each; the
// tab's JS heap (after a GC) open at page 150 and after scrolling through all 300 pages.
import { chromium } from 'playwright-core'

const [base, workspace] = process.argv.slice(2)
const api = async (path, init) => {
  const r = await fetch(base + path, init)
  if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`)
  return r.json()
}
const median = (v) => {
  const s = [...v].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

const source = (await api(`/api/workspaces/${workspace}/sources`))[0]
const pages = await api(`/api/sources/${source.id}/pages`)
const targets = []
for (const n of [3, 150]) {
  const m = /[A-Z][a-z]+(?:[ \n][a-zA-Z,;()'-]+){8,20}\./.exec(pages[n - 1].text)
  const h = await api(`/api/sources/${source.id}/highlights`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ page: n, quote: m[0] }),
  })
  targets.push({ page: n, id: h.id, rects: h.rects.length })
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] })
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
const heap = async () => {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('HeapProfiler.collectGarbage')
  const { metrics } = await cdp.send('Performance.getMetrics')
  await cdp.detach()
  return Math.round(metrics.find((x) => x.name === 'JSHeapUsedSize').value / 1e5) / 10
}
const results = {}
for (const t of targets) {
  results[t.page] = []
  for (let run = 0; run < 5; run++) {
    await page.goto(`${base}/w/${workspace}`)
    await page.getByTestId('source-item').first().waitFor()
    const href = `/w/${workspace}/read/${source.id}?page=${t.page}&highlight=${t.id}`
    const ms = await page.evaluate(
      (href) =>
        new Promise((resolve, reject) => {
          const t0 = performance.now()
          history.pushState({}, '', href)
          dispatchEvent(new PopStateEvent('popstate'))
          const check = () => {
            const rect = document.querySelector('[data-testid="note-highlight"]')
            const r = rect?.getBoundingClientRect()
            const text = rect?.closest('[data-page-box]')?.querySelector('.react-pdf__Page__textContent span')
            if (r && text && r.height > 0 && r.top >= 0 && r.bottom <= innerHeight) resolve(performance.now() - t0)
            else if (performance.now() - t0 > 60000) reject(new Error('not visible after 60 s'))
            else requestAnimationFrame(check)
          }
          check()
        }),
      href,
    )
    results[t.page].push(Math.round(ms))
  }
}
await page.goto(`${base}/w/${workspace}/read/${source.id}?page=150&highlight=${targets[1].id}`)
await page.getByTestId('note-highlight').first().waitFor()
await page.waitForTimeout(1500)
const atOpen = await heap()
const canvasesAtOpen = await page.locator('.react-pdf__Page canvas').count()
await page.getByTestId('pdf-scroller').evaluate(async (el) => {
  for (el.scrollTop = 0; el.scrollTop + el.clientHeight < el.scrollHeight; el.scrollTop += el.clientHeight) {
    await new Promise((r) => setTimeout(r, 80))
  }
})
await page.waitForTimeout(2000)
const afterScroll = await heap()
const canvasesAfter = await page.locator('.react-pdf__Page canvas').count()
console.log(
  JSON.stringify({
    pages: pages.length,
    targets,
    citation_to_visible_ms: Object.fromEntries(Object.entries(results).map(([p, v]) => [p, { median: median(v), runs: v }])),
    js_heap_mb: { open_at_150: atOpen, after_scrolling_all_300: afterScroll },
    pages_drawn: { open_at_150: canvasesAtOpen, after_scrolling_all_300: canvasesAfter },
  }),
)
await browser.close()
