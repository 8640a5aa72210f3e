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
  const citation = claim.locator('[data-testid="citation"][data-n="1"], [data-testid="citation"]').first()
  await citation.hover()
  const quote = normalize((await page.getByTestId('passage').getByTestId('passage-quote').textContent()) ?? '')
  expect(words(quote).length).toBeGreaterThanOrEqual(3)

  // Clicking [n] opens the reader directly (no popover step), at the quote's page.
  const started = Date.now()
  await citation.click()
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

/** Where the note's rectangles stand, in fractions of their page's box. */
async function noteBoxes(page: Page): Promise<number[][]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('[data-testid="note-highlight"]')].map((el) => {
      const box = (el.closest('[data-page-box]')!.firstElementChild as HTMLElement).getBoundingClientRect()
      const r = el.getBoundingClientRect()
      return [(r.left - box.left) / box.width, (r.top - box.top) / box.height, r.width / box.width, r.height / box.height].map((v) => Math.round(v * 1000) / 1000)
    }),
  )
}

test('select text, highlight it with a note; after a reload it is still there, at the same place', async ({ page }) => {
  await createWorkspace(page, 'Reader notes', 'knowledge graphs of scientific literature')
  await uploadAndWait(page, SMALL_PDFS.slice(0, 1))
  await page.getByRole('link', { name: /^Read / }).first().click()
  await page.waitForURL(/\/read\/[0-9a-f-]{36}/)
  const first = page.locator('.react-pdf__Page[data-page-number="1"]')
  // The whole text layer (react-pdf appends .endOfContent when pdf.js has drawn all of it).
  await expect(first.locator('.react-pdf__Page__textContent .endOfContent')).toBeAttached()

  // Select one whole line of body text in pdf.js's text layer, as a mouse drag would.
  const selected = await page.evaluate(() => {
    const layer = document.querySelector('.react-pdf__Page[data-page-number="1"] .react-pdf__Page__textContent')!
    const spans = [...layer.querySelectorAll('span')].filter((s) => (s.textContent ?? '').trim().split(/\s+/).length >= 6)
    const span = spans[Math.min(4, spans.length - 1)]!
    const range = document.createRange()
    range.selectNodeContents(span)
    const sel = window.getSelection()!
    sel.removeAllRanges()
    sel.addRange(range)
    span.dispatchEvent(new MouseEvent('mouseup', { bubbles: true }))
    return span.textContent ?? ''
  })
  const toolbar = page.getByTestId('selection-toolbar')
  await expect(toolbar).toBeVisible()
  await toolbar.getByTestId('add-note').click()
  await toolbar.getByTestId('new-note').fill('Worth citing in the related work.')
  await toolbar.getByTestId('save-note').click()
  await expect(toolbar).toBeHidden()
  const item = page.getByTestId('note-item')
  await expect(item).toHaveCount(1)
  await expect(item.getByTestId('note-text')).toHaveText('Worth citing in the related work.')
  await expect(item).toContainText(selected.trim().split(/\s+/).slice(0, 3).join(' '))
  await expect(page.getByTestId('note-highlight').first()).toBeVisible()
  const before = await noteBoxes(page)
  expect(before.length).toBeGreaterThan(0)

  await page.reload()
  await expect(page.getByTestId('note-item')).toHaveCount(1)
  await expect(page.getByTestId('note-item').getByTestId('note-text')).toHaveText('Worth citing in the related work.')
  await page.getByTestId('note-item').getByRole('button', { name: /Show the highlight/ }).click()
  await expect(page.getByTestId('note-highlight').first()).toBeVisible()
  expect(await noteBoxes(page)).toEqual(before)

  // Search, edit and delete from the sidebar.
  await page.getByTestId('note-search').fill('nothing like this')
  await expect(page.getByTestId('note-item')).toHaveCount(0)
  await page.getByTestId('note-search').fill('related work')
  await expect(page.getByTestId('note-item')).toHaveCount(1)
  await page.getByTestId('note-search').fill('')
  await page.getByTestId('note-item').getByRole('button', { name: 'Edit note' }).click()
  await page.getByTestId('note-edit').fill('Cite in section 2.')
  await page.getByTestId('note-save').click()
  await expect(page.getByTestId('note-item').getByTestId('note-text')).toHaveText('Cite in section 2.')
  await page.getByTestId('note-delete').click()
  await expect(page.getByTestId('note-item')).toHaveCount(0)

  // A selection across the page break: the end of page 1's text and the start of page 2's.
  const second = page.locator('.react-pdf__Page[data-page-number="2"]')
  await second.scrollIntoViewIfNeeded()
  await expect(second.locator('.react-pdf__Page__textContent span').first()).toBeAttached()
  const leafSpans = (n: number) =>
    page.evaluate(
      (n) =>
        [...document.querySelectorAll(`.react-pdf__Page[data-page-number="${n}"] .react-pdf__Page__textContent span`)].filter(
          (s) => (s.textContent ?? '').trim() && !s.querySelector('span'),
        ).length,
      n,
    )
  await expect.poll(async () => Math.min(await leafSpans(1), await leafSpans(2))).toBeGreaterThan(0)
  // pdf.js redraws a page's text layer when the page's width changes (the layer is emptied,
  // then streamed in again; react-pdf appends `.endOfContent` once it is whole). In CI runs
  // under load the selection once found page 1's layer empty and once was refused by the
  // server as not on pages 1–2 (a layer caught mid-redraw is the likely cause). So: select
  // only over two whole layers, and retry the selection and its save together (a refused
  // save stores nothing).
  await expect(async () => {
    const made = await page.evaluate(() => {
      const layer = (n: number) => document.querySelector(`.react-pdf__Page[data-page-number="${n}"] .react-pdf__Page__textContent`)
      const [one, two] = [layer(1), layer(2)]
      if (!one?.querySelector('.endOfContent') || !two?.querySelector('.endOfContent')) return false
      const leaves = (l: Element) => [...l.querySelectorAll('span')].filter((s) => (s.textContent ?? '').trim() && !s.querySelector('span'))
      // The last line of body text: page 1 ends with its page number, which the stored
      // text no longer has (the backend skips it inside a selection, not as a whole one).
      const from = leaves(one).filter((s) => /[a-z]/i.test(s.textContent ?? '')).at(-1)?.firstChild
      const to = leaves(two)[0]?.firstChild
      if (!from || !to) return false
      const range = document.createRange()
      range.setStart(from, 0)
      range.setEnd(to, to.textContent!.length)
      const sel = window.getSelection()!
      sel.removeAllRanges()
      sel.addRange(range)
      to.parentElement!.dispatchEvent(new MouseEvent('mouseup', { bubbles: true }))
      return true
    })
    expect(made, 'both pages\' text layers whole and the selection made').toBe(true)
    await expect(toolbar).toBeVisible({ timeout: 2_000 })
    await toolbar.getByRole('button', { name: /yellow/i }).first().click()
    await expect(page.getByTestId('note-item')).toHaveCount(1, { timeout: 5_000 })
  }).toPass({ timeout: 60_000 })
  const sourceId = new URL(page.url()).pathname.split('/').at(-1)!
  const [crossing] = await (await page.request.get(`/api/sources/${sourceId}/highlights`)).json()
  expect([crossing.page, crossing.page_end]).toEqual([1, 2])
  expect(new Set(crossing.rects.map((r: { page: number }) => r.page))).toEqual(new Set([1, 2]))
  await expect(page.locator('[data-page-box="1"] [data-testid="note-highlight"]').first()).toBeAttached()
  await expect(page.locator('[data-page-box="2"] [data-testid="note-highlight"]').first()).toBeAttached()
})

