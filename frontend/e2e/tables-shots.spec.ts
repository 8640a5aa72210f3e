// On demand (E2E_EXTRAS=1 scripts/e2e.sh e2e/tables-shots.spec.ts): an evidence table's
// screenshots, light and dark, 1280×800 and 390×844, into docs/screenshots/ — two shared
// PDFs × the five suggested columns, filled by the offline engine.
import { expect, test } from '@playwright/test'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { SMALL_PDFS } from './helpers'

const SHOTS = path.resolve(import.meta.dirname, '..', '..', 'docs', 'screenshots')

test('evidence table screenshots', async ({ browser, request }) => {
  const ws = await (await request.post('/api/workspaces', { data: { name: 'Literature graphs', description: 'knowledge graphs and clinical reviews' } })).json()
  const form = new FormData()
  for (const file of SMALL_PDFS) form.append('files', new Blob([readFileSync(file)], { type: 'application/pdf' }), path.basename(file))
  const upload = await request.post(`/api/workspaces/${ws.id}/sources`, { multipart: form })
  expect(upload.ok(), await upload.text()).toBe(true)
  const job = await upload.json()
  await expect.poll(async () => (await (await request.get(`/api/jobs/${job.id}`)).json()).status, { timeout: 300_000 }).toBe('succeeded')
  const suggested: { question: string }[] = await (await request.get(`/api/workspaces/${ws.id}/tables/suggestions`)).json()
  const made = await (await request.post(`/api/workspaces/${ws.id}/tables`, { data: { name: 'Two papers', columns: suggested.map((s) => s.question) } })).json()
  await expect.poll(async () => (await (await request.get(`/api/jobs/${made.job_id}`)).json()).status, { timeout: 300_000 }).toBe('succeeded')
  const url = `/w/${ws.id}/table/${made.table.id}`
  for (const [size, viewport] of Object.entries({ wide: { width: 1280, height: 800 }, narrow: { width: 390, height: 844 } })) {
    for (const dark of [false, true]) {
      const context = await browser.newContext({ viewport, colorScheme: dark ? 'dark' : 'light' })
      const p = await context.newPage()
      await p.goto('/')
      await p.evaluate((d) => localStorage.setItem('marginalia-ui', JSON.stringify({ state: { theme: d ? 'dark' : 'light' }, version: 0 })), dark)
      await p.goto(url)
      await expect(p.locator('[data-testid="table-cell"][data-state="filled"]')).toHaveCount(10)
      await p.waitForTimeout(500)
      await p.screenshot({ path: path.join(SHOTS, `table-${dark ? 'dark' : 'light'}-${size}.png`) })
      if (size === 'wide' && !dark) {
        await p.goto(`/w/${ws.id}/table`)
        await expect(p.getByTestId('table-link')).toHaveCount(1)
        await p.getByTestId('suggested-column').first().click()
        await p.waitForTimeout(300)
        await p.screenshot({ path: path.join(SHOTS, 'table-new-light-wide.png') })
      }
      await context.close()
    }
  }
})
