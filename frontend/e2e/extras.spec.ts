// On demand (make web-bench): screenshots of every view, light and dark, wide and narrow,
// into docs/screenshots/; and the timings docs/BENCHMARKS.md reports (median of 5):
// time to an interactive start page, time from Enter to the first answer token, and the
// JavaScript the start page loads (gzipped bytes on the wire).
import { expect, test, type Page } from '@playwright/test'
import { writeFileSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import { ANSWERABLE, SMALL_PDFS, UNANSWERABLE, answerTiming, createWorkspace, uploadAndWait, watchAnswerTiming } from './helpers'

const SHOTS = path.resolve(import.meta.dirname, '..', '..', 'docs', 'screenshots')
const sizes = { wide: { width: 1280, height: 800 }, narrow: { width: 390, height: 844 } }

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2
}

async function setTheme(page: Page, dark: boolean) {
  await page.evaluate((d) => {
    localStorage.setItem('marginalia-ui', JSON.stringify({ state: { theme: d ? 'dark' : 'light' }, version: 0 }))
  }, dark)
}

test('screenshots and timings', async ({ page, browser }) => {
  test.setTimeout(600_000)
  const workspaceId = await createWorkspace(page, 'Literature graphs', 'knowledge graphs of scientific literature and clinical reviews')
  await uploadAndWait(page, SMALL_PDFS)
  await page.getByRole('link', { name: 'Chat' }).click()
  await page.getByTestId('ask-input').fill(ANSWERABLE)
  await page.getByTestId('ask-input').press('Enter')
  await expect(page.getByTestId('claim').first()).toBeVisible({ timeout: 120_000 })
  await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/)
  const chatUrl = new URL(page.url()).pathname
  await page.getByTestId('ask-input').fill(UNANSWERABLE)
  await page.getByTestId('ask-input').press('Enter')
  await expect(page.getByTestId('refusal')).toBeVisible({ timeout: 120_000 })

  // ---- timings
  const tti: number[] = []
  const firstToken: number[] = []
  const firstViewJs: number[] = []
  for (let i = 0; i < 5; i++) {
    const context = await browser.newContext({ viewport: sizes.wide })
    const p = await context.newPage()
    let jsBytes = 0
    p.on('response', async (r) => {
      if (r.request().resourceType() === 'script') {
        const sizes = await r.request().sizes().catch(() => null)
        if (sizes) jsBytes += sizes.responseBodySize
      }
    })
    await p.goto('/', { waitUntil: 'commit' })
    await expect(p.getByTestId('workspace-item').first()).toBeVisible()
    await expect(p.getByTestId('new-workspace')).toBeEnabled()
    tti.push(await p.evaluate(() => performance.now()))
    await p.waitForLoadState('networkidle')
    firstViewJs.push(jsBytes)
    // A new conversation each time, so the first claim on the page is this answer's.
    await p.goto(`/w/${workspaceId}/chat`)
    await watchAnswerTiming(p)
    await p.getByTestId('ask-input').fill(ANSWERABLE)
    await p.getByTestId('ask-input').press('Enter')
    await expect(p.getByTestId('claim').first()).toBeVisible({ timeout: 120_000 })
    const t = await answerTiming(p)
    firstToken.push(t.token - t.asked)
    await context.close()
  }
  const kb = (b: number) => Math.round(b / 102.4) / 10
  const result = {
    start_page_interactive_ms: { median: median(tti), runs: tti.map(Math.round) },
    first_answer_token_ms: { median: median(firstToken), runs: firstToken.map(Math.round) },
    start_page_js_kb_gzipped: { median: kb(median(firstViewJs)), runs: firstViewJs.map(kb) },
  }
  console.log('WEB-BENCH ' + JSON.stringify(result))
  writeFileSync(path.resolve(import.meta.dirname, '..', 'test-results', 'web-bench.json'), JSON.stringify(result, null, 1))

  // A research run (the shared ACL catalog; arXiv and OpenAlex unreachable here).
  const researchWs = await createWorkspace(page, 'Dialogue', 'dialogue state tracking for task-oriented dialogue systems')
  await page.getByTestId('research-max').fill('4')
  await page.getByTestId('research-fulltext').uncheck()
  await page.getByRole('button', { name: 'Start research' }).click()
  await expect(page.getByTestId('job-item').first()).toHaveAttribute('data-status', 'succeeded', { timeout: 180_000 })

  // ---- screenshots
  mkdirSync(SHOTS, { recursive: true })
  for (const dark of [false, true]) {
    await setTheme(page, dark)
    await page.reload()
    await expect(page.getByTestId('source-item').first()).toBeVisible()
    // The research panel lives in this tab's state: start a (quick, all-duplicate) run again to show it.
    await page.getByTestId('research-max').fill('4')
    await page.getByTestId('research-fulltext').uncheck()
    await page.getByRole('button', { name: 'Start research' }).click()
    await expect(page.getByTestId('research-progress')).toContainText(/found → \d+ unique/, { timeout: 120_000 })
    await expect(page.getByTestId('job-item').first()).toHaveAttribute('data-status', 'succeeded', { timeout: 180_000 })
    await page.screenshot({ path: path.join(SHOTS, `research-${dark ? 'dark' : 'light'}-wide.png`), fullPage: true })
  }
  void researchWs
  const views: Array<[string, string, (p: Page) => Promise<void>]> = [
    ['workspaces', '/', async (p) => void (await expect(p.getByTestId('workspace-item').first()).toBeVisible())],
    ['home', `/w/${workspaceId}`, async (p) => void (await expect(p.getByTestId('source-item')).toHaveCount(2))],
    [
      'chat',
      chatUrl,
      async (p) => {
        await expect(p.getByTestId('claim').first()).toBeVisible()
        await p.getByTestId('claim').first().getByTestId('citation').first().hover()
        await expect(p.getByTestId('passage-quote')).toBeVisible()
      },
    ],
  ]
  for (const [size, viewport] of Object.entries(sizes)) {
    for (const dark of [false, true]) {
      const context = await browser.newContext({ viewport, colorScheme: dark ? 'dark' : 'light' })
      const p = await context.newPage()
      await p.goto('/')
      await setTheme(p, dark)
      for (const [name, url, ready] of views) {
        await p.goto(url)
        await ready(p)
        await p.waitForTimeout(300)
        await p.screenshot({ path: path.join(SHOTS, `${name}-${dark ? 'dark' : 'light'}-${size}.png`) })
      }
      await context.close()
    }
  }
})
