// Evidence tables end to end (issue 37): build a table in the UI over two real PDFs, watch
// it fill, click a cell — the reader opens at the quote's page with the quote marked —
// and export the table as CSV with the quote and page beside each value.
import { expect, test } from '@playwright/test'
import fs from 'node:fs'
import { SMALL_PDFS, createWorkspace, uploadAndWait } from './helpers'
import { normalize } from '../src/lib/quotes'

const COUNT = 'How many samples, participants or documents are studied?'

test('build a table, click a cell: the reader opens on the quote; export CSV', async ({ page }) => {
  const workspaceId = await createWorkspace(page, 'Tables', 'literature graphs and thromboprophylaxis')
  await uploadAndWait(page, SMALL_PDFS)

  await page.getByRole('link', { name: 'Tables' }).click()
  await page.waitForURL(new RegExp(`/w/${workspaceId}/table$`))
  // One column typed, one picked from the suggestions.
  await page.getByTestId('new-column').first().fill(COUNT)
  await page.getByTestId('suggested-column').filter({ hasText: 'Datasets' }).click()
  await expect(page.getByTestId('new-column')).toHaveCount(2)
  await page.getByTestId('create-table').click()
  await page.waitForURL(new RegExp(`/w/${workspaceId}/table/[0-9a-f-]{36}$`))

  const table = page.getByTestId('evidence-table')
  await expect(table).toBeVisible()
  await expect(table.getByTestId('table-row')).toHaveCount(2)
  await expect(table.getByTestId('table-column')).toHaveCount(2)
  // Every cell fills (live, from the job's events): an answer with a quote, or not reported.
  await expect(table.locator('[data-testid="table-cell"][data-state="filled"]')).toHaveCount(4, { timeout: 180_000 })
  const answered = table.locator('[data-testid="table-cell"][data-state="filled"]:not([data-not-reported])')
  expect(await answered.count()).toBeGreaterThan(0)

  // Clicking the cell (not its quote link) opens the reader at the quote, marked.
  const cell = answered.first()
  const quote = normalize((await cell.getByTestId('cell-quote').first().getAttribute('title')) ?? '')
  expect(quote.split(' ').length).toBeGreaterThanOrEqual(3)
  await cell.getByTestId('cell-answer').click()
  await page.waitForURL(new RegExp(`/w/${workspaceId}/read/[0-9a-f-]{36}\\?page=\\d+&chunk=\\d+&quote=`))
  const cited = Number(new URL(page.url()).searchParams.get('page'))
  expect(normalize(new URL(page.url()).searchParams.get('quote') ?? '')).toBe(quote)
  await expect(page.locator(`.react-pdf__Page[data-page-number="${cited}"]`)).toBeVisible()
  await expect(page.getByTestId('quote-highlight').first()).toBeInViewport()
  await expect(page.getByTestId('current-page')).toHaveText(`page ${cited}`)

  // Back to the table: export CSV — a value with its quote and page beside it.
  await page.goBack()
  await expect(page.getByTestId('evidence-table')).toBeVisible()
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-csv').click()])
  expect(download.suggestedFilename()).toMatch(/\.csv$/)
  const csv = fs.readFileSync((await download.path()) as string, 'utf8')
  const [header, ...lines] = csv.trim().split(/\r\n/)
  expect(header).toContain(`${COUNT} — quote`)
  expect(header).toContain(`${COUNT} — page`)
  expect(lines).toHaveLength(2)
  expect(normalize(csv)).toContain(quote.slice(0, 40))
})