test('a selection that wraps lines in the PDF is one highlight, its words not glued (issue 34)', async ({ page }) => {
  await createWorkspace(page, 'Reader wrapped lines', 'knowledge graphs of scientific literature')
  await uploadAndWait(page, SMALL_PDFS.slice(0, 1))
  await page.getByRole('link', { name: /^Read / }).first().click()
  await page.waitForURL(/\/read\/[0-9a-f-]{36}/)
  const first = page.locator('.react-pdf__Page[data-page-number="1"]')
  await expect(first.locator('.react-pdf__Page__textContent .endOfContent')).toBeAttached()
  const toolbar = page.getByTestId('selection-toolbar')
  // What the reader sends: the quote, with a space where the line broke (before: glued).
  const sent: string[] = []
  page.on('request', (req) => {
    if (req.method() === 'POST' && req.url().endsWith('/highlights')) sent.push(String(req.postDataJSON()?.quote ?? ''))
  })
  let junction = ''
  // As in the test above: select over a whole layer, retry selection and save together.
  await expect(async () => {
    junction = await page.evaluate(() => {
      const layer = document.querySelector('.react-pdf__Page[data-page-number="1"] .react-pdf__Page__textContent')
      if (!layer?.querySelector('.endOfContent')) return ''
      const words = (el: Element | null) => (el?.textContent ?? '').trim().split(/\s+/).filter((w) => /^[A-Za-z]{3,}$/.test(w))
      // A line break of pdf.js's text layer between two lines of body text.
      const br = [...layer.querySelectorAll('br')].find(
        (b) => words(b.previousElementSibling).length >= 4 && words(b.nextElementSibling).length >= 4 && /[A-Za-z]$/.test(b.previousElementSibling!.textContent!.trim()),
      )
      if (!br) return ''
      const from = br.previousElementSibling!.firstChild!
      const to = br.nextElementSibling!.firstChild!
      const range = document.createRange()
      const text = from.textContent!
      range.setStart(from, text.lastIndexOf(text.trimEnd().split(/\s+/).slice(-3).join(' ')))
      range.setEnd(to, to.textContent!.split(/\s+/).slice(0, 3).join(' ').length)
      const sel = window.getSelection()!
      sel.removeAllRanges()
      sel.addRange(range)
      to.parentElement!.dispatchEvent(new MouseEvent('mouseup', { bubbles: true }))
      const last = from.textContent!.trim().split(/\s+/).at(-1)!
      const next = to.textContent!.trim().split(/\s+/)[0]!
      return `${last} ${next}`
    })
    expect(junction, 'a line break between two lines of words on page 1').not.toBe('')
    await expect(toolbar).toBeVisible({ timeout: 2_000 })
    await toolbar.getByRole('button', { name: /yellow/i }).first().click()
    await expect(page.getByTestId('note-item')).toHaveCount(1, { timeout: 5_000 })
  }).toPass({ timeout: 60_000 })
  expect(sent.at(-1)).toContain(junction)
  // The last word of one line and the first of the next, with the line break between.
  await expect(page.getByTestId('note-item')).toContainText(junction)
  const sourceId = new URL(page.url()).pathname.split('/').at(-1)!
  const [made] = await (await page.request.get(`/api/sources/${sourceId}/highlights`)).json()
  expect(normalize(made.text)).toContain(junction)
  await expect(page.getByTestId('note-highlight').first()).toBeVisible()
})
