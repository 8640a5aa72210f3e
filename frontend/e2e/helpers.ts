import { expect, type APIRequestContext, type Page } from '@playwright/test'
import fs from 'node:fs'
import AxeBuilder from '@axe-core/playwright'
import path from 'node:path'

export const PDFS = path.resolve(import.meta.dirname, '..', '..', '..', 'shared', 'data', 'pdfs')
// Two small real papers (175 kB and 238 kB).
export const SMALL_PDFS = ['literature-graph-naacl2018.pdf', 'trauma-bmc2010.pdf'].map((f) => path.join(PDFS, f))
export const ANSWERABLE = 'How many distinct paper nodes remain in the literature graph once duplicates are removed?'
export const UNANSWERABLE = 'Which sourdough starter gives the best rise at high altitude?'

export async function createWorkspace(page: Page, name: string, description: string): Promise<string> {
  await page.goto('/')
  await page.getByTestId('new-workspace').click()
  await page.getByLabel('Name').fill(name)
  await page.getByLabel(/Description/).fill(description)
  await page.getByRole('button', { name: 'Create' }).click()
  await page.waitForURL(/\/w\/[0-9a-f-]{36}$/)
  await expect(page.getByRole('heading', { level: 1, name })).toBeVisible()
  return page.url().split('/w/')[1] as string
}

/** Upload files in one batch and wait until every file has its outcome; returns the stages seen. */
type FilePayload = { name: string; mimeType: string; buffer: Buffer }

/** Upload `files` (paths) and `extra` in-memory files in one batch; wait until every
 * file has its outcome. Returns the status lines seen on the way. */
export async function uploadAndWait(page: Page, files: string[], extra: FilePayload[] = []): Promise<Set<string>> {
  const payloads: FilePayload[] = [
    ...files.map((f) => ({ name: path.basename(f), mimeType: 'application/pdf', buffer: fs.readFileSync(f) })),
    ...extra,
  ]
  await page.getByTestId('upload-input').setInputFiles(payloads)
  const batch = page.getByTestId('upload-batch').first()
  await expect(batch).toHaveAttribute('data-state', 'accepted')
  const seen = new Set<string>()
  const deadline = Date.now() + 200_000
  for (;;) {
    const statuses = await batch.getByTestId('upload-file-status').allTextContents()
    statuses.forEach((s) => seen.add(s))
    const outcomes = await batch.getByTestId('upload-file').evaluateAll((els) => els.map((e) => e.getAttribute('data-outcome')))
    if (outcomes.length === payloads.length && outcomes.every((o) => o === 'created' || o === 'duplicate' || o === 'refused'))
      return seen
    if (outcomes.includes('failed')) throw new Error(`an upload failed: ${statuses.join(' | ')}`)
    if (Date.now() > deadline) throw new Error(`uploads did not finish; last statuses: ${statuses.join(' | ')}`)
    await page.waitForTimeout(150)
  }
}

/** Record, in the page, when the first answer source and the first answer token appear. */
export async function watchAnswerTiming(page: Page): Promise<void> {
  await page.getByTestId('ask-input').first().waitFor()
  await page.evaluate(() => {
    const w = window as unknown as { __answer: { asked?: number; sources?: number; token?: number } }
    w.__answer = {}
    document.addEventListener(
      'keydown',
      (e) => {
        const target = e.target as HTMLElement | null
        if (e.key === 'Enter' && target?.dataset.testid === 'ask-input') w.__answer = { asked: performance.now() }
      },
      true,
    )
    const turns = () => document.querySelectorAll('[data-testid="turn"]')
    const check = () => {
      const last = turns()[turns().length - 1]
      if (!last || w.__answer.asked === undefined) return
      if (w.__answer.sources === undefined && last.querySelector('[data-testid="answer-source"]')) w.__answer.sources = performance.now()
      const text = last.querySelector('[data-testid="answer-text"], [data-testid="claim"], [data-testid="refusal"]')
      if (w.__answer.token === undefined && text && (text.textContent ?? '').trim()) w.__answer.token = performance.now()
    }
    new MutationObserver(check).observe(document.body, { subtree: true, childList: true, characterData: true })
  })
}

export async function answerTiming(page: Page): Promise<{ asked: number; sources: number; token: number }> {
  return page.evaluate(() => (window as unknown as { __answer: { asked: number; sources: number; token: number } }).__answer)
}

/** An accessibility scan of what is on screen: no serious or critical violations. */
export async function expectAccessible(page: Page, view: string): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  const summary = bad.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')}`)
  expect(summary, `axe on ${view}`).toEqual([])
}

export function normalizeSpace(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

/** A workspace of the two small PDFs with a table of the suggested columns, filled (both
 * jobs waited for). The tables' specs start from it. */
export async function workspaceWithTable(
  request: APIRequestContext,
  name: string,
  description: string,
): Promise<{ workspaceId: string; tableId: string }> {
  const ws = await (await request.post('/api/workspaces', { data: { name, description } })).json()
  const form = new FormData()
  for (const file of SMALL_PDFS) form.append('files', new Blob([fs.readFileSync(file)], { type: 'application/pdf' }), path.basename(file))
  const upload = await request.post(`/api/workspaces/${ws.id}/sources`, { multipart: form })
  expect(upload.ok(), await upload.text()).toBe(true)
  const job = await upload.json()
  await expect.poll(async () => (await (await request.get(`/api/jobs/${job.id}`)).json()).status, { timeout: 300_000 }).toBe('succeeded')
  const suggested: { question: string }[] = await (await request.get(`/api/workspaces/${ws.id}/tables/suggestions`)).json()
  const made = await (await request.post(`/api/workspaces/${ws.id}/tables`, { data: { name: 'Two papers', columns: suggested.map((s) => s.question) } })).json()
  await expect.poll(async () => (await (await request.get(`/api/jobs/${made.job_id}`)).json()).status, { timeout: 300_000 }).toBe('succeeded')
  return { workspaceId: ws.id, tableId: made.table.id }
}
