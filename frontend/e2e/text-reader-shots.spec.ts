// On demand (E2E_EXTRAS=1 npm run e2e -- e2e/text-reader-shots.spec.ts): a Markdown source
// in the reader (issue 35): headings, a list and emphasis rendered, no raw `#`, a highlight
// made through the API marked on its words — light and dark, 1280×800 and 390×844, into
// docs/screenshots/.
import { expect, test } from '@playwright/test'
import path from 'node:path'

const SHOTS = path.resolve(import.meta.dirname, '..', '..', 'docs', 'screenshots')

const PAPER = `# Sparse Attention for Long Documents

## Abstract

Transformers read **long documents** slowly: attention costs grow with the square of the
length. We propose a *sparse* attention pattern that keeps a few global tokens.

## Method

- a sliding window of 256 tokens
- global tokens at every section start
- the \`BigBird\` pattern as a baseline

> Sparse attention keeps most of the quality at a fraction of the cost.

## Results

On three summarization datasets the sparse model matches full attention within one ROUGE
point while using a quarter of the memory.
`

test('text reader screenshots', async ({ browser, request }) => {
  const ws = await (await request.post('/api/workspaces', { data: { name: 'Text reader' } })).json()
  const upload = await request.post(`/api/workspaces/${ws.id}/sources`, {
    multipart: { files: { name: 'sparse-attention.md', mimeType: 'text/markdown', buffer: Buffer.from(PAPER) } },
  })
  const job = await upload.json()
  await expect.poll(async () => (await (await request.get(`/api/jobs/${job.id}`)).json()).status, { timeout: 300_000 }).toBe('succeeded')
  const source = (await (await request.get(`/api/workspaces/${ws.id}/sources`)).json())[0]
  const note = await request.post(`/api/sources/${source.id}/highlights`, {
    data: { page: 1, quote: 'attention costs grow with the square of the length', color: 'green', note: 'The quadratic cost.' },
  })
  expect(note.ok()).toBeTruthy()
  for (const [size, viewport] of Object.entries({ wide: { width: 1280, height: 800 }, narrow: { width: 390, height: 844 } })) {
    for (const dark of [false, true]) {
      const context = await browser.newContext({ viewport, colorScheme: dark ? 'dark' : 'light' })
      const p = await context.newPage()
      await p.goto('/')
      await p.evaluate((d) => localStorage.setItem('marginalia-ui', JSON.stringify({ state: { theme: d ? 'dark' : 'light' }, version: 0 })), dark)
      await p.goto(`/w/${ws.id}/read/${source.id}`)
      const reader = p.getByTestId('text-reader')
      await expect(reader.getByRole('heading', { name: 'Abstract' })).toBeVisible()
      await expect(p.getByTestId('note-highlight')).toHaveText('attention costs grow with the square of the length')
      expect(await reader.innerText()).not.toMatch(/^#+ /m)
      await p.waitForTimeout(300)
      await p.screenshot({ path: path.join(SHOTS, `text-reader-${dark ? 'dark' : 'light'}-${size}.png`) })
      await context.close()
    }
  }
})
