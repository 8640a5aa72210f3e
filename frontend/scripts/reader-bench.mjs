// The reader's numbers for docs/BENCHMARKS.md, against a running `marginalia serve` whose
// workspace holds the 300-page PDF of scripts/make_long_pdf.py:
//
//   uv run python scripts/make_long_pdf.py /tmp/long300.pdf --pages 300
//   MARGINALIA_HOME=/tmp/bench uv run marginalia serve --port 48123 &
//   (create a workspace, upload /tmp/long300.pdf, wait for the ingest job)
//   node frontend/scripts/reader-bench.mjs http://127.0.0.1:48123 <workspace id>
//
// Time from following a citation link (a client-side navigation to the reader URL with
// a backend-located quote, `?chunk=&quote=`, as clicking [n] does) to the highlight being
// inside the viewport over its drawn text layer, for page 3 and page 150, 5 runs each; the
// tab's JS heap (after a GC) open at page 150 and after scrolling through all 300 pages.
import { execFileSync } from 'node:child_process'
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
// One cited passage near the start and one past page 100: a chunk on that page and a
// sentence of it, opened the way a citation [n] opens them (`?chunk=&quote=`).
const chunks = await api(`/api/sources/${source.id}/chunks?limit=5000`)
const targets = []
for (const n of [3, 150]) {
  const chunk = chunks.find((c) => c.page_start === n && /[A-Z][a-z]+(?:[ \n][a-zA-Z,;()'-]+){8,20}\./.test(c.text))
  const quote = /[A-Z][a-z]+(?:[ \n][a-zA-Z,;()'-]+){8,20}\./.exec(chunk.text)[0]
  targets.push({ page: n, chunk: chunk.chunk_index, quote })
}

// A flag nothing else passes, to find this browser's main process (and its tree) in ps.
const tag = `--marginalia-reader-bench=${process.pid}`
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', tag] })
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
const heap = async () => {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('Performance.enable')
  await cdp.send('HeapProfiler.collectGarbage')
  const { metrics } = await cdp.send('Performance.getMetrics')
  await cdp.detach()
  return Math.round(metrics.find((x) => x.name === 'JSHeapUsedSize').value / 1e5) / 10
}
// Resident memory of the browser's renderer processes (the tab: DOM, canvases, pdf.js
// worker), from ps over the browser's process tree, in MB.
const rendererMb = () => {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,rss=,args='], { encoding: 'utf8' })
    .trim().split('\n').map((l) => l.trim().match(/^(\d+)\s+(\d+)\s+(\d+)\s+(.*)$/)).filter(Boolean)
  const main = rows.find(([, , , , args]) => args.includes(tag) && !args.includes('--type='))
  const tree = new Set([main ? Number(main[1]) : -1])
  for (let grew = true; grew; ) {
    grew = false
    for (const [, pid, ppid] of rows) if (tree.has(Number(ppid)) && !tree.has(Number(pid))) { tree.add(Number(pid)); grew = true }
  }
  const kb = rows.filter(([, pid, , , args]) => tree.has(Number(pid)) && args.includes('--type=renderer')).reduce((a, r) => a + Number(r[3]), 0)
  return Math.round(kb / 1024)
}
const results = {}
for (const t of targets) {
  results[t.page] = []
  for (let run = 0; run < 5; run++) {
    await page.goto(`${base}/w/${workspace}`)
    await page.getByTestId('source-item').first().waitFor()
    const href = `/w/${workspace}/read/${source.id}?chunk=${t.chunk}&quote=${encodeURIComponent(t.quote)}`
    const ms = await page.evaluate(
      (href) =>
        new Promise((resolve, reject) => {
          const t0 = performance.now()
          history.pushState({}, '', href)
          dispatchEvent(new PopStateEvent('popstate'))
          const check = () => {
            const rect = document.querySelector('[data-testid="quote-highlight"]')
            const r = rect?.getBoundingClientRect()
            const text = rect?.closest('[data-page-box]')?.querySelector('.react-pdf__Page__textContent span')
            if (r && text && r.height > 0 && r.top >= 0 && r.bottom <= innerHeight) resolve(performance.now() - t0)
            else if (performance.now() - t0 > 60000) reject(new Error(`not visible after 60 s: ${location.href} ${rect ? JSON.stringify(r) : 'no mark'} ${text ? 'text' : 'no text'}`))
            else requestAnimationFrame(check)
          }
          check()
        }),
      href,
    )
    results[t.page].push(Math.round(ms))
  }
}
await page.goto(`${base}/w/${workspace}/read/${source.id}?chunk=${targets[1].chunk}&quote=${encodeURIComponent(targets[1].quote)}`)
await page.getByTestId('quote-highlight').first().waitFor()
await page.waitForTimeout(1500)
const atOpen = await heap()
const rssAtOpen = rendererMb()
const canvasesAtOpen = await page.locator('.react-pdf__Page canvas').count()
await page.getByTestId('pdf-scroller').evaluate(async (el) => {
  for (el.scrollTop = 0; el.scrollTop + el.clientHeight < el.scrollHeight; el.scrollTop += el.clientHeight) {
    await new Promise((r) => setTimeout(r, 80))
  }
})
await page.waitForTimeout(2000)
const afterScroll = await heap()
const rssAfter = rendererMb()
const canvasesAfter = await page.locator('.react-pdf__Page canvas').count()
console.log(
  JSON.stringify({
    pages: pages.length,
    targets,
    citation_to_visible_ms: Object.fromEntries(Object.entries(results).map(([p, v]) => [p, { median: median(v), runs: v }])),
    js_heap_mb: { open_at_150: atOpen, after_scrolling_all_300: afterScroll },
    renderer_rss_mb: { open_at_150: rssAtOpen, after_scrolling_all_300: rssAfter },
    pages_drawn: { open_at_150: canvasesAtOpen, after_scrolling_all_300: canvasesAfter },
  }),
)
await browser.close()
