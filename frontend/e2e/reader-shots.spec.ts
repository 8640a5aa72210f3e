// On demand (E2E_EXTRAS=1 npm run e2e -- e2e/reader-shots.spec.ts): the reader's
// screenshots, light and dark, 1280×800 and 390×844, into docs/screenshots/ — a PDF
// opened at a cited quote (marked, with its margin marker) beside a highlight with a note.
import { expect, test } from '@playwright/test'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { SMALL_PDFS } from './helpers'

const SHOTS = path.resolve(import.meta.dirname, '..', '..', 'docs', 'screenshots')

test('reader screenshots', async ({ browser, request }) => {
  const ws = await (await request.post('/api/workspaces', { data: { name: 'Reader', description: 'knowledge graphs of scientific literature' } })).json()
  const file = SMALL_PDFS[0]!
  const upload = await request.post(`/api/workspaces/${ws.id}/sources`, {
    multipart: { files: { name: path.basename(file), mimeType: 'application/pdf', buffer: readFileSync(file) } },
  })
  const job = await upload.json()
  await expect.poll(async () => (await (await request.get(`/api/jobs/${job.id}`)).json()).status, { timeout: 300_000 }).toBe('succeeded')
  const source = (await (await request.get(`/api/workspaces/${ws.id}/sources`)).json())[0]
  const pages: { text: string }[] = await (await request.get(`/api/sources/${source.id}/pages`)).json()
  const sentences = [...pages[1]!.text.matchAll(/[A-Z][a-z]+(?:[ \n][a-zA-Z,;()'-]+){8,25}\./g)].map((m) => m[0])
  const note = await (
    await request.post(`/api/sources/${source.id}/highlights`, { data: { page: 2, quote: sentences[1], color: 'green', note: 'The graph keeps authors, papers and entities as nodes.' } })
  ).json()
  const cited = await (await request.post(`/api/sources/${source.id}/highlights`, { data: { page: 2, quote: sentences[3] } })).json()
  await request.delete(`/api/highlights/${cited.id}`)
  const rects = cited.rects.map((r: { page: number; x0: number; y0: number; x1: number; y1: number }) => `${r.page}:${r.x0},${r.y0},${r.x1},${r.y1}`).join(';')
  const url = `/w/${ws.id}/read/${source.id}?page=2&n=1&rects=${encodeURIComponent(rects)}`
  for (const [size, viewport] of Object.entries({ wide: { width: 1280, height: 800 }, narrow: { width: 390, height: 844 } })) {
    for (const dark of [false, true]) {
      const context = await browser.newContext({ viewport, colorScheme: dark ? 'dark' : 'light' })
      const p = await context.newPage()
      await p.goto('/')
      await p.evaluate((d) => localStorage.setItem('marginalia-ui', JSON.stringify({ state: { theme: d ? 'dark' : 'light' }, version: 0 })), dark)
      await p.goto(url)
      await expect(p.getByTestId('quote-highlight').first()).toBeInViewport()
      await expect(p.getByTestId('note-item')).toHaveCount(1)
      expect(note.id).toBeTruthy()
      await p.waitForTimeout(500)
      await p.screenshot({ path: path.join(SHOTS, `reader-${dark ? 'dark' : 'light'}-${size}.png`) })
      await context.close()
    }
  }
})
