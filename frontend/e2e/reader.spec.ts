// The reader end to end (issue 16): ask, open citation 1 in the reader — the cited page
// shows with the quote marked, and the pdf.js text-layer spans under the marks spell the
// quote; zooming keeps the marks on the same spans.
import { expect, test, type Page } from '@playwright/test'
import { ANSWERABLE, SMALL_PDFS, createWorkspace, uploadAndWait } from './helpers'
import { normalize } from '../src/lib/quotes'

/** The text of every text-layer span whose centre lies inside a quote-highlight box. */
async function spansUnderHighlights(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const boxes = [...document.querySelectorAll('[data-testid="quote-highlight"]')].map((el) => el.getBoundingClientRect())
    const spans = [...document.querySelectorAll('.react-pdf__Page__textContent span')] as HTMLElement[]
    return spans
      .filter((s) => {
        const r = s.getBoundingClientRect()
        if (!r.width || !r.height) return false
        const x = r.left + r.width / 2
        const y = r.top + r.height / 2
        // A span can run past the quote on its line: count it when its centre line is in a box.
        return boxes.some((b) => y >= b.top && y <= b.bottom && r.right > b.left + 1 && r.left < b.right - 1 && (x >= b.left - r.width / 2 || x <= b.right + r.width / 2))
      })
      .map((s) => s.textContent ?? '')
  })
}

function words(text: string): string[] {
  return normalize(text).toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean)
}

function coverage(quote: string, spans: string[]): number {
  const pool = new Map<string, number>()
  for (const w of words(spans.join(' '))) pool.set(w, (pool.get(w) ?? 0) + 1)
  const wanted = words(quote)
  let hit = 0
  for (const w of wanted) {
    const left = pool.get(w) ?? 0
    if (left > 0) {
      hit++
      pool.set(w, left - 1)
    }
  }
  return wanted.length ? hit / wanted.length : 0
}

test('a citation opens the PDF at its page with the quote marked, and zoom keeps it there', async ({ page }) => {
  const workspaceId = await createWorkspace(page, 'Reader', 'knowledge graphs of scientific literature')
  await uploadAndWait(page, SMALL_PDFS)

  await page.getByRole('link', { name: 'Chat' }).click()
  await page.getByTestId('ask-input').fill(ANSWERABLE)
  await page.getByTestId('ask-input').press('Enter')
  const claim = page.getByTestId('claim').first()
  await expect(claim).toBeVisible({ timeout: 120_000 })
  await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/)
  await claim.locator('[data-testid="citation"][data-n="1"], [data-testid="citation"]').first().click()
  const quote = normalize((await page.getByTestId('passage').getByTestId('passage-quote').textContent()) ?? '')
  expect(words(quote).length).toBeGreaterThanOrEqual(3)

  const started = Date.now()
  await page.getByTestId('open-reader').click()
  await page.waitForURL(new RegExp(`/w/${workspaceId}/read/[0-9a-f-]{36}\\?page=\\d+`))
  const cited = Number(new URL(page.url()).searchParams.get('page'))
  const pdfPage = page.locator(`.react-pdf__Page[data-page-number="${cited}"]`)
  await expect(pdfPage).toBeVisible()
  await expect(pdfPage.locator('.react-pdf__Page__textContent span').first()).toBeAttached()
  const highlight = page.getByTestId('quote-highlight').first()
  await expect(highlight).toBeInViewport()
  const visibleAfter = Date.now() - started
  test.info().annotations.push({ type: 'citation-to-visible-ms', description: String(visibleAfter) })
  await expect(page.getByTestId('margin-marker').first()).toBeVisible()
  await expect(page.getByTestId('current-page')).toHaveText(`page ${cited}`)

  const before = await spansUnderHighlights(page)
  const share = coverage(quote, before)
  test.info().annotations.push({ type: 'quote-words-under-highlight', description: share.toFixed(3) })
  expect(share, `quote: ${quote}\nspans: ${before.join(' | ')}`).toBeGreaterThanOrEqual(0.9)

  // Zoom in twice: the page is redrawn larger, the marks cover the same spans.
  const width = (await pdfPage.boundingBox())!.width
  await page.getByTestId('zoom-in').click()
  await page.getByTestId('zoom-in').click()
  await expect.poll(async () => (await pdfPage.boundingBox())!.width).toBeGreaterThan(width * 1.4)
  await expect(pdfPage.locator('.react-pdf__Page__textContent span').first()).toBeAttached()
  await page.getByTestId('quote-highlight').first().scrollIntoViewIfNeeded()
  await expect.poll(() => spansUnderHighlights(page)).toEqual(before)
  await page.getByTestId('fit-width').click()

  // The reading position is remembered: the source opened without ?page= comes back there.
  const reader = new URL(page.url())
  await expect(page.getByTestId('current-page')).toHaveText(`page ${cited}`)
  await page.goto(reader.pathname)
  await expect(page.locator(`.react-pdf__Page[data-page-number="${cited}"]`)).toBeVisible()
  await expect(page.getByTestId('current-page')).toHaveText(`page ${cited}`)
})
